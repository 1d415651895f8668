"""The distinct sub-records of a chunk, as the TUI lists them (``n×`` and the items, ∅ for the empty
one) and as the re-association places them (its units): each row that holds items looked at one by
one, the empty rows at once -- a shared chunk is mostly empty rows. Both held to their definition,
a pass over every row."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from semtui.attacks.reassociation.kernel import add_distinct_units
from semtui.model.disassociated import RecordChunk
from semtui.tui.components.clusters import distinct_sub_records

rows = st.lists(st.lists(st.integers(0, 5), unique=True, max_size=3), max_size=14)


def _by_definition(chunk) -> list[tuple[list[int], int, list[int]]]:
    """(items as first seen, count, rows) of each distinct sub-record (as a set), in order of first appearance."""
    seen: dict[tuple, int] = {}
    out: list = []
    for r in range(len(chunk)):
        sr = chunk.sub_record(r).tolist()
        key = tuple(sorted(sr))
        if key in seen:
            out[seen[key]][1] += 1
            out[seen[key]][2].append(r)
        else:
            seen[key] = len(out)
            out.append([sr, 1, [r]])
    return out


@settings(max_examples=300, deadline=None)
@given(rows)
def test_the_tui_lists_each_distinct_sub_record_once_in_order_the_empty_one_included(lists):
    chunk = RecordChunk.from_lists(lists)
    got = [(sr.tolist(), n) for sr, n in distinct_sub_records(chunk)]
    assert got == [(sr, n) for sr, n, _ in _by_definition(chunk)]


@settings(max_examples=300, deadline=None)
@given(rows, st.integers(0, 3))
def test_the_units_are_the_distinct_sub_records_that_hold_items(lists, index):
    chunk = RecordChunk.from_lists(lists)
    units, unit_chunk, counts, unit_rows = [], [], [], []
    add_distinct_units(chunk, index, units, unit_chunk, counts, unit_rows)
    expected = [d for d in _by_definition(chunk) if d[0]]
    assert [u.tolist() for u in units] == [sr for sr, _, _ in expected]
    assert counts == [n for _, n, _ in expected] and unit_rows == [r for _, _, r in expected]
    assert unit_chunk == [index] * len(expected)
