"""What leaves a :class:`~semtui.tui.components.vtable.VirtualTable`: ``y`` copies the current
cell (the whole row on the first column), ``ctrl+s`` writes the table as shown to a CSV file
(private, 0600, when it can show original data), and the inspector reads a row whole, each
cell named.

:class:`TableExport` is mixed into ``VirtualTable``: it reads the table's rows through its
getter, its columns and cursor; a view whose rows hold typed records gives them with
:meth:`TableExport.set_records` after ``set_rows``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from rich.text import Text

from semtui.tui.components.cells import cell_text, csv_value


class TableExport:
    """Copy, CSV and the inspector's text of a table's rows."""

    def cell_text(self, row: int, col: int) -> str:
        cells = self._getter(row)
        return str(cells[col].plain if isinstance(cells[col], Text) else cells[col]) if col < len(cells) else ""

    def row_texts(self, row: int) -> list[str]:
        return [self.cell_text(row, c) for c in range(len(self.columns))]

    def row_lines(self, row: int) -> Text:
        """Row ``row`` whole for the inspector: one line per cell that holds something, named
        (``C2: 3× asthma, rhinitis``) by :attr:`inspect_labels` or its column's label."""
        labels = self.inspect_labels or [c.label for c in self.columns]
        cells = self._getter(row) if 0 <= row < self.row_count else ()
        out = Text()
        for c, column in enumerate(self.columns):
            cell = cells[c] if c < len(cells) else ""
            text = cell_text(cell, self.highlight)
            if not text.plain.strip():
                continue
            if out.plain:
                out.append("\n")
            out.append(f"{labels[c] if c < len(labels) else column.label}: ", style="bold")
            out.append_text(text)
        return out

    def action_copy(self) -> None:
        """``y``: the current cell to the clipboard (the whole row when on the first column)."""
        if not self.row_count:
            return
        if self.cursor_col == 0:
            text = "\t".join(self.row_texts(self.cursor_row))
        else:
            text = self.cell_text(self.cursor_row, self.cursor_col)
        self.app.copy_to_clipboard(text)
        self.app.notify(f"copied: {text[:60]}")

    def set_records(self, header: Sequence[str], records: Callable[[int], Iterable[Sequence]]) -> None:
        """What the CSV holds (after :meth:`set_rows`): ``records(i)`` the records of shown row ``i``."""
        self.csv_records = (list(header), records)

    def holds_private(self) -> bool:
        """The table shows original data (the session has an original, a key or a report
        scored against the original): its CSV is private (0600), as the CLI's outputs are."""
        session = getattr(self.screen, "session", None)
        return bool(session is not None and session.holds_private)

    def write_csv(self, path) -> int:
        """Every row of the table as shown (filter and sort kept), as CSV; returns the record
        count.  Private (0600) when the table can show original data (:meth:`holds_private`)."""
        import csv

        from semtui.fileio import write_together

        if self.csv_records is not None:
            header, records = self.csv_records
        else:
            header = [c.label for c in self.columns]

            def records(r: int):
                return [[csv_value(t) for t in self.row_texts(r)]]
        count = [0]

        def write(fh) -> None:
            w = csv.writer(fh, lineterminator="\n")
            w.writerow(header)
            for r in range(self.row_count):
                for rec in records(r):
                    w.writerow(["" if v is None else v for v in rec])
                    count[0] += 1

        write_together([(path, write, self.holds_private())])
        return count[0]

    def action_save_csv(self) -> None:
        """``ctrl+s``: the table as CSV, in a prompt for the path."""
        from pathlib import Path

        from semtui.errors import InputError
        from semtui.tui.components.export import ExportPrompt

        default = f"{(self.id or 'table')}.csv"

        def done(path: str | None) -> None:
            if not path:
                return
            try:
                n = self.write_csv(Path(path))
            except (OSError, ValueError, InputError) as exc:
                self.app.notify(f"could not write {path}: {exc}", severity="error")
                return
            self.app.notify(f"wrote {n:,} rows to {path}" + (" (private: 0600)" if self.holds_private() else ""))

        self.app.push_screen(ExportPrompt(default, title="Save the table as CSV"), done)
