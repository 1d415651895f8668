"""No bootstrap interval from fewer than 5 clusters or equivalence groups: every face says so in
one line (the shared threshold, semtui.metrics.intervals), and JSON gives the fields null with
the reason -- a 95 % interval drawn from one cluster is a point, not an interval."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import SAMPLES, run_cli

from semtui.metrics.intervals import MIN_UNITS_FOR_INTERVALS, no_interval_reason
from semtui.metrics.reassociation import bootstrap_ratios, intervals_of

DIS = [SAMPLES / "disassociated.json", "--key", SAMPLES / "disassociated.key.json",
       "--original", SAMPLES / "disassociated-original.txt"]
REASON = "no interval: fewer than 5 clusters"


def test_the_threshold_is_shared():
    assert MIN_UNITS_FOR_INTERVALS == 5
    assert no_interval_reason(4, "clusters") == REASON
    assert no_interval_reason(5, "clusters") is None
    num = np.ones((4, 1))
    assert bootstrap_ratios(num, num * 2, 0) == [None]
    assert intervals_of(("accuracy",), [None], 4) == {"accuracy": None, "reason": REASON}
    got = bootstrap_ratios(np.arange(5.0)[:, None], np.full((5, 1), 4.0), 0)[0]
    assert got is not None and got[0] < got[1]


@pytest.mark.slow
def test_attack_disassoc_on_one_cluster_gives_no_interval():
    r = run_cli("attack", "disassoc", *DIS)
    assert r.returncode == 0, r.stderr
    assert REASON in r.stdout
    assert "0.800–0.800" not in r.stdout and "[1.000, 1.000]" not in r.stdout
    informed = next(line for line in r.stdout.splitlines() if line.startswith("Informed reference"))
    assert REASON in informed and "[" not in informed
    # lift 3.57 with no interval is still above chance: the sentence says so from the point estimate
    assert "the most that statistics of this population could give" in informed
    m = json.loads(run_cli("attack", "disassoc", *DIS, "--json").stdout)["metrics"]
    for ivs in (m["intervals"], m["informed_reference"]["intervals"]):
        assert ivs["reason"] == REASON
        assert all(v is None for k, v in ivs.items() if k != "reason")


@pytest.mark.slow
def test_assess_says_why(tmp_path):
    rep = tmp_path / "a.json"
    r = run_cli("assess", *DIS, "--report", rep)
    assert r.returncode == 0, r.stderr
    assert f"How sure: {REASON}." in r.stdout
    assert "[0.800, 0.800]" not in r.stdout
    doc = json.loads(rep.read_text())
    assert doc["strongest"]["figures"]["intervals"]["reason"] == REASON
    assert doc["how_sure"]["lift_interval"] is None


@pytest.mark.slow
def test_setgen_on_one_group_says_why_too():
    args = (SAMPLES / "medical-setgen.txt", "--original", SAMPLES / "medical-original.txt")
    r = run_cli("attack", "setgen", *args, "--json")
    ivs = json.loads(r.stdout)["metrics"]["intervals"]
    assert ivs.pop("reason") == "no interval: fewer than 5 equivalence groups"
    assert all(v is None for v in ivs.values())
    r = run_cli("assess", *args, "--no-alternatives")
    assert r.returncode == 0, r.stderr
    assert "(0.5: a coin); no interval: fewer than 5 equivalence groups." in r.stdout


def _one_cell(tmp_path, original: str, release: str) -> dict:
    """The one cell of an experiment on ``original`` with one ``[[release]]`` table."""
    spec = tmp_path / "one.toml"
    spec.write_text(f'original = "{SAMPLES / original}"\n\n[[release]]\n{release}')
    r = run_cli("experiment", spec, "-o", tmp_path / "R.jsonl")
    assert r.returncode == 0, r.stderr
    (cell,) = [json.loads(line) for line in (tmp_path / "R.jsonl").read_text().splitlines()]
    return cell


@pytest.mark.slow
def test_an_experiment_cell_of_one_cluster_says_why(tmp_path):
    cell = _one_cell(tmp_path, "disassociated-original.txt",
                     'family = "disassoc"\nk = [2]\nm = [2]\nmax_cluster_size = [4]\n')
    assert cell["privacy"]["intervals"] == {} and cell["privacy"]["intervals_reason"] == REASON


@pytest.mark.slow
def test_an_experiment_cell_of_one_group_says_why(tmp_path):
    cell = _one_cell(tmp_path, "medical-original.txt", 'family = "setgen"\nk = [2]\nrandom_privacy = 3\nsizes = "2-2"\n')
    assert cell["privacy"]["figures"] and cell["privacy"]["intervals"] == {}
    assert cell["privacy"]["intervals_reason"] == "no interval: fewer than 5 equivalence groups"
