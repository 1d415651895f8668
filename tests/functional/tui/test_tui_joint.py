"""The TUI shows REFINE's joint clusters: a cluster's chunk view holds its joint cluster's
shared chunks beside its record chunks (issue 24)."""

from __future__ import annotations

from pathlib import Path

from conftest import app_for, rows

from semtui.anonymize.disassociation import disassociate
from semtui.formats.disassociated import write_disassociated, write_key
from semtui.model import TransactionData


async def test_chunk_view_shows_the_shared_chunks_of_the_joint_cluster(tmp_path):
    transactions = [["a", "z"], ["a", "w"], ["a"], ["b", "z"], ["b", "w"], ["b"]]
    original = tmp_path / "o.txt"
    original.write_text("\n".join(",".join(t) for t in transactions) + "\n")
    r = disassociate(TransactionData.from_lists(transactions), 2, 2, 3, joint_max_size=6)
    data, key = tmp_path / "r.json", tmp_path / "r.key.json"
    write_disassociated(r.data, data)
    write_key(r.key, key)
    app = app_for(Path(data), key=key, original=original)
    async with app.run_test(size=(100, 24)) as pilot:
        await pilot.pause()
        detail = app.screen.detail
        assert [c.label for c in detail.columns] == ["C1 (3)", "J1/S1 (6)", "term chunk (0)"]
        got = rows(detail)
        assert [row[1] for row in got] == ["2× z", "2× w", "2× ∅"]
        assert "joint cluster J1" in detail.border_subtitle
