"""An experiment's spec checked whole before its first cell, and its inputs known by content
(issue 38, class 3), in real processes on real files.

* Every cell is validated before the first runs: an out-of-range value, an unknown measure, a
  bad utility, a missing file a cell names, parameters that exclude each other in one cell; the
  refusal is one line naming spec.toml and the line, and RESULTS gets no line (a bad third cell
  was found after two cells had been measured and written).
* ``k`` is at least 2 (a 1-anonymous release is the original: a k = 1 disassociated cell read
  "check passed, cover 0 %"), and a whole number beyond 64 bits is refused in one line.
* An original that is a folder, a ``keep_releases`` that is a file or cannot be made: said so.
* Each RESULTS line keeps the sha256 of the original (and of the files the spec names); a resume
  after the original's content changed at the same path is refused in one line naming the
  RESULTS line (it mixed cells measured on the old data with cells on the new).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from conftest import SAMPLES, run_cli

BASE = """original = "orig.txt"
attacks = []

[[release]]
family = "setgen"
k = [2, 3]
random_privacy = 5
"""


@pytest.fixture
def folder(tmp_path) -> Path:
    lines = (SAMPLES / "meps400-original.txt").read_text().splitlines(keepends=True)
    (tmp_path / "orig.txt").write_text("".join(lines[:60]))
    (tmp_path / "privacy.txt").write_text("Essential hypertension\n")
    return tmp_path


def _run(folder: Path, spec: str, out: str = "results.jsonl"):
    (folder / "spec.toml").write_text(spec)
    return run_cli("experiment", folder / "spec.toml", "-o", folder / out, env={"SEMTUI_CACHE_DIR": str(folder / "c")})


def _refused_at(r, folder: Path, line: int, *needles: str) -> None:
    assert r.returncode == 2, r.stdout + r.stderr
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.startswith(f"semtui: error: {folder / 'spec.toml'}:{line}: "), r.stderr
    for n in needles:
        assert n in r.stderr, (n, r.stderr)
    results = folder / "results.jsonl"
    assert not results.exists() or results.read_text() == "", "a cell ran before the spec was refused"


#: (what is wrong, the table appended to BASE (its lines are 9 on), the line named, words of the message)
BAD_CELLS = {
    "a utility file that is not there": ('family = "setgen"\nk = 2\nutility = "nothere.txt"\n', 12,
                                         ["'utility'", "nothere.txt", "no such file"]),
    "a malformed utility": ('family = "setgen"\nk = 2\nutility = "freq:0"\n', 12, ["'utility'", "freq:0"]),
    "a privacy file that is not there": ('family = "setgen"\nk = 2\nprivacy = "gone.txt"\n', 12,
                                         ["'privacy'", "gone.txt"]),
    "a cluster smaller than k": ('family = "disassoc"\nk = [2, 5]\nm = 2\nmax_cluster_size = 4\n', 13,
                                 ["'max_cluster_size' must be at least k = 5", "disassoc k=5"]),
    "an unknown algorithm": ('family = "km"\nk = 2\nm = 2\nalgorithm = "bogus"\n', 13, ["'algorithm'"]),
    "a hierarchy file that is not there": ('family = "km"\nk = 2\nm = 2\nhierarchy = "h.txt"\n', 13,
                                           ["'hierarchy'", "h.txt"]),
}


@pytest.mark.parametrize("case", list(BAD_CELLS))
def test_every_cell_is_checked_before_the_first_runs(case, folder):
    table, line, needles = BAD_CELLS[case]
    r = _run(folder, BASE + "\n[[release]]\n" + table)
    _refused_at(r, folder, line, *needles)


def test_an_unknown_measure_names_the_spec_line(folder):
    r = _run(folder, "measure = \"nosuchmeasure\"\n" + BASE)
    _refused_at(r, folder, 1, "'measure'", "unknown measure 'nosuchmeasure'")


@pytest.mark.parametrize("family, table", [
    ("setgen", 'family = "setgen"\nk = [1, 2]\nrandom_privacy = 5\n'),
    ("disassoc", 'family = "disassoc"\nk = 1\nm = 2\nmax_cluster_size = 10\n'),
    ("km", 'family = "km"\nk = 1\nm = 2\n'),
])
def test_k_below_2_is_refused_and_says_why(family, table, folder):
    r = _run(folder, BASE + "\n[[release]]\n" + table)
    _refused_at(r, folder, 11, "'k' must be a whole number of at least 2 (got 1)", "1-anonymous release is the original")


@pytest.mark.parametrize("key, table, line", [
    ("seed", 'family = "setgen"\nk = 2\nseed = 99999999999999999999999\n', 12),
    ("k", 'family = "setgen"\nk = 99999999999999999999999\n', 11),
    ("random_privacy", 'family = "setgen"\nk = 2\nrandom_privacy = [5, 18446744073709551616]\n', 12),
    ("m", 'family = "disassoc"\nk = 2\nm = 9223372036854775808\nmax_cluster_size = 10\n', 12),
    ("m", 'family = "km"\nk = 2\nm = 99999999999999999999999\n', 12),
])
def test_a_whole_number_beyond_64_bits_is_one_line(key, table, line, folder):
    r = _run(folder, BASE + "\n[[release]]\n" + table)
    _refused_at(r, folder, line, f"'{key}'", "beyond the largest whole number semtui takes")


def test_an_original_that_is_a_folder_says_so(folder):
    (folder / "data").mkdir()
    r = _run(folder, BASE.replace('"orig.txt"', '"data"'))
    _refused_at(r, folder, 1, "'original' names a folder")


def test_keep_releases_that_is_a_file_says_so(folder):
    (folder / "kept").write_text("a file\n")
    r = _run(folder, 'keep_releases = "kept"\n' + BASE)
    _refused_at(r, folder, 1, "'keep_releases' names a file", "not a folder")


def test_keep_releases_that_cannot_be_made_says_why(folder):
    r = _run(folder, 'keep_releases = "no/such/folder"\n' + BASE)
    _refused_at(r, folder, 1, "'keep_releases'", "its parent folder does not exist")


def _sha(path: Path) -> str:
    return "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_each_line_keeps_the_content_of_its_inputs(folder):
    spec = BASE + '\n[[release]]\nfamily = "setgen"\nk = 2\nprivacy = "privacy.txt"\n'
    r = _run(folder, spec)
    assert r.returncode == 0, r.stderr
    lines = _lines(folder / "results.jsonl")
    assert len(lines) == 3
    for doc in lines:
        digests = doc["inputs"]["digests"]
        assert digests["original"] == _sha(folder / "orig.txt")
        if "privacy" in doc["cell"]:
            assert digests["privacy"] == _sha(folder / "privacy.txt")
        else:
            assert "privacy" not in digests


@pytest.mark.parametrize("changed", ["orig.txt", "privacy.txt"])
def test_a_resume_on_changed_content_is_refused(changed, folder):
    spec = BASE + '\n[[release]]\nfamily = "setgen"\nk = 2\nprivacy = "privacy.txt"\n'
    r = _run(folder, spec)
    assert r.returncode == 0, r.stderr
    before = (folder / "results.jsonl").read_text()
    with open(folder / changed, "a") as fh:  # the same path, other bytes
        fh.write("Acute bronchitis,Essential hypertension\n")
    r = _run(folder, spec.replace("k = [2, 3]", "k = [2, 3, 4]"))  # one cell more to measure
    assert r.returncode == 2, r.stderr
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr, r.stderr
    line = 1 if changed == "orig.txt" else 3  # the first line measured on the file that changed
    assert r.stderr.startswith(f"semtui: error: {folder / 'results.jsonl'}:{line}: holds a cell"), r.stderr
    assert "other content of" in r.stderr and ("the original" if changed == "orig.txt" else "'privacy'") in r.stderr
    assert (folder / "results.jsonl").read_text() == before


def test_a_resume_on_the_same_content_goes_on(folder):
    r = _run(folder, BASE)
    assert r.returncode == 0, r.stderr
    (folder / "orig.txt").touch()  # the same bytes, a new mtime
    r = _run(folder, BASE.replace("k = [2, 3]", "k = [2, 3, 4]"))
    assert r.returncode == 0, r.stderr
    assert [d["cell"]["k"] for d in _lines(folder / "results.jsonl")] == [2, 3, 4]
