"""The attacker's background knowledge (semtui.attacks.background) on hand-made data."""

from __future__ import annotations

import math

import numpy as np
import pytest

from semtui.attacks.background import ALPHA, BETA, Background, background_files, check_background, load_background
from semtui.errors import InputError
from semtui.model import TransactionData

A = ALPHA
B = BETA


def _lift(both: float, fx: float, fc: float, n: float) -> float:
    """log P(c|x)/P(c) by hand: P(c) = (f(c) + A) / (n + 2A), P(c|x) = (f(x,c) + B P(c)) / (f(x) + B)."""
    pc = (fc + A) / (n + 2 * A)
    return math.log((both + B * pc) / (fx + B)) - math.log(pc)


def _data() -> TransactionData:
    # 4 documents: a,b | a,b,c | a | d  (+ a set-generalised one whose generalised item is left out)
    return TransactionData.from_lists([["a", "b"], ["a", "b", "c"], ["a"], ["d", ["b", "c"]]])


def test_from_transactions_counts_documents_and_pairs():
    bg = Background.from_transactions(_data())
    ids = bg.ids(["a", "b", "c", "d", "zzz"])
    assert ids[-1] == -1 and (ids[:4] >= 0).all()
    assert bg.n == 4
    assert bg.df[ids[:4]].tolist() == [3, 2, 1, 1]
    co = bg.counts(ids[:4], ids[:4])
    assert co.tolist() == [[3, 2, 1, 0], [2, 2, 1, 0], [1, 1, 1, 0], [0, 0, 0, 1]]


def test_log_prior_and_lift_by_hand():
    bg = Background.from_transactions(_data())
    a, b, _c, d, z = bg.ids(["a", "b", "c", "d", "zzz"]).tolist()
    lp = bg.log_prior(np.array([a, d, z]))
    assert lp == pytest.approx([math.log((3 + A) / (4 + 2 * A)), math.log((1 + A) / (4 + 2 * A)),
                                math.log(A / (4 + 2 * A))])
    lift = bg.log_lift(np.array([a, b, z]), np.array([b, d, z]))
    assert lift[0, 0] == pytest.approx(_lift(2, 3, 2, 4))  # a and b share 2 of a's 3 documents
    # a and d never co-occur: negative evidence
    assert lift[0, 1] == pytest.approx(_lift(0, 3, 1, 4)) and lift[0, 1] < 0
    assert lift[1, 0] > 0  # b goes with b
    # unknown terms carry no evidence
    assert (lift[2] == 0).all() and (lift[:, 2] == 0).all()


def test_a_term_never_seen_carries_no_context_evidence():
    """Smoothing towards P(c): an item the background never saw is rare (its prior says so),
    but its co-occurrence says nothing either way."""
    bg = Background.from_transactions(TransactionData.from_lists([["a", "b"], ["a"], ["c"], ["zz"]]))
    a, zz = bg.ids(["a", "zz"]).tolist()
    bg.df[zz] = 0  # as if the background had never seen zz
    lift = bg.log_lift(np.array([zz, bg.ids(["nope"])[0]]), np.array([a]))
    assert lift.tolist() == [[0.0], [0.0]]


def test_counts_file_reader_is_reused(tmp_path):
    f = tmp_path / "hits.csv"
    f.write_text("N,100\nflu,20\ncough,10\nrash,5\nflu,cough,8\nflu,rash,0\n")
    bg = load_background(f"counts:{f}")
    flu, cough, rash = bg.ids(["flu", "cough", "rash"]).tolist()
    assert bg.n == 100
    assert bg.counts(np.array([flu]), np.array([flu, cough, rash])).tolist() == [[20, 8, 0]]
    assert bg.log_lift(np.array([cough]), np.array([flu]))[0, 0] == pytest.approx(_lift(8, 10, 20, 100))


@pytest.mark.parametrize(("text", "line"), [("N,100\nflu,abc\n", 2), ("M,5\n", 1), ("N,5\nflu,1\na,b,c,d\n", 3)])
def test_bad_counts_name_file_and_line(tmp_path, text, line):
    f = tmp_path / "bad.csv"
    f.write_text(text)
    with pytest.raises(InputError) as exc:
        load_background(f"counts:{f}")
    assert exc.value.path == str(f) and exc.value.line == line


def test_transactions_file_and_its_errors(tmp_path):
    f = tmp_path / "bg.txt"
    f.write_text("a,b\na,(b,c)\n")
    bg = load_background(str(f))
    assert bg.has_cooccurrence and bg.n == 2
    missing = tmp_path / "nope.txt"
    with pytest.raises(InputError) as exc:
        load_background(str(missing))
    assert str(missing) in str(exc.value)
    bad = tmp_path / "bad.txt"
    bad.write_text("a,b\n(a,b\n")
    with pytest.raises(InputError) as exc:
        load_background(str(bad))
    assert exc.value.path == str(bad) and exc.value.line == 2


@pytest.mark.slow
def test_wordfreq_is_a_prior_only():
    pytest.importorskip("wordfreq")
    bg = load_background("wordfreq:en")
    assert not bg.has_cooccurrence
    the, xylo, phrase, nothing = bg.ids(["the", "xylophone", "heart disease", "qqqzzzxq"]).tolist()
    assert the >= 0 and xylo >= 0 and phrase >= 0 and nothing == -1
    lp = bg.log_prior(np.array([the, xylo, phrase, nothing]))
    assert lp[0] > lp[1] > lp[3] and lp[2] > lp[3]
    assert (bg.log_lift(np.array([the]), np.array([xylo])) == 0).all()


def test_bad_specs():
    with pytest.raises(InputError, match="no frequency list"):
        load_background("wordfreq:xx-nope")
    for spec in ("", "counts:", "wordfreq:"):
        with pytest.raises(InputError) as exc:
            check_background(spec)
        assert exc.value.option == "background"
    assert check_background("wordfreq:en") == "wordfreq"
    assert background_files("counts:x.csv")[0].name == "x.csv" and background_files("wordfreq:en") == []


def test_a_counts_file_without_pairs_is_a_prior_only(tmp_path):
    """A counts: file with term counts and no pair row holds no co-occurrence.  It was read as
    "every pair never co-occurs" -- strong false evidence: on MEPS the background table's recall
    fell from 66 % (the prior) to 8 %, and nba placed on it.  It is a prior only, as a
    frequency list is."""
    f = tmp_path / "singles.csv"
    f.write_text("N,100\nflu,20\ncough,10\nrash,5\n")
    bg = load_background(f"counts:{f}")
    assert not bg.has_cooccurrence
    flu, rash = bg.ids(["flu", "rash"]).tolist()
    assert bg.log_prior(np.array([flu, rash])).tolist() == pytest.approx(
        [math.log((20 + A) / (100 + 2 * A)), math.log((5 + A) / (100 + 2 * A))])
