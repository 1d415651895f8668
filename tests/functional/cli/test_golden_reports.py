"""The golden reports (issue 36): a fixed set of runs — every command × family on the bundled
samples and a MEPS slice, each with a fixed ``--seed`` where it takes one — gives the reports
recorded from commit 8bf2fe4, before the redesign's first move.

Each run is a real ``python -m semtui`` process of this working tree (PYTHONPATH = the
repository), in a folder of its own; the runs, the normalising (timings, semtui's version and
absolute paths dropped; the two interval shapes made one; format version suffixes stripped) and
the comparison are in tests/golden/golden_runs.py, the goldens in tests/golden/runs/ (one JSON
file per run: its arguments, exit code, stdout and the JSON files it wrote) and
tests/golden/files/ (the text files it wrote, compared byte for byte).  A mismatch names the run,
its command and the first differences, path by path.  The MEPS runs skip without
../shared/data; the sample runs never do.

The goldens are not to be regenerated to make this pass: a difference is a change of behaviour
to explain (tests/golden/regenerate.py says when and how).
"""

from __future__ import annotations

import json
import sys

import pytest
from conftest import REPO, SAMPLES, SHARED_DATA, run_cli

sys.path.insert(0, str(REPO / "tests" / "golden"))
import golden_runs as g

HAVE_MEPS = (SHARED_DATA / g.MEPS_FILE).is_file()


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory) -> dict[str, g.Outcome]:
    """Every run, once, on this working tree (two chains at a time)."""
    work = tmp_path_factory.mktemp("golden")
    g.prepare(work, SAMPLES, SHARED_DATA if HAVE_MEPS else None)
    env = {"PYTHONPATH": str(REPO), "SEMTUI_CACHE_DIR": str(work / ".cache")}
    return g.execute_all(work, run_cli, env, meps=HAVE_MEPS)


@pytest.mark.parametrize("name", [r.name for r in g.RUNS])
@pytest.mark.slow
def test_report_is_the_golden_one(outcomes, name):
    if name not in outcomes:
        pytest.skip(f"needs ../shared/data/{g.MEPS_FILE}")
    o = outcomes[name]
    problems = g.compare(o)
    assert not problems, (
        f"`semtui {' '.join(o.run.args)}` (run {name}) differs from tests/golden/runs/{name}.json; "
        f"first differences (path: got, golden):\n  " + "\n  ".join(problems)
        + (f"\nits stderr:\n{o.stderr}" if o.rc not in (0, 1) else ""))


def test_every_run_has_one_golden_and_every_golden_a_run():
    names = {r.name for r in g.RUNS}
    assert len(names) == len(g.RUNS)
    assert {p.stem for p in g.RUNS_DIR.glob("*.json")} == names
    kept = {n for p in g.RUNS_DIR.glob("*.json") for n in json.loads(p.read_text())["text_files"]}
    assert {p.name for p in g.FILES_DIR.iterdir()} == kept


def test_every_command_and_family_is_covered():
    """The net holds what issue 36 asks for: each command on each family it applies to."""
    runs = {r.name: r.args for r in g.RUNS}
    for family in ("setgen-sample", "setgen-meps", "km-meps", "disassoc-sample", "disassoc-meps"):
        assert f"{family}-info" in runs and f"{family}-assess" in runs, family
    for family in ("setgen-meps", "km-meps", "disassoc-sample", "disassoc-meps"):
        assert f"{family}-anonymize" in runs, family
    assert any(a[:2] == ("check", "privacy") for a in runs.values())
    assert any(a[:2] == ("check", "km") and "--key" in a for a in runs.values())
    assert {a[a.index("--method") + 1] for a in runs.values() if a[:2] == ("attack", "disassoc")} >= {"aba", "ra", "nba"}
    assert {a[a.index("--attacker") + 1] for a in runs.values() if a[0] == "cover"} == {"strong", "moderate", "weak"}
    assert any(a[:2] == ("attack", "setgen") and "--background" in a for a in runs.values())
    assert any(a[0] == "assess" and "--no-alternatives" not in a for a in runs.values())
    assert any(a[0] == "experiment" for a in runs.values())


def test_normalising_keeps_all_but_timings_versions_paths_and_interval_shape(tmp_path):
    doc = {"format": "semtui-assessment/1", "semtui_version": "0.1.0", "seconds": 1.5, "seconds_refine": 0.2,
           "times": {"total_s": 3}, "check_s": 0.1, "data": f"{tmp_path}/r.txt", "k": 3,
           "intervals": {"precision": {"low": 0.1, "high": 0.2, "level": 0.95, "resamples": 1000},
                         "recall": [0.3, 0.4]},
           "odd": {"low": 1, "high": 2, "mid": 1.5}, "row": [0.5, 0.25]}
    assert g.normalise(doc, tmp_path) == {
        "format": "semtui-assessment", "data": "r.txt", "k": 3,
        "intervals": {"precision": [0.1, 0.2], "recall": [0.3, 0.4]},
        "odd": {"low": 1, "high": 2, "mid": 1.5}, "row": [0.5, 0.25]}
    assert g.normalise_text(b"@semtui-km-release/1\na, b\n") == b"@semtui-km-release\na, b\n"


def test_a_changed_figure_is_named_with_its_path():
    golden = {"summary": {"eliminations": 11, "rows": [1, 2]}, "k": 4}
    got = {"summary": {"eliminations": 12, "rows": [1, 2, 3]}, "new": True}
    assert g.differences(golden, got) == [
        "$.summary.eliminations: got 12, golden 11", "$.summary.rows: 3 elements, golden 2",
        "$.k: missing (golden 4)", "$.new: new (got true)"]
    assert g.differences(golden, json.loads(json.dumps(golden))) == []
    assert g.differences({"x": 1}, {"x": 1.0}) == ["$.x: got 1.0, golden 1"]
