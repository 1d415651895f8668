"""RESULTS files never mix, duplicate or lose lines (issue 38, class 3): one run appends to a RESULTS
file at a time (a second is refused in one line), the file is private whoever made it, and devices
and FIFOs are outputs like any other (never read before they are written)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import REPO, SAMPLES, paused_at, run_cli, wait_paused

SPEC = """original = "orig.txt"

[[release]]
family = "setgen"
k = [2, 3]
random_privacy = 10
sizes = "3-6"
seed = 1
"""


@pytest.fixture
def spec(tmp_path) -> Path:
    lines = (SAMPLES / "meps400-original.txt").read_text().splitlines(keepends=True)
    (tmp_path / "orig.txt").write_text("".join(lines[:120]))
    path = tmp_path / "spec.toml"
    path.write_text(SPEC)
    return path


def _ids(results: Path) -> list[str]:
    return [json.loads(line)["id"] for line in results.read_text().splitlines()]


@pytest.mark.slow
def test_a_second_run_on_the_same_results_is_refused_and_no_cell_is_written_twice(spec, tmp_path):
    results = tmp_path / "RESULTS.jsonl"
    marker = tmp_path / "paused"
    first = subprocess.Popen([sys.executable, "-m", "semtui", "experiment", str(spec), "-o", str(results)],
                             cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=paused_at(r"\[1/2\]", marker))
    try:
        wait_paused(first, marker)
        second = run_cli("experiment", spec, "-o", results)
        assert second.returncode == 2, second.stderr
        assert second.stderr.count("\n") == 1 and str(results) in second.stderr
        assert "another run is appending to it" in second.stderr
    finally:
        marker.rmdir()
    _out, err = first.communicate(timeout=300)
    assert first.returncode == 0, err
    ids = _ids(results)
    assert len(ids) == 2 == len(set(ids))
    # once the first has ended, a run resumes the file as before: nothing left to measure
    again = run_cli("experiment", spec, "-o", results)
    assert again.returncode == 0, again.stderr
    assert _ids(results) == ids


def test_a_refused_run_leaves_no_empty_results_behind(spec, tmp_path):
    """A run refused before its first cell (a bad spec) does not leave the RESULTS file it made."""
    bad = tmp_path / "bad.toml"
    bad.write_text(SPEC.replace('original = "orig.txt"', 'original = "missing.txt"'))
    r = run_cli("experiment", bad, "-o", tmp_path / "R.jsonl")
    assert r.returncode == 2, r.stderr
    assert not (tmp_path / "R.jsonl").exists()


@pytest.mark.slow
def test_results_are_private_whoever_made_the_file(spec, tmp_path):
    results = tmp_path / "RESULTS.jsonl"
    results.write_text("")
    results.chmod(0o644)
    r = run_cli("experiment", spec, "-o", results)
    assert r.returncode == 0, r.stderr
    assert stat.S_IMODE(results.stat().st_mode) == 0o600 and len(_ids(results)) == 2


@pytest.mark.slow
def test_dev_null_is_an_output_like_any_other(spec):
    r = run_cli("experiment", spec, "-o", "/dev/null")
    assert r.returncode == 0, r.stderr


@pytest.mark.slow
def test_a_full_device_is_one_line_exit_2_not_memory(spec):
    """/dev/full reads as endless zeros: it was read whole (to resume from it) until MemoryError."""
    t0 = time.monotonic()
    r = run_cli("experiment", spec, "-o", "/dev/full")
    assert r.returncode == 2, r.stderr
    assert r.stderr.count("\n") == 1 and "/dev/full" in r.stderr and "Traceback" not in r.stderr
    assert time.monotonic() - t0 < 120


@pytest.mark.slow
def test_a_fifo_gets_every_line_and_is_never_read(spec, tmp_path):
    fifo = tmp_path / "lines.fifo"
    os.mkfifo(fifo)
    got: list[str] = []

    def reader():
        with open(fifo) as fh:  # blocks until the run opens it for writing
            got.extend(fh.read().splitlines())

    t = threading.Thread(target=reader, daemon=True)
    t.start()
    r = run_cli("experiment", spec, "-o", fifo)
    t.join(timeout=60)
    assert r.returncode == 0, r.stderr
    assert len(got) == 2 and all(json.loads(line)["format"].startswith("semtui-experiment/") for line in got)


# ------------------------------------------------------------------ plots of malformed documents
_GOOD = {"format": "semtui-experiment/1", "id": "c1", "label": "setgen k=2", "cell": {"family": "setgen", "k": 2},
         "privacy": {"risk": 0.4, "figures": {"precision": 0.5, "recall": 0.4}}, "utility": {"score": 0.8}}


@pytest.mark.parametrize("change, needle", [
    ({"cell": 3}, "'cell' must be an object"),
    ({"privacy": {"risk": "high", "figures": {}}}, "privacy.risk must be a share"),
    ({"privacy": {"risk": 1e308, "figures": {}}}, "privacy.risk must be a share"),
    ({"cell": {"family": "setgen", "k": "2"}}, "cell.k must be a whole number"),
    ({"utility": {"score": [1]}}, "utility.score must be a number"),
    ({"privacy": {"risk": 0.2, "figures": {"recall": 7}}}, "privacy.figures.recall must be a share"),
])
@pytest.mark.slow
def test_plot_of_a_malformed_results_line_is_one_line_naming_it(tmp_path, change, needle):
    pytest.importorskip("matplotlib")
    results = tmp_path / "R.jsonl"
    results.write_text(json.dumps(_GOOD) + "\n" + json.dumps({**_GOOD, "id": "c2", **change}) + "\n")
    r = run_cli("experiment", "plot", results, "-o", tmp_path / "f.svg")
    assert r.returncode == 2, r.stderr
    assert r.stderr.count("\n") == 1 and f"{results}:2:" in r.stderr and needle in r.stderr, r.stderr
    assert not (tmp_path / "f.svg").exists()


@pytest.mark.parametrize("alternatives, needle", [
    ({"a": 1}, "'alternatives' must be a list"),
    ([_GOOD, [1, 2]], "alternatives[1]: must be an object"),
    ([{**_GOOD, "privacy": {"risk": -0.5}}], "alternatives[0]: privacy.risk must be a share"),
])
def test_plot_of_a_malformed_assessment_is_one_line_naming_it(tmp_path, alternatives, needle):
    pytest.importorskip("matplotlib")
    doc = tmp_path / "a.json"
    doc.write_text(json.dumps({"format": "semtui-assessment/1", "alternatives": alternatives}))
    r = run_cli("experiment", "plot", doc, "-o", tmp_path / "f.svg")
    assert r.returncode == 2, r.stderr
    assert r.stderr.count("\n") == 1 and str(doc) in r.stderr and needle in r.stderr, r.stderr
