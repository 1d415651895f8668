"""The experiment spec (TOML, docs/experiment.md): one original, optional background knowledge,
corpus and measures, and ``[[release]]`` tables whose parameter lists make a grid.

``read_spec(path)`` returns a :class:`Spec`; a bad spec is one :class:`InputError` naming the
file and, where it can be told, the line.  ``Spec.cells()`` is the grid: one
:class:`CellParams` per candidate release, in the spec's order (tables in order, each table's
product with its keys in the order written).
"""

from __future__ import annotations

import itertools
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from semtui.errors import InputError
from semtui.families import FAMILIES as _FAMILIES

#: the families a ``[[release]]`` table may name (semtui.families: each says what it takes)
FAMILIES = tuple(_FAMILIES)

#: every parameter a family's table takes, with its default (None: required, or absent when not given)
PARAMS: dict[str, dict[str, object]] = {name: f.params for name, f in _FAMILIES.items()}
#: parameters that name a file (read relative to the spec's folder)
PATH_PARAMS = {key for f in _FAMILIES.values() for key in f.files}
#: parameters added after cells were first written: left out of a cell's id at their default, so
#: the ids (and the RESULTS lines) of cells written before them still match
LATER_PARAMS = {"unmarked": False, "harden": False}
#: the keys of the spec's top level
TOP = ("original", "background", "corpus", "measure", "keep_releases", "attacks")


@dataclass(frozen=True)
class CellParams:
    """One candidate release: its family and parameters (canonical: defaults filled in, keys sorted)."""

    family: str
    params: tuple[tuple[str, object], ...]

    def as_dict(self) -> dict:
        return {"family": self.family, **dict(self.params)}

    @property
    def id(self) -> str:
        """Stable: the family and every parameter, sorted (a file is named by its path)."""
        return self.family + ":" + ",".join(f"{k}={_canon(v)}" for k, v in self.params)

    @property
    def label(self) -> str:
        p = dict(self.params)
        bits = [f"k={p['k']}"]
        if "m" in p:
            bits.append(f"m={p['m']}")
        bits += _FAMILIES[self.family].label_bits(p)
        return f"{self.family} " + " ".join(bits)


def _canon(v) -> str:
    return str(v).lower() if isinstance(v, bool) else str(v)


def make_cell(family: str, params: dict) -> CellParams:
    """A cell from a family and its parameters: defaults filled in, parameters that do not apply
    dropped (``privacy`` replaces the random constraints; ``hierarchy`` replaces fanout/order)."""
    full = {k: v for k, v in PARAMS[family].items() if v is not None}
    full.update({k: v for k, v in params.items() if v is not None})
    full = _FAMILIES[family].canonical(full)
    for k, default in LATER_PARAMS.items():
        if k in full and full[k] == default:
            full.pop(k)
    return CellParams(family, tuple(sorted(full.items())))


@dataclass
class Spec:
    path: Path
    original: Path
    background: str | None = None
    corpus: Path | None = None
    measures: tuple[str, ...] = ()
    keep_releases: Path | None = None
    releases: list[dict] = field(default_factory=list)
    #: the attacks every cell runs (assess.attack_name), None: every one assess runs
    attacks: tuple[str, ...] | None = None
    #: the spec's text, to name the line of a value found wrong after it was read
    text: str = field(default="", repr=False)

    def cells(self) -> list[CellParams]:
        return [cell for cell, _ in self.cells_by_table()]

    def cells_by_table(self) -> list[tuple[CellParams, int]]:
        """The grid, each cell with the index of the ``[[release]]`` table it first came from."""
        out: list[tuple[CellParams, int]] = []
        seen = set()
        for ti, table in enumerate(self.releases):
            family = table["family"]
            keys = [k for k in table if k != "family"]
            lists = [v if isinstance(v, list) else [v] for v in (table[k] for k in keys)]
            for combo in itertools.product(*lists):
                cell = make_cell(family, dict(zip(keys, combo)))
                if cell.id not in seen:
                    seen.add(cell.id)
                    out.append((cell, ti))
        return out

    def error(self, message: str, key: str = "", table: int | None = None) -> InputError:
        """An :class:`InputError` naming the spec and the line of ``key`` (in the ``table``-th
        ``[[release]]`` table, or at the top level)."""
        line = _line_of(self.text, key, table) if self.text and (key or table is not None) else None
        return InputError(message, self.path, line)

    def inputs(self) -> dict:
        """What every cell of this spec was measured with (a RESULTS file from other inputs is
        not resumed)."""
        out = {"original": str(self.original), "background": self.background,
               "corpus": None if self.corpus is None else str(self.corpus), "measures": list(self.measures)}
        if self.attacks is not None:
            out["attacks"] = list(self.attacks)
        return out


def _line_of(text: str, key: str, table_index: int | None) -> int | None:
    """The line of ``key = ...`` (in the ``table_index``-th ``[[release]]`` table, or at the top)."""
    lines = text.split("\n")
    starts = [i for i, ln in enumerate(lines) if re.match(r"\s*\[\[\s*release\s*\]\]", ln)]
    if table_index is None:
        lo, hi = 0, starts[0] if starts else len(lines)
    else:
        if table_index >= len(starts):
            return None
        lo = starts[table_index]
        hi = starts[table_index + 1] if table_index + 1 < len(starts) else len(lines)
        if key == "":
            return lo + 1
    pat = re.compile(rf"\s*[\"']?{re.escape(key)}[\"']?\s*=")
    for i in range(lo, hi):
        if pat.match(lines[i]):
            return i + 1
    return None if table_index is None else lo + 1


def read_spec(path: str | Path) -> Spec:
    """Parse and validate a spec; every error names the file (and line)."""
    from semtui.fileio import read_text

    p = Path(path)
    text = read_text(p)
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        msg = str(exc)
        m = re.search(r"\(at line (\d+), column \d+\)", msg)
        line = int(m.group(1)) if m else (text.rstrip("\n").count("\n") + 1 if "end of document" in msg else None)
        raise InputError(f"not valid TOML: {re.sub(r' ?[(]at (line|end).*[)]', '', msg)}", p, line) from None
    base = p.parent

    def err(message: str, key: str = "", table: int | None = None) -> InputError:
        return InputError(message, p, _line_of(text, key, table) if key or table is not None else None)

    for key in doc:
        if key not in (*TOP, "release"):
            raise err(f"unknown key {key!r} (the top level takes {', '.join(TOP)} and [[release]] tables)", key)
    original = doc.get("original")
    if not isinstance(original, str) or not original:
        raise err("'original' must name the original transactions file", "original" if "original" in doc else "")
    background = doc.get("background")
    if background is not None and not (isinstance(background, str) and background):
        raise err("'background' must be a file, counts:FILE or wordfreq:LANG", "background")
    if isinstance(background, str) and not re.match(r"^(counts|wordfreq):", background):
        background = str(base / background)
    elif isinstance(background, str) and background.startswith("counts:"):
        background = "counts:" + str(base / background[len("counts:"):])
    corpus = doc.get("corpus")
    if corpus is not None and not (isinstance(corpus, str) and corpus):
        raise err("'corpus' must name an NGD corpus index", "corpus")
    measure = doc.get("measure", [])
    if isinstance(measure, str):
        measure = [measure]
    if not isinstance(measure, list) or not all(isinstance(m, str) and m for m in measure):
        raise err("'measure' must be a measure or a list of measures (e.g. \"embedding\")", "measure")
    # a measure that names a file names it from the spec's folder
    measure = [f"{m.split(':', 1)[0]}:{base / m.split(':', 1)[1]}"
               if m.split(":", 1)[0] in ("ngd", "scores", "counts") and ":" in m and m.split(":", 1)[1] != "-"
               else m for m in measure]
    from semtui.measures import check_measure

    for m in measure:
        try:
            check_measure(m)
        except InputError as exc:
            raise err(f"'measure': {exc.message}", "measure") from None
    keep = doc.get("keep_releases")
    if keep is not None and not (isinstance(keep, str) and keep):
        raise err("'keep_releases' must name a folder", "keep_releases")
    if (base / original).is_dir():
        raise err(f"'original' names a folder ({base / original}): give the file of the original transactions",
                  "original")
    if keep is not None and (base / keep).exists() and not (base / keep).is_dir():
        raise err(f"'keep_releases' names a file ({base / keep}), not a folder: give a folder (made if it does "
                  "not exist)", "keep_releases")
    if keep is not None and not (base / keep).exists() and not (base / keep).parent.is_dir():
        raise err(f"'keep_releases': the folder {base / keep} cannot be made: its parent folder does not exist",
                  "keep_releases")
    attacks = doc.get("attacks")
    if attacks is not None:
        from semtui.assess import ATTACK_NAMES

        if isinstance(attacks, str):
            attacks = [attacks]
        if (not isinstance(attacks, list)  # [] runs none: the release, its check and utility only
                or not all(isinstance(a, str) and a.strip().lower() in ATTACK_NAMES for a in attacks)):
            raise err(f"'attacks' must be a list of attacks to run, each one of {', '.join(ATTACK_NAMES)} "
                      f"(got {doc.get('attacks')!r})", "attacks")
        attacks = tuple(dict.fromkeys(a.strip().lower() for a in attacks))
    tables = doc.get("release")
    if not isinstance(tables, list) or not tables:
        raise err("no [[release]] table: give at least one (family = \"setgen\", \"disassoc\" or \"km\")")
    releases = []
    for ti, table in enumerate(tables):
        if not isinstance(table, dict):
            raise err("each [[release]] must be a table", "", ti)
        family = table.get("family")
        if family not in FAMILIES:
            raise err(f"'family' must be one of {', '.join(FAMILIES)} (got {family!r})",
                      "family" if "family" in table else "", ti)
        fam = _FAMILIES[family]
        allowed = fam.params
        out = {"family": family}
        for key, value in table.items():
            if key == "family":
                continue
            if key not in allowed:
                raise err(f"unknown parameter {key!r} for family {family} (it takes {', '.join(allowed)})", key, ti)
            values = value if isinstance(value, list) else [value]
            if not values:
                raise err(f"{key!r} is an empty list: give at least one value", key, ti)
            checked = [_check_value(fam, key, v, base, lambda m, k=key, t=ti: err(m, k, t)) for v in values]
            out[key] = checked if isinstance(value, list) else checked[0]
        for key, default in allowed.items():
            if default is None and key not in out and key not in fam.files:
                raise err(f"family {family} needs {key!r}", "", ti)
        if (conflict := fam.conflict(out)) is not None:
            message, at = conflict
            raise err(message, at, ti)
        releases.append(out)
    spec = Spec(path=p, original=base / original, background=background,
                corpus=None if corpus is None else base / corpus, measures=tuple(measure),
                keep_releases=None if keep is None else base / keep, releases=releases, attacks=attacks, text=text)
    # every cell's parameters together, before any runs (each value was checked above)
    for cell, ti in spec.cells_by_table():
        if (wrong := _FAMILIES[cell.family].check_cell(dict(cell.params))) is not None:
            message, at = wrong
            raise err(f"{message} (cell {cell.label})", at, ti)
    return spec


#: the largest whole number semtui takes (a 64-bit integer: numpy's seeds and ids, the JSON writer)
INT64_MAX = 2**63 - 1
#: why k is at least 2, said with a k below it
_K_WHY = "a 1-anonymous release is the original itself: it protects nothing, and its check would pass"


def _check_value(fam, key: str, v, base: Path, err):
    """One value of the family ``fam``'s parameter ``key``, checked (a file named from the spec's folder)."""
    if key in fam.flags:
        if not isinstance(v, bool):
            raise err(f"{key!r} must be true or false (got {v!r})")
        return v
    if key in fam.whole:
        least = fam.whole[key]
        if not isinstance(v, int) or isinstance(v, bool) or v < least:
            why = f": {_K_WHY}" if key == "k" and isinstance(v, int) and not isinstance(v, bool) and v < least else ""
            raise err(f"{key!r} must be a whole number of at least {least} (got {v!r}){why}")
        if v > INT64_MAX:
            raise err(f"{key!r}: {v} is beyond the largest whole number semtui takes ({INT64_MAX:,})")
        return v
    if not isinstance(v, str) or not v:
        raise err(f"{key!r} must be a string (got {v!r})")
    if key in fam.files:
        return str(base / v)
    if (wrong := fam.check_value(key, v)) is not None:
        raise err(wrong)
    return v
