"""Bad inputs and odd situations: each ends cleanly, never in an
internal error, and never overwrites or loses a file."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from semtui.errors import InputError
from semtui.measures import open_measure


def test_scores_file_scoring_a_pair_twice_differently(tmp_path):
    p = tmp_path / "s.csv"
    p.write_text("a,b,distance\nknee,leg,0.2\nleg,knee,0.3\n")
    with pytest.raises(InputError, match="scored twice") as err:
        open_measure(f"scores:{p}")
    assert err.value.line == 3
    p.write_text("a,b,distance\nknee,leg,0.2\nleg,knee,0.2\n")  # the same score twice is fine
    assert open_measure(f"scores:{p}").matrix(["knee"], ["leg"]).tolist() == [[0.2]]


def test_similarity_outside_0_1_is_refused(tmp_path):
    p = tmp_path / "s.csv"
    p.write_text("a,b,similarity\nknee,leg,1.5\n")
    with pytest.raises(InputError, match=r"\[0, 1\]") as err:
        open_measure(f"scores:{p}")
    assert err.value.line == 2


def test_vectors_zero_vector_is_unknown_and_duplicates_refused(tmp_path):
    v = tmp_path / "v.txt"
    v.write_text("knee 0 0 0\nleg 1 0 0\nfoot 0.9 0.1 0\n")
    m = open_measure("embedding", vectors=v)
    assert m.unknown(["knee", "leg"]) == ["knee"]
    d = m.distances(["knee", "leg"], ["knee", "foot"])
    assert np.isnan(d[0]).all() and d[1, 1] < 0.1
    v.write_text("leg 1 0 0\nleg 0 1 0\n")
    with pytest.raises(InputError, match="second vector") as err:
        open_measure("embedding", vectors=v).unknown(["leg"])
    assert err.value.line == 2


@pytest.mark.slow
def test_corrupt_wordnet_files_are_an_input_error(cli, tmp_path):
    for name in ("index.noun", "data.noun"):
        (tmp_path / name).write_text("garbage\n")
    result = cli("score", "wordnet", "dog", "cat", env={"SEMTUI_WORDNET_DIR": str(tmp_path)})
    assert result.returncode == 2, result.stderr
    assert "internal error" not in result.stderr and str(tmp_path) in result.stderr


@pytest.mark.slow
def test_a_closed_stdout_ends_quietly_with_141(samples, tmp_path):
    """`semtui ... --json | head -c1`: no traceback, no error message, exit 141 as SIGPIPE."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "semtui", "attack", "setgen", str(samples / "meps400-setgen.txt"),
         "--method", "mda", "--json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env={**os.environ, "SEMTUI_CACHE_DIR": str(tmp_path / "cache")})
    assert proc.stdout.read(1) == b"{"
    proc.stdout.close()  # the reader goes away long before the report is written
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 141
    assert "Traceback" not in err and "error" not in err


@pytest.mark.slow
def test_anonymize_sidecar_cannot_be_the_release(cli, samples, tmp_path):
    out = tmp_path / "out.txt"
    result = cli("anonymize", "setgen", samples / "medical-original.txt", "-k", "2", "-o", out,
                 "--sidecar", out, "--random-privacy", "3")
    assert result.returncode == 2 and "same file" in result.stderr
    assert not out.exists()


@pytest.mark.slow
def test_check_privacy_warns_about_items_absent_from_the_data(cli, samples, tmp_path):
    priv = tmp_path / "p.txt"
    priv.write_text("icd, zzz\nknee\n")
    result = cli("check", "privacy", samples / "medical-setgen.txt", "--privacy", priv, "-k", "1")
    assert "zzz" in result.stderr and "zzz" not in result.stdout


@pytest.mark.slow
def test_options_that_do_not_apply_are_refused(cli, samples, tmp_path):
    priv = tmp_path / "p.txt"
    priv.write_text("icd\n")
    result = cli("anonymize", "setgen", samples / "medical-original.txt", "-k", "2", "-o", tmp_path / "o.txt",
                 "--privacy", priv, "--sizes", "3-4")
    assert result.returncode == 2 and "--random-privacy" in result.stderr
    assert not (tmp_path / "o.txt").exists()
    result = cli("corpus", "build", samples / "medical-original.txt", "--lines", "--field", "body",
                 "-o", tmp_path / "i.sqlite")
    assert result.returncode == 2 and "--field" in result.stderr
    result = cli("corpus", "build", samples / "medical-original.txt", "--lines", "-o", samples / "medical-original.txt")
    assert result.returncode == 2 and "overwrite an input" in result.stderr
