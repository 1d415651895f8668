"""Words once (issue 36): the engine's sentences and names, each made from the numbers it
describes -- the knowledge sentence never contradicts its table, one name per chunk, result
names with their knowledge, the not-modelled notes, "how sure"."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from semtui.attacks.setgen.knowledge import carried_by
from semtui.wording import (
    chunk_label,
    cluster_chunk_labels,
    exposure_words,
    how_sure_text,
    most_breaches_words,
    not_modelled_notes,
    options_text,
    problem_chunks,
    record_line,
    result_name,
)

VARIANTS = ("prior", "semantics", "background", "combined")


def _variant(recall, precision=0.9, error_ratio=0.5, auc=0.8, eliminated=10):
    return {"method": "pba", "recall": recall, "precision": precision, "eliminated": eliminated,
            "auc_within_table": auc, "baseline": {"error_ratio": error_ratio}}


def test_the_issues_table_is_not_said_to_gain_nothing_from_co_occurrence():
    """Prior R 0.173 against background R 0.355, the prior ranking best: the sentence said
    "meaning and co-occurrence add nothing on this data"."""
    kn = {"prior": _variant(0.173, auc=0.90), "semantics": _variant(0.05, auc=0.6),
          "background": _variant(0.355, auc=0.88), "combined": _variant(0.30, auc=0.87)}
    verdict = carried_by({"knowledge": kn})[-1]
    assert "add nothing" not in verdict and "adds nothing" not in verdict
    assert "takes back more (36% of the added items against 17%)" in verdict


def test_nothing_added_is_still_said_when_nothing_takes_back_more():
    kn = {"prior": _variant(0.40, auc=0.90), "semantics": _variant(0.10, auc=0.6),
          "background": _variant(0.40, auc=0.88), "combined": _variant(0.35, auc=0.87)}
    assert "meaning and co-occurrence add nothing on this data" in carried_by({"knowledge": kn})[-1]


_recall = st.one_of(st.none(), st.floats(0, 1, allow_nan=False))
_auc = st.one_of(st.none(), st.floats(0, 1, allow_nan=False))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_recall, _auc, st.floats(0, 2, allow_nan=False)), min_size=4, max_size=4),
       st.booleans())
def test_the_knowledge_sentence_never_contradicts_its_table(rows, cooccurrence):
    """Over any table: when the sentence says a knowledge adds nothing (or that the prior carries
    the attack), no other row of the table, as it shows it (three decimals), takes back more."""
    # a table row the attack could not score has neither recall nor AUC
    kn = {v: _variant(r, auc=None if r is None else a, error_ratio=e, eliminated=0 if r is None else 10)
          for v, (r, a, e) in zip(VARIANTS, rows)}
    verdict = carried_by({"knowledge": kn}, cooccurrence=cooccurrence)[-1]
    shown = {v: round(kn[v]["recall"], 3) for v in VARIANTS if kn[v]["recall"] is not None}
    if "nothing on this data" in verdict or "adds nothing" in verdict:
        assert "prior" in shown
        assert all(shown[v] <= shown["prior"] for v in shown), (verdict, shown)


def test_one_name_per_chunk():
    assert chunk_label(3) == "C3" and chunk_label(1, "J2") == "J2/S1"
    assert cluster_chunk_labels(2, [("J1", 2)]) == ["C1", "C2", "J1/S1", "J1/S2"]
    p = {"chunk": 3, "earlier_chunk": 1}
    assert problem_chunks(p, cluster_chunk_labels(2, [("J1", 1)])) == ("J1/S1", "C1")
    assert problem_chunks({**p, "chunk_label": "J9/S1", "earlier_label": "C1"}) == ("J9/S1", "C1")


def test_cover_labels_its_chunks_with_the_one_name():
    from semtui.anonymize.disassociation import disassociate
    from semtui.attacks.cover import cluster_chunks
    from semtui.model import TransactionData

    rows = [["a", "z"], ["a", "w"], ["a"], ["b", "z"], ["b", "w"], ["b"]]
    data = disassociate(TransactionData.from_lists(rows), 2, 2, 3, joint_max_size=6).data
    _, labels = cluster_chunks(data, 0)
    c = data.clusters[0]
    joints = [(data.joint_clusters[j].id, len(data.joint_clusters[j].shared_chunks)) for j in data.joint_of()[c.id]]
    assert [name for name, _ in labels] == cluster_chunk_labels(len(c.record_chunks), joints) == ["C1", "J1/S1"]


def test_a_result_name_and_its_options_carry_the_knowledge():
    base = {"format": "semtui-setgen-report/1", "method": "gba", "measure": "scores:/x/y/fig4.csv", "seed": None}
    bg = {**base, "background": {"source": "/data/bg.txt", "cooccurrence": True}, "knowledge": "combined"}
    assert result_name(base) == "gba/scores:/x/y/fig4.csv"
    assert result_name(bg) == "gba/scores:/x/y/fig4.csv+bg.txt combined"
    assert options_text(bg, base) == "background=bg.txt knowledge=combined"
    assert options_text(base, bg) == "background=none"
    assert options_text(base, dict(base)) == "same options"
    nba = {"format": "semtui-disassoc-report/2", "method": "nba", "measure": "embedding", "seed": 0,
           "background": {"source": "bg.txt"}}
    assert result_name(nba) == "nba/+bg.txt seed 0"


def test_not_modelled_names_the_frequency_attacker_and_the_missing_original():
    notes = not_modelled_notes("set-generalised", background=None, measures=["embedding"], scored=False)
    assert "how common each item is" in notes[0] and "NGD" in notes[1] and "without the original" in notes[2]
    assert not_modelled_notes("set-generalised", background="bg.txt", measures=["ngd:x"]) == []


def test_how_sure_reads_either_interval_shape_and_says_why_there_is_none():
    doc = {"scored": True, "how_sure": {"scored": True, "auc_within_table": 0.75, "auc_interval": [0.7, 0.8]}}
    assert how_sure_text(doc) == "AUC within table 0.750 [0.700, 0.800] (0.5: a coin)."
    doc["how_sure"]["auc_interval"] = {"low": 0.7, "high": 0.8}
    assert how_sure_text(doc) == "AUC within table 0.750 [0.700, 0.800] (0.5: a coin)."
    unscored = {"scored": False, "how_sure": {"scored": False, "can_say": ["a"], "cannot_say": ["b"]}}
    assert how_sure_text(unscored) == "not scored. Cannot say: b. Can say: a."


def test_a_record_line_names_the_record_as_every_view_does():
    r = {"transaction": 1, "line": 3, "eliminated": 4, "correct": 3, "reidentified": ["icd"], "exposed": []}
    assert record_line(r) == "T2 (line 3): re-identified: icd (3 of 4 eliminations right)"


def test_exposed_and_re_identified_are_said_apart_and_breaches_against_the_size():
    assert exposure_words(0, 40, 3, "sidecar", 934) == ("0 of 40 member items exposed (cover after < k = 3, k from "
                                                         "sidecar); 934 rows re-identified (a generalised item "
                                                         "reduced to one member)")
    assert most_breaches_words({"vulnerable_records": 4, "size": 9}) == "at most 4 in one chunk"
    assert "more than its 9 records" in most_breaches_words({"vulnerable_records": 14, "size": 9})
