"""Unmarked releases end to end as real processes: ``anonymize setgen --unmarked`` then
``attack setgen --unmarked --original`` (thesis §3.5.2)."""

from __future__ import annotations

import json
import stat

import pytest
from conftest import SAMPLES, write_fig4_scores

PRIVACY = "blood pressure\nicd\nlimbs\ninjury\n"
UTILITY = "blood pressure, icd, weakness, dizziness, pain, diabetes, limbs, injury\n"


@pytest.mark.slow
def test_figure_1_released_unmarked_is_the_thesis_figure_3_7_and_attacked_as_marked(cli, tmp_path):
    (tmp_path / "p.txt").write_text(PRIVACY)
    (tmp_path / "u.txt").write_text(UTILITY)
    out = tmp_path / "release.txt"
    r = cli("anonymize", "setgen", SAMPLES / "medical-original.txt", "-k", "4", "-o", out,
            "--privacy", tmp_path / "p.txt", "--utility", tmp_path / "u.txt", "--unmarked")
    assert r.returncode == 0, r.stderr
    assert "unmarked" in r.stdout
    assert out.read_text() == (
        "heart disease, blood pressure, icd, limbs, injury, weakness, dizziness\n"
        "anesthesia, blood pressure, icd, limbs, injury, pain, diabetes\n"
        "gangrene, blood pressure, icd, limbs, injury\n"
        "knee, blood pressure, icd, limbs, injury\n")
    side = tmp_path / "release.txt.json"
    assert stat.S_IMODE(side.stat().st_mode) == 0o600  # it records the groups: private
    doc = json.loads(side.read_text())
    assert doc["unmarked"] is True and doc["generalisation"] == {
        "(blood pressure, icd, limbs, injury)": ["blood pressure", "icd", "limbs", "injury"]}

    scores = write_fig4_scores(tmp_path / "fig4.csv")
    attacked = tmp_path / "attacked.txt"
    r = cli("attack", "setgen", out, "--unmarked", "--original", SAMPLES / "medical-original.txt",
            "--measure", f"scores:{scores}", "--method", "rba", "-o", attacked, "--json")
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    marked = json.loads(cli("attack", "setgen", SAMPLES / "medical-setgen.txt", "--original",
                            SAMPLES / "medical-original.txt", "--measure", f"scores:{scores}",
                            "--method", "rba", "--json").stdout)
    assert rep["groups"] == marked["groups"] and rep["metrics"] == marked["metrics"]
    assert rep["unmarked"]["exactness"]["exact_share"] == 1.0 and rep["unmarked"]["k"] == 4
    # RBA leaves exactly the original items (ALGORITHMS.md §1), written with the recovered group marked
    assert attacked.read_text().splitlines()[2] == "gangrene, (limbs, injury)"


@pytest.mark.slow
def test_meps_sample_unmarked_end_to_end(cli, tmp_path):
    out = tmp_path / "meps-unmarked.txt"
    r = cli("anonymize", "setgen", SAMPLES / "meps400-original.txt", "-k", "3", "-o", out,
            "--random-privacy", "30", "--seed", "1", "--unmarked")
    assert r.returncode == 0, r.stderr
    assert "(" not in out.read_text()  # no generalised item is marked
    report = tmp_path / "report.json"
    r = cli("attack", "setgen", out, "--unmarked", "--original", SAMPLES / "meps400-original.txt",
            "--method", "tba", "--report", report)
    assert r.returncode == 0, r.stderr
    assert "11 of 11 true generalised items recovered exactly" in r.stdout
    assert "Not marking the generalised items hides almost nothing" in r.stdout
    assert stat.S_IMODE(report.stat().st_mode) == 0o600
    rep = json.loads(report.read_text())
    cells = rep["unmarked"]["cells"]
    assert cells["added_left_plain"] == 0 and cells["added_items"] == rep["metrics"]["added"]
    marked = json.loads(cli("attack", "setgen", SAMPLES / "meps400-setgen.txt", "--original",
                            SAMPLES / "meps400-original.txt", "--method", "tba", "--json").stdout)
    assert rep["metrics"] == marked["metrics"]  # the same release, recovered: the same attack


def test_unmarked_misuse_is_one_line_exit_2(cli, tmp_path):
    r = cli("attack", "setgen", SAMPLES / "medical-setgen.txt", "--unmarked")
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    assert "--unmarked: the release marks its generalised items" in r.stderr
    r = cli("attack", "setgen", SAMPLES / "medical-original.txt")
    assert r.returncode == 2 and "--unmarked" in r.stderr
