"""``semtui score MEASURE TERM TERM...`` for every measure, as a real process."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from semtui.corpus import build_index


def _score(cli, *args, env=None):
    r = cli("score", *args, "--json", env=env)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout), r.stderr


def _check_matrix(out: dict, terms: list[str], measure: str, kind: str):
    assert out["format"] == "semtui-score/1"
    assert out["measure"] == measure and out["kind"] == kind and out["terms"] == terms
    m = out["matrix"]
    assert len(m) == len(terms) and all(len(row) == len(terms) for row in m)
    for i in range(len(terms)):
        for j in range(len(terms)):
            if m[i][j] is not None:
                assert m[i][j] == pytest.approx(m[j][i])


def test_score_embedding(cli):
    terms = ["blood pressure", "heart disease", "knee", "qqqzzx"]
    out, err = _score(cli, "embedding", *terms)
    _check_matrix(out, terms, "embedding", "distance")
    assert out["matrix"][0][0] == pytest.approx(0.0, abs=1e-6)
    assert out["matrix"][3] == [None] * 4
    assert out["unknown"] == ["qqqzzx"]
    assert "qqqzzx" in err


def test_score_scores_file(tmp_path: Path, cli):
    p = tmp_path / "pairs.csv"
    p.write_text("a,b,distance\nknee,injury,0.2\nknee,asthma,0.9\ninjury,asthma,0.8\n")
    out, _ = _score(cli, f"scores:{p}", "knee", "injury", "asthma")
    _check_matrix(out, ["knee", "injury", "asthma"], f"scores:{p}", "distance")
    assert out["matrix"] == [[0.0, 0.2, 0.9], [0.2, 0.0, 0.8], [0.9, 0.8, 0.0]]
    r = cli("score", f"scores:{p}", "knee", "gangrene")
    assert r.returncode == 2 and "no score for the pair" in r.stderr
    assert "'gangrene'" in r.stderr and "'knee'" in r.stderr


@pytest.mark.slow
def test_score_ngd_and_counts_agree(tmp_path: Path, cli):
    docs = tmp_path / "docs.txt"
    docs.write_text("blood pressure, heart disease\nheart disease\nknee\nblood pressure\nheart disease\n")
    idx = tmp_path / "i.sqlite"
    build_index([docs], idx, kind="lines")
    counts = tmp_path / "counts.csv"
    counts.write_text("N,5\nblood pressure,2\nheart disease,3\nknee,1\n"
                      "blood pressure,heart disease,1\nblood pressure,knee,0\nheart disease,knee,0\n")
    terms = ["blood pressure", "heart disease", "knee"]
    env = {"SEMTUI_CACHE_DIR": str(tmp_path / "cache")}
    ngd, _ = _score(cli, f"ngd:{idx}", *terms, env=env)
    cnt, _ = _score(cli, f"counts:{counts}", *terms, env=env)
    _check_matrix(ngd, terms, f"ngd:{idx}", "distance")
    assert np.allclose(ngd["matrix"], cnt["matrix"])
    # blood pressure / heart disease: (log 3 - log 1) / (log 5 - log 2), the only finite
    # pair; knee never meets the others, so it sits strictly beyond it (the cap)
    want = np.log(3) / (np.log(5) - np.log(2))
    assert ngd["matrix"][0][1] == pytest.approx(want, abs=1e-6)
    cap = want + 0.1 * max(want, 1.0)
    assert ngd["matrix"][0][2] == ngd["matrix"][1][2] == pytest.approx(cap, abs=1e-6)
    assert ngd["capped"] == [[False, False, True], [False, False, True], [True, True, False]]
    again, _ = _score(cli, f"ngd:{idx}", *terms, env=env)  # from the cache this time
    assert again["matrix"] == ngd["matrix"]


def test_score_wordnet(cli):
    from semtui.errors import InputError
    from semtui.measures.wordnet import find_wordnet

    try:
        find_wordnet()
    except InputError:
        pytest.skip("WordNet data absent (pip install 'semtui[wordnet]')")
    out, _ = _score(cli, "wordnet", "dog", "cat", "--no-cache")
    _check_matrix(out, ["dog", "cat"], "wordnet", "similarity")
    assert out["matrix"][0][1] == pytest.approx(6 / 7, abs=1e-6)


@pytest.mark.slow
def test_score_table_and_errors(cli):
    r = cli("score", "embedding", "knee", "injury")
    assert r.returncode == 0 and "knee" in r.stdout and "0.000" in r.stdout
    r = cli("score", "embedding", "knee")
    assert r.returncode == 2 and "at least two terms" in r.stderr
    r = cli("score", "google", "a", "b")
    assert r.returncode == 2 and "unknown measure 'google'" in r.stderr
