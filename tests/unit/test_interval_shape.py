"""One interval shape in every document (issue 36, part 3): an interval is ``{"low", "high",
"level", "resamples"}`` wherever semtui writes one -- a re-association's report, an assessment,
an experiment's cell -- and the formats whose shape changed (``semtui-disassoc-report/2``,
``semtui-assessment/2``, ``semtui-experiment/2``) still open in their ``/1`` version, which wrote
``[low, high]``; one reader reads both."""

from __future__ import annotations

import json

import pytest
from conftest import SAMPLES

from semtui import reports
from semtui.metrics.intervals import Interval
from semtui.release import open_release
from semtui.wording import how_sure_text, interval


def _intervals(doc, path="$"):
    """Every interval a document holds: (path, value) of each value under an ``intervals`` object
    (but its ``reason``) and of each ``*_interval`` key."""
    if isinstance(doc, dict):
        for k, v in doc.items():
            if k == "intervals" and isinstance(v, dict):
                yield from ((f"{path}.intervals.{n}", iv) for n, iv in v.items() if n != "reason")
            elif k.endswith("_interval"):
                yield f"{path}.{k}", v
            yield from _intervals(v, f"{path}.{k}")
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from _intervals(v, f"{path}[{i}]")


def _one_shape(doc) -> list[str]:
    """The paths of the intervals not in the one shape (null is no interval)."""
    return [p for p, v in _intervals(doc)
            if v is not None and not (isinstance(v, dict) and set(v) == {"low", "high", "level", "resamples"})]


def _as_v1(doc):
    """A document as its /1 version wrote it: every interval a pair, the format /1."""
    if isinstance(doc, dict):
        out = {}
        for k, v in doc.items():
            if k == "format" and isinstance(v, str):
                out[k] = v.rsplit("/", 1)[0] + "/1"
            elif isinstance(v, dict) and set(v) == {"low", "high", "level", "resamples"}:
                out[k] = [v["low"], v["high"]]
            else:
                out[k] = _as_v1(v)
        return out
    if isinstance(doc, list):
        return [_as_v1(v) for v in doc]
    return doc


@pytest.fixture(scope="module")
def released(tmp_path_factory):
    """The MEPS sample disassociated (k=3, m=2, clusters of up to 30: enough clusters for
    intervals), written with its key, and opened as a release."""
    from semtui import formats
    from semtui.anonymize.disassociation import disassociate
    from semtui.formats.disassociated import disassociated_to_json, key_to_json

    d = tmp_path_factory.mktemp("released")
    made = disassociate(formats.read_transactions(SAMPLES / "meps400-original.txt"), 3, 2, 30)
    (d / "r.json").write_text(reports.dumps(disassociated_to_json(made.data)) + "\n")
    (d / "r.key.json").write_text(reports.dumps(key_to_json(made.key)) + "\n")
    paths = dict(data=d / "r.json", key=d / "r.key.json", original=SAMPLES / "meps400-original.txt")
    return paths, open_release(paths["data"], original=paths["original"], key=paths["key"])


@pytest.fixture(scope="module")
def assessed(released):
    """That release assessed with its key and original, alternatives included (each an
    experiment cell): the assessment's document."""
    from semtui.assess import AssessInputs
    from semtui.experiment.measuring import assess_with_alternatives

    paths, release = released
    inputs = AssessInputs(data=str(paths["data"]), key=str(paths["key"]), original=str(paths["original"]),
                          only=("ra",))
    return assess_with_alternatives(release, inputs).to_json()


@pytest.mark.slow
def test_every_document_has_one_interval_shape(assessed, released):
    from semtui.attacks.reassociation import ReassociationOptions, run_reassociation

    release = released[1]
    report = run_reassociation(release.data, release.key, release.original,
                               ReassociationOptions(method="ra", informed=True)).report.to_json()
    assert report["format"] == "semtui-disassoc-report/2"
    assert assessed["format"] == "semtui-assessment/2"
    cells = assessed["alternatives"]
    assert cells and all(c["format"] == "semtui-experiment/2" for c in cells)
    walked = [p for doc in (report, assessed) for p, _ in _intervals(doc)]
    assert any(".alternatives[" in p for p in walked) and any("informed_reference" in p for p in walked)
    assert any(v is not None for doc in (report, assessed) for _, v in _intervals(doc))  # not all null
    assert _one_shape(report) == [] and _one_shape(assessed) == []


@pytest.mark.slow
def test_set_generalisation_writes_the_same_shape(tmp_path):
    from semtui.assess import AssessInputs, run_assessment

    data, original = SAMPLES / "meps400-setgen.txt", SAMPLES / "meps400-original.txt"
    doc = run_assessment(open_release(data, original=original),
                         AssessInputs(data=str(data), original=str(original),
                                      only=("rba", "ra"))).to_json()
    shapes = [v for _, v in _intervals(doc) if v is not None]
    assert shapes and _one_shape(doc) == []


def test_one_reader_reads_either_shape():
    new = {"low": 0.25, "high": 0.5, "level": 0.95, "resamples": 1000}
    assert Interval.read(new) == Interval(0.25, 0.5, 0.95, 1000)
    assert Interval.read([0.25, 0.5]) == Interval(0.25, 0.5, None, None)
    assert Interval.read(None) is None and Interval.read([None, None]) is None and Interval.read([1]) is None
    assert interval({"intervals": {"a": new}}, "a") == interval({"intervals": {"a": [0.25, 0.5]}}, "a") == (0.25, 0.5)
    assert interval(new) == interval([0.25, 0.5]) == (0.25, 0.5)


@pytest.mark.slow
def test_an_old_assessment_and_its_cells_still_open(assessed, tmp_path):
    """A semtui-assessment/1 document (pairs) opens in the TUI and says "how sure" in the same words."""
    from semtui.tui.documents import read_assessment, sniff

    old = _as_v1(assessed)
    assert old["format"] == "semtui-assessment/1" and _one_shape(old)  # it holds pairs: the old shape
    for doc in (assessed, old):
        p = tmp_path / f"{doc['format'].replace('/', '-')}.json"
        p.write_text(reports.dumps(doc) + "\n")
        assert sniff(p) == "assessment"
        assert read_assessment(p)["format"] == doc["format"]
    assert how_sure_text(old) == how_sure_text(assessed)


@pytest.mark.slow
def test_an_old_re_association_report_still_opens(released, tmp_path):
    from semtui.attacks.reassociation import (
        ReassociationOptions,
        ReassociationReport,
        informed_sentence,
        run_reassociation,
    )
    from semtui.families import FAMILIES

    release = released[1]
    new = run_reassociation(release.data, release.key, release.original,
                            ReassociationOptions(method="ra", informed=True)).report.to_json()
    old = _as_v1(new)
    p = tmp_path / "old.json"
    p.write_text(reports.dumps(old) + "\n")
    opened = FAMILIES["disassoc"].read_report(p)   # typed, its intervals read in either shape
    assert isinstance(opened, ReassociationReport)
    assert opened.metrics.intervals.get("accuracy") is not None
    assert informed_sentence(opened.metrics) == informed_sentence(ReassociationReport.from_json(new).metrics)


@pytest.mark.slow
def test_a_results_file_mixing_old_and_new_lines_resumes_and_plots(assessed, tmp_path):
    """A RESULTS file begun with /1 lines and resumed with /2 lines: every reader takes both."""
    from semtui.experiment.run import read_results
    from semtui.tui.documents import read_experiment

    cells = [c for c in assessed["alternatives"] if c["label"] != "this release"]
    assert len(cells) >= 2
    lines = [_as_v1({k: v for k, v in cells[0].items() if k not in ("chosen", "why")}),
             {k: v for k, v in cells[1].items() if k not in ("chosen", "why")}]
    lines[0]["id"], lines[1]["id"] = "old", "new"
    p = tmp_path / "RESULTS.jsonl"
    p.write_text("".join(json.dumps(c, separators=(",", ":")) + "\n" for c in lines))
    got = read_results(p)
    assert [c["id"] for c in got.cells] == ["old", "new"] and got.torn is None
    assert [c["format"] for c in read_experiment(p).cells] == ["semtui-experiment/1", "semtui-experiment/2"]
    from semtui.experiment.plot import load_cells

    assert len(load_cells(p)[0]) == 2


def test_the_last_bootstrap_weights_kept_are_the_draws_made_again():
    """The methods of an assessment bootstrap the same clusters with the same seed: the weights
    kept from the last draw are the very draws a fresh one makes (another seed, size or block
    draws its own)."""
    import numpy as np

    from semtui.metrics import intervals

    def drawn(n, seed, rows):
        return np.vstack(list(intervals.bootstrap_weight_blocks(n, 100, seed, rows)))

    intervals._KEPT_WEIGHTS.clear()
    first = drawn(300, 7, 30)
    assert list(intervals._KEPT_WEIGHTS) == [(300, 100, 7, 30)]
    again = drawn(300, 7, 30)
    assert again.dtype == np.float64 and np.array_equal(first, again)
    assert np.array_equal(first, intervals.bootstrap_weights(300, 100, 7))   # the same stream as one table
    other = drawn(300, 8, 30)
    assert not np.array_equal(first, other) and list(intervals._KEPT_WEIGHTS) == [(300, 100, 8, 30)]
    # a bootstrap left part-way keeps nothing
    next(intervals.bootstrap_weight_blocks(200, 100, 7, 30))
    assert list(intervals._KEPT_WEIGHTS) == [(300, 100, 8, 30)]
