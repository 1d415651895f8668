"""docs/assess.md's table of alternatives lists every row of ``ALTERNATIVES`` (the truth), one
entry per row, family by family: an alternative added to the code must reach the docs."""

from __future__ import annotations

from conftest import REPO

from semtui.experiment.alternatives import ALTERNATIVES

FAMILY = {"set generalisation (COAT-style)": "setgen", "k^m": "km", "disassociation": "disassoc"}


def _entries(cell: str) -> list[str]:
    """The table cell split at its top-level semicolons (not inside parentheses)."""
    out, depth, cur = [], 0, ""
    for ch in cell:
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch == ";" and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    return [*out, cur.strip()]


def test_the_docs_list_every_alternative_once():
    text = (REPO / "docs" / "assess.md").read_text()
    table = text[text.index("| family | alternatives |"):].split("\n\n", 1)[0].splitlines()[2:]
    listed = {FAMILY[row.split("|")[1].strip()]: _entries(row.split("|")[2]) for row in table}
    for family in FAMILY.values():
        rows = [a for a in ALTERNATIVES if a.family == family]
        assert len(listed[family]) == len(rows), (family, listed[family], [a.name for a in rows])
    assert "every cover problem removed" in text and "similar frequency" in text
