"""``attack disassoc --summary-only`` (issue 26): a large release's report stays small — the same
summary and metrics, per cluster only its id, size and metrics — and it says so."""

from __future__ import annotations

import json

import pytest
from conftest import SAMPLES

REL, KEY, ORIG = (SAMPLES / "disassociated.json", SAMPLES / "disassociated.key.json",
                  SAMPLES / "disassociated-original.txt")


def _without_time(doc: dict) -> dict:
    doc["summary"] = {k: v for k, v in doc["summary"].items() if k not in ("seconds", "summary_only")}
    return doc


@pytest.mark.slow
def test_the_metrics_are_those_of_the_full_report(semtui):
    args = ["attack", "disassoc", REL, "--key", KEY, "--original", ORIG, "--json"]
    full, small = semtui(*args), semtui(*args, "--summary-only")
    assert full.rc == small.rc == 0, small.err
    a, b = json.loads(full.out), json.loads(small.out)
    assert b["summary"]["summary_only"] is True and a["summary"]["summary_only"] is False
    assert a["metrics"]["placements"] > 0
    assert _without_time(a)["metrics"] == _without_time(b)["metrics"]
    assert a["summary"] == b["summary"]
    assert [set(c) for c in b["clusters"]] == [{"id", "size", "metrics"}] * len(a["clusters"])
    assert [c["metrics"] for c in b["clusters"]] == [c["metrics"] for c in a["clusters"]]
    assert len(small.out) < len(full.out)


def test_summary_only_has_no_reconstruction_to_write(semtui, tmp_path):
    r = semtui("attack", "disassoc", REL, "--summary-only", "-o", tmp_path / "r.txt")
    assert r.rc == 2
    r.one_error_line("--summary-only")
    assert not (tmp_path / "r.txt").exists()


def test_the_tui_refuses_a_summary_only_report_in_one_line(semtui, tmp_path):
    rep = tmp_path / "r.json"
    r = semtui("attack", "disassoc", REL, "--key", KEY, "--original", ORIG, "--summary-only", "--report", rep)
    assert r.rc == 0, r.err
    r = semtui("open", REL, "--report", rep)
    assert r.rc == 2
    r.one_error_line("--summary-only", "r.json")


@pytest.mark.slow
def test_summary_only_with_joint_clusters_and_clusters_closed_in_small_batches(monkeypatch):
    """A REFINE release (joint clusters of neighbouring clusters): --summary-only gives the
    full report's metrics (it used to fail on the joint clusters), and closing the clusters a
    few transactions at a time (the k^m breakage counted batch by batch) changes nothing."""
    import semtui.attacks.reassociation.merge as merge
    from semtui import formats
    from semtui.anonymize.disassociation import disassociate
    from semtui.attacks.reassociation import ReassociationOptions, run_reassociation

    original = formats.read_transactions(SAMPLES / "meps400-original.txt")
    r = disassociate(original, 3, 2, 10, joint_max_size=40)
    assert len(r.data.joint_clusters) >= 3
    opts = ReassociationOptions(wmd_measure=None)
    full = run_reassociation(r.data, r.key, original, opts).report.to_json()
    small = run_reassociation(r.data, r.key, original, opts.replace(summary_only=True)).report.to_json()
    assert full["metrics"]["km_breakage"] is not None and full["metrics"]["shared_chunks"]["placements"] > 0
    assert small["metrics"] == full["metrics"]
    assert [c["metrics"] for c in small["clusters"]] == [c["metrics"] for c in full["clusters"]]
    # a joint cluster's entry too is its summary: id, members, anchors and metrics, no shared sub-record
    assert small["joint_clusters"] == [{key: j[key] for key in ("id", "clusters", "anchors", "metrics")}
                                       for j in full["joint_clusters"]]
    assert all(j["units"] for j in full["joint_clusters"])
    monkeypatch.setattr(merge, "CLOSE_ROWS", 5)
    again = run_reassociation(r.data, r.key, original, opts)
    assert _without_time(again.report.to_json()) == _without_time(full)
