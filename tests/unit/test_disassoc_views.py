"""Engine helpers the TUI's disassociation views read (issue 15): where each placement of a
re-association went (correct or not, against the anchor's aligned transaction), a cluster's
reconstructed transactions read back from its report, and each cluster's associated share."""

from __future__ import annotations

import zlib
from pathlib import Path

import numpy as np
import pytest

from semtui.anonymize.disassociation import disassociate
from semtui.attacks.reassociation import ReassociationOptions, reconstructed_transactions, run_reassociation
from semtui.formats import read, read_transactions
from semtui.formats.disassociated import read_key
from semtui.measures.base import Measure
from semtui.model.info import cluster_associated_shares, dataset_info

SAMPLES = Path(__file__).resolve().parents[2] / "sample_data"
C1_TERMS = ["blood", "treatment", "lung", "cancer"]
OTHER_TERMS = ["tumor", "biopsy", "vessel", "catheterisation", "radiotherapy"]
TABLE4 = [[0.20, 0.27, 0.17, 0.25, 0.08], [0.27, 0.34, 0.16, 0.37, 0.48],
          [0.48, 0.36, 0.18, 0.36, 0.33], [0.63, 0.44, 0.11, 0.20, 0.51]]


class HashMeasure(Measure):
    """A deterministic similarity for any pair of terms (a real measure, for properties)."""

    kind = "similarity"
    name = "hash"

    def _matrix(self, terms_a, terms_b):
        ha = np.array([zlib.crc32(t.encode()) % 97 for t in terms_a])[:, None]
        hb = np.array([zlib.crc32(t.encode()) % 89 for t in terms_b])[None, :]
        return ((ha * 7 + hb * 13 + ha * hb) % 17) / 16.0


@pytest.fixture
def table4(tmp_path) -> Path:
    lines = ["a,b,similarity"]
    for i, a in enumerate(C1_TERMS):
        lines += [f"{a},{b},{TABLE4[i][j]}" for j, b in enumerate(OTHER_TERMS)]
    path = tmp_path / "table4.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_table3_placements_are_judged_one_by_one(table4):
    data = read(SAMPLES / "disassociated.json")
    key = read_key(SAMPLES / "disassociated.key.json")
    orig = read_transactions(SAMPLES / "disassociated-original.txt")
    r = run_reassociation(data, key, orig, ReassociationOptions(method="aba", measure=f"scores:{table4}", wmd_measure=None))
    cl = r.report.clusters[0]
    # every anchor aligned with one of the cluster's four transactions
    assert sorted(cl.anchor_transactions) == [0, 1, 2, 3]
    flags = [f for u in cl.units for f in u.correct]
    assert len(flags) == cl.metrics.placements == 5
    assert sum(flags) == cl.metrics.correct == 4
    # the wrong one is a copy of (tumor, biopsy): on the anchor of a transaction without them
    tb = next(u for u in cl.units if u.items == ("tumor", "biopsy"))
    assert sorted(tb.correct) == [False, True]
    wrong = tb.anchors[tb.correct.index(False)]
    held = {orig.vocab[i] for i in orig.transaction(cl.anchor_transactions[wrong]).tolist()}
    assert "tumor" not in held
    right = tb.anchors[tb.correct.index(True)]
    held = {orig.vocab[i] for i in orig.transaction(cl.anchor_transactions[right]).tolist()}
    assert {"tumor", "biopsy"} <= held
    # Tables 5/8/9: the reconstruction, read back from the report
    assert reconstructed_transactions(cl) == r.transactions


def test_without_the_key_no_judgement_is_made(table4):
    data = read(SAMPLES / "disassociated.json")
    cl = run_reassociation(data, options=ReassociationOptions(measure=f"scores:{table4}")).report.clusters[0]
    assert cl.anchor_transactions is None and all(u.correct is None for u in cl.units)
    doc = cl.to_json()
    assert "anchor_transactions" not in doc and all("correct" not in u for u in doc["units"])


@pytest.mark.parametrize("method", ["aba", "assign", "ra"])
def test_meps_flags_add_up_and_reconstruction_matches(method):
    orig = read_transactions(SAMPLES / "meps400-original.txt")
    release = disassociate(orig, 3, 2, 30)
    r = run_reassociation(release.data, release.key, orig, ReassociationOptions(method=method, wmd_measure=None),
                          measure=HashMeasure())
    start = 0
    for entry in r.report.clusters:
        flags = [f for u in entry.units for f in u.correct]
        assert all(len(u.correct) == len(u.anchors) for u in entry.units)
        assert sum(flags) == entry.metrics.correct
        assert len(entry.anchor_transactions) == len(entry.anchors)
        rec = reconstructed_transactions(entry, r.report.joint_clusters)   # REFINE's shared sub-records too
        assert rec == r.transactions[start:start + len(rec)]
        start += len(rec)
    assert start == len(r.transactions)
    assert sum(sum(f for u in e.units for f in u.correct)
               for e in [*r.report.clusters, *r.report.joint_clusters]) == r.report.metrics.correct


def test_cluster_associated_shares():
    data = read(SAMPLES / "disassociated.json")
    # blood, treatment, lung, cancer, tumor, biopsy kept; vessel, catheterisation, radiotherapy not
    assert cluster_associated_shares(data).tolist() == pytest.approx([6 / 9])
    orig = read_transactions(SAMPLES / "meps400-original.txt")
    # the two steps: a cluster's share counts its own chunks (REFINE's shared chunks are its joint cluster's)
    big = disassociate(orig, 3, 2, 30, refine=False).data
    shares = cluster_associated_shares(big)
    assert len(shares) == len(big.clusters) and ((shares >= 0) & (shares <= 1)).all()
    for ci in (0, len(big.clusters) // 2, len(big.clusters) - 1):
        c = big.clusters[ci]
        kept = len({i for ch in c.record_chunks for i in ch.items.tolist()})
        assert shares[ci] == pytest.approx(kept / (kept + len(c.term_chunk)))
    # pooled, they give the release's figure
    terms = np.array([len(c.term_chunk) for c in big.clusters])
    kept = np.array([len({i for ch in c.record_chunks for i in ch.items.tolist()}) for c in big.clusters])
    assert dataset_info(big).facts["associated_share"] == pytest.approx(kept.sum() / (kept + terms).sum(), abs=1e-4)
