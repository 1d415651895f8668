"""Documents the TUI opens besides a release: an experiment's ``RESULTS.jsonl`` (one
``semtui-experiment/1`` cell a line, written by ``semtui experiment``) and an assessment
(``semtui-assessment/1``, written by ``semtui assess --report``).

Read and checked before the app starts, like a release: a file of another format ends as one
line on stderr (exit 2).  A torn line of a RESULTS file (an interrupted writer, an edit) is
skipped and named, so the cells that are whole still show.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from semtui.errors import InputError

EXPERIMENT = "semtui-experiment/2"
ASSESSMENT = "semtui-assessment/2"
#: the versions the TUI opens (/1: before every document wrote one interval shape; both are read)
EXPERIMENTS = ("semtui-experiment/1", EXPERIMENT)
ASSESSMENTS = ("semtui-assessment/1", ASSESSMENT)
#: how much of a file :func:`sniff` reads to tell the formats apart
SNIFF_BYTES = 4096


def sniff(path: Path) -> str | None:
    """``"experiment"`` or ``"assessment"`` when ``path`` is one of those documents, else None
    (a release, read by :mod:`semtui.formats`).  Reads at most :data:`SNIFF_BYTES`: the
    experiment's first line carries its ``format``; an assessment (two-space JSON, the envelope's
    ``format`` first) names it on its second line."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(SNIFF_BYTES)
    except OSError:
        return None
    text = head.decode("utf-8", errors="replace").lstrip("\ufeff")
    first = text.split("\n", 1)[0].strip()
    if first.startswith("{") and any(f'"{f}"' in first for f in EXPERIMENTS):
        return "experiment"
    if first.startswith("{") and '"format"' in first and first.endswith("}"):
        try:
            got = json.loads(first).get("format")
        except (ValueError, AttributeError):
            got = None
        if isinstance(got, str) and got.startswith("semtui-experiment/"):
            return "experiment"
    lines = text.split("\n", 3)
    if first == "{" and len(lines) > 1 and any(f'"{f}"' in lines[1] for f in ASSESSMENTS):
        return "assessment"
    return None


@dataclass
class Experiment:
    """The cells of a RESULTS file, in file order, and the lines that could not be read."""

    path: Path
    cells: list[dict]
    #: "line N: why" for each line skipped
    skipped: list[str] = field(default_factory=list)


def read_experiment(path: Path) -> Experiment:
    """Every whole cell of a RESULTS file.  Its first line must be a ``semtui-experiment/1``
    cell (else this is not a RESULTS file: InputError); a later line that is not a JSON object of
    that format is skipped and listed in ``skipped``."""
    from semtui.fileio import read_text

    path = Path(path)
    text = read_text(path)
    cells: list[dict] = []
    skipped: list[str] = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            doc = json.loads(line)
        except ValueError:
            doc = None
        if not isinstance(doc, dict):
            if not cells and not skipped:
                raise InputError("not a RESULTS file of semtui experiment (its first line is not a JSON object)",
                                 path, n)
            skipped.append(f"line {n}: not a whole JSON object (a torn line?)")
            continue
        got = doc.get("format")
        if got not in EXPERIMENTS:
            if not cells and not skipped:
                raise InputError(f"not a RESULTS file of semtui experiment ('format' must be {EXPERIMENT!r}, "
                                 f"got {got!r})", path, n)
            skipped.append(f"line {n}: format {got!r}, not {EXPERIMENT!r}")
            continue
        why = cell_problem(doc)
        if why:
            skipped.append(f"line {n}: {why}")
            continue
        doc["_line"] = n
        cells.append(doc)
    if not cells:
        raise InputError("no cell could be read (" + "; ".join(skipped[:3]) + ")", path)
    return Experiment(path, cells, skipped)


def cell_problem(cell: dict) -> str | None:
    """Why a cell cannot be shown, or None.  Fields are those of the shared cell format; a
    figure may be missing or null (drawn as no point), but the parts must have their types."""
    if not isinstance(cell.get("cell"), dict):
        return "no 'cell' object"
    for part in ("privacy", "utility", "check"):
        if cell.get(part) is not None and not isinstance(cell[part], dict):
            return f"'{part}' is not an object"
    rel = cell.get("release")
    if rel is not None and not isinstance(rel, str):
        return "'release' is neither a path nor null"
    return None


def read_assessment(path: Path) -> dict:
    """An assessment document (``semtui assess --report``)."""
    from semtui import reports

    doc = reports.read(path, ASSESSMENTS, "an assessment (semtui assess --report)")
    for key in ("attacks", "records_at_risk"):
        if not isinstance(doc.get(key), list):
            raise InputError(f"the assessment has no '{key}' list", path)
    alts = doc.get("alternatives")
    if alts is not None and not isinstance(alts, list):
        raise InputError("'alternatives' is not a list", path)
    return doc


def resolve(name: str | None, beside: Path) -> Path | None:
    """A path a document names: as written (from the working folder), else beside the document."""
    if not name:
        return None
    p = Path(name)
    if p.exists() or p.is_absolute():
        return p
    q = Path(beside).parent / p
    return q if q.exists() else p
