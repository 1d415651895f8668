"""``semtui anonymize setgen`` as a real process: the release, its sidecar, exit codes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest
from conftest import SAMPLES, paused_at, wait_paused

UTILITY = "blood pressure, icd, weakness, dizziness, pain, diabetes, limbs, injury\n"
PRIVACY = "blood pressure\nicd\nlimbs\ninjury\n"


@pytest.fixture
def fig1(tmp_path):
    (tmp_path / "p.txt").write_text(PRIVACY)
    (tmp_path / "u.txt").write_text(UTILITY)
    return tmp_path


@pytest.mark.slow
def test_figure_1_to_figure_2_and_the_check_passes(cli, fig1):
    out = fig1 / "release.txt"
    r = cli("anonymize", "setgen", SAMPLES / "medical-original.txt", "-k", "4", "-o", out,
            "--privacy", fig1 / "p.txt", "--utility", fig1 / "u.txt")
    assert r.returncode == 0, r.stderr
    assert out.read_text() == (SAMPLES / "medical-setgen.txt").read_text()
    side = json.loads((fig1 / "release.txt.json").read_text())
    assert side["format"] == "semtui-setgen-sidecar/1"
    assert side["k"] == 4
    assert side["privacy_constraints"] == [["blood pressure"], ["icd"], ["limbs"], ["injury"]]
    assert side["utility_constraints"] == [UTILITY.strip().split(", ")]
    assert side["generalisation"] == {
        "(blood pressure, icd, limbs, injury)": ["blood pressure", "icd", "limbs", "injury"]}
    assert side["generalised_item_supports"] == {"(blood pressure, icd, limbs, injury)": 4}
    assert side["suppressed"] == []
    assert side["utility_loss"] == 15.0
    assert side["stats"]["added_items"] == 10
    assert side["time_seconds"] >= 0
    for constraints in (fig1 / "p.txt", fig1 / "release.txt.json"):
        c = cli("check", "privacy", out, "--privacy", constraints, "-k", "4")
        assert c.returncode == 0, c.stdout + c.stderr


@pytest.mark.slow
def test_random_constraints_json_and_sidecar_path(cli, tmp_path):
    out = tmp_path / "r.txt"
    side = tmp_path / "meta" / "side.json"
    side.parent.mkdir()
    r = cli("anonymize", "setgen", SAMPLES / "medical-original.txt", "-k", "2", "-o", out,
            "--random-privacy", "5", "--sizes", "2-3", "--seed", "9", "--sidecar", side, "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc == json.loads(side.read_text())
    assert doc["privacy"] == {"source": "random", "n": 5, "sizes": [2, 3], "seed": 9}
    assert len(doc["privacy_constraints"]) == 5
    assert not (tmp_path / "r.txt.json").exists()
    assert len(out.read_text().splitlines()) == 4
    c = cli("check", "privacy", out, "--privacy", side, "-k", "2")
    assert c.returncode == 0, c.stdout


@pytest.mark.slow
def test_suppressed_transaction_is_a_dash_line(cli, tmp_path):
    orig = tmp_path / "o.txt"
    orig.write_text("a, b\nrare\na, b\na, c\n")
    (tmp_path / "p.txt").write_text("rare\n")
    (tmp_path / "u.txt").write_text("a, b, c\n")
    out = tmp_path / "out.txt"
    r = cli("anonymize", "setgen", orig, "-k", "2", "-o", out, "--privacy", tmp_path / "p.txt",
            "--utility", tmp_path / "u.txt")
    assert r.returncode == 0, r.stderr
    assert out.read_text().splitlines() == ["a, b", "-", "a, b", "a, c"]
    assert json.loads((tmp_path / "out.txt.json").read_text())["suppressed"] == ["rare"]
    info = cli("info", out, "--json")
    assert json.loads(info.stdout)["transactions"] == 4


def test_unknown_privacy_items_are_warned_about(cli, tmp_path):
    (tmp_path / "p.txt").write_text("icd, no such condition\n")
    r = cli("anonymize", "setgen", SAMPLES / "medical-original.txt", "-k", "2", "-o", tmp_path / "o.txt",
            "--privacy", tmp_path / "p.txt")
    assert r.returncode == 0
    assert "not in" in r.stderr and "no such condition" in r.stderr


@pytest.mark.slow
def test_wordnet_utility(cli, fig1):
    out = fig1 / "w.txt"
    r = cli("anonymize", "setgen", SAMPLES / "medical-original.txt", "-k", "4", "-o", out,
            "--privacy", fig1 / "p.txt", "--utility", "wordnet")
    if r.returncode == 2:  # the measure (or its WordNet data) is not installed: one clear line
        assert "wordnet" in r.stderr.lower() and len(r.stderr.strip().splitlines()) == 1
        assert not out.exists()
        return
    assert r.returncode == 0, r.stderr
    side = json.loads((fig1 / "w.txt.json").read_text())
    assert side["utility"] == "wordnet"
    members = [m for u in side["utility_constraints"] for m in u]
    assert len(members) == len(set(members))  # disjoint
    for g in side["generalisation"].values():
        assert any(set(g) <= set(u) for u in side["utility_constraints"])
    assert cli("check", "privacy", out, "--privacy", fig1 / "p.txt", "-k", "4").returncode == 0


BAD = [
    (["{orig}", "-k", "4", "-o", "{out}"], "exactly one of --privacy"),
    (["{orig}", "-k", "4", "-o", "{out}", "--privacy", "{p}", "--random-privacy", "3"], "exactly one of"),
    (["{orig}", "-k", "0", "-o", "{out}", "--privacy", "{p}"], "-k must be at least 1"),
    (["nope.txt", "-k", "4", "-o", "{out}", "--privacy", "{p}"], "nope.txt: no such file"),
    (["{orig}", "-k", "4", "-o", "{out}", "--privacy", "nope.txt"], "nope.txt: no such file"),
    (["{orig}", "-k", "4", "-o", "{out}", "--random-privacy", "3", "--sizes", "5-2"], "--sizes"),
    (["{orig}", "-k", "4", "-o", "{out}", "--random-privacy", "0"], "at least 1"),
    (["{orig}", "-k", "4", "-o", "{out}", "--random-privacy", "3", "--sizes", "9"], "no transaction has 9"),
    (["{orig}", "-k", "4", "-o", "{out}", "--privacy", "{p}", "--utility", "{overlap}"], "disjoint"),
    (["{orig}", "-k", "4", "-o", "{out}", "--privacy", "{empty}"], "file is empty"),
    (["{orig}", "-k", "4", "-o", "{tmp}/no/dir/o.txt", "--privacy", "{p}"], "output directory does not exist"),
    (["{orig}", "-k", "4", "-o", "{orig}", "--privacy", "{p}"], "overwrite an input"),
    (["{setgen}", "-k", "4", "-o", "{out}", "--privacy", "{p}"], "already set-generalised"),
    (["{orig}", "-k", "x", "-o", "{out}", "--privacy", "{p}"], "-k"),
]


@pytest.mark.parametrize("args, message", BAD)
def test_bad_input(cli, fig1, args, message):
    (fig1 / "overlap.txt").write_text("icd, pain\nlimbs\npain, injury\n")
    (fig1 / "empty.txt").write_text("\n\n")
    orig = fig1 / "orig.txt"
    orig.write_text((SAMPLES / "medical-original.txt").read_text())
    fill = {"orig": orig, "out": fig1 / "out.txt", "p": fig1 / "p.txt", "overlap": fig1 / "overlap.txt",
            "empty": fig1 / "empty.txt", "tmp": fig1, "setgen": SAMPLES / "medical-setgen.txt"}
    before = orig.read_text()
    r = cli("anonymize", "setgen", *[a.format(**fill) for a in args])
    assert r.returncode == 2, r.stdout + r.stderr
    assert message in r.stderr
    assert "Traceback" not in r.stderr
    assert not (fig1 / "out.txt").exists() and not (fig1 / "out.txt.json").exists()
    assert orig.read_text() == before
    assert not [f for f in os.listdir(fig1) if f.endswith(".tmp")]


@pytest.mark.slow
def test_meps_release(cli, shared_data, tmp_path):
    out = tmp_path / "meps.txt"
    r = cli("anonymize", "setgen", shared_data / "meps2005-conditions.txt", "-k", "3", "-o", out,
            "--random-privacy", "100", "--seed", "2")
    assert r.returncode == 0, r.stderr
    side = json.loads((tmp_path / "meps.txt.json").read_text())
    assert side["stats"]["violated_before"] > 0 and side["generalisation"]
    assert len(out.read_text().splitlines()) == 26735
    c = cli("check", "privacy", out, "--privacy", tmp_path / "meps.txt.json", "-k", "3", "--json")
    assert c.returncode == 0, c.stdout
    assert json.loads(c.stdout)["min_positive_support"] >= 3


@pytest.mark.slow
def test_ctrl_c_leaves_nothing_half_written(tmp_path):
    """Ctrl-C mid-run (the bundled MEPS sample, stopped at its first anonymising progress point by
    the test hook, so the signal lands there whatever the machine's speed): exit 130, and no
    release, no sidecar, no temporary file."""
    folder = tmp_path / "out"
    folder.mkdir()
    marker = tmp_path / "paused"
    proc = subprocess.Popen(
        [sys.executable, "-m", "semtui", "anonymize", "setgen", str(SAMPLES / "meps400-original.txt"),
         "-k", "10", "-o", str(folder / "meps.txt"), "--random-privacy", "100", "--seed", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=paused_at("anonymising 0/100 constraints", marker))
    wait_paused(proc, marker)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    assert os.listdir(folder) == []  # no release, no sidecar, no temporary file


@pytest.mark.slow
def test_the_bundled_meps_sample_is_remade_by_its_documented_command(cli, tmp_path):
    """sample_data/README.md says how meps400-setgen.txt was made; the command remakes it."""
    import shutil

    (tmp_path / "sample_data").mkdir()
    shutil.copy(SAMPLES / "meps400-original.txt", tmp_path / "sample_data" / "meps400-original.txt")
    r = cli("anonymize", "setgen", "sample_data/meps400-original.txt", "-k", "3", "-o",
            "sample_data/meps400-setgen.txt", "--random-privacy", "30", "--seed", "1", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    made = tmp_path / "sample_data"
    assert (made / "meps400-setgen.txt").read_text() == (SAMPLES / "meps400-setgen.txt").read_text()
    new, old = (json.loads((d / "meps400-setgen.txt.json").read_text()) for d in (made, SAMPLES))
    for doc in (new, old):
        doc.pop("time_seconds")
        doc["stats"].pop("seconds")
    assert new == old
    c = cli("check", "privacy", SAMPLES / "meps400-setgen.txt", "--privacy",
            SAMPLES / "meps400-setgen.txt.json", "-k", "3")
    assert c.returncode == 0, c.stdout


def test_disassoc_says_why_a_cluster_is_over_the_maximum(semtui, tmp_path):
    """Identical records cannot be split by HORPART: the summary line says so where it names the
    largest cluster, rather than leave 'largest 6, max cluster size 3' unexplained."""
    data = tmp_path / "d.txt"
    data.write_text("flu cough\n" * 6 + "asthma cough\nasthma flu\nfever rash\nfever cough\n")
    r = semtui("anonymize", "disassoc", data, "-k", "2", "-m", "2", "--max-cluster-size", "3",
               "-o", tmp_path / "r.json", "--key", tmp_path / "r.key.json")
    assert r.rc == 0, r.err
    first = r.out.splitlines()[0]
    assert "(largest 6; 1 cluster over the maximum: identical records, which HORPART cannot split)" in first
    fits = semtui("anonymize", "disassoc", data, "-k", "2", "-m", "2", "--max-cluster-size", "6",
                  "-o", tmp_path / "s.json", "--key", tmp_path / "s.key.json")
    assert "HORPART cannot split" not in fits.out
