"""``scores:FILE``: precomputed pairs, CSV with a header ``a,b,distance`` or ``a,b,similarity``.

The order of ``a`` and ``b`` is irrelevant.  A pair the file does not hold is an error
naming the pair: silently inventing a score would bias the attack.  A term scored
against itself, when absent, is 0 distance / 1 similarity.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import numpy as np

from semtui.errors import InputError
from semtui.fileio import identity, read_text
from semtui.measures.base import Measure

#: largest score magnitude: a mean of up to 1e200 such scores stays finite
MAX_SCORE = 1e100


class ScoresMeasure(Measure):
    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.name = f"scores:{path}"
        text = read_text(self.path)
        reader = csv.reader(io.StringIO(text))
        try:
            header = [h.strip().lower() for h in next(reader)]
        except StopIteration:
            raise InputError("file is empty", self.path) from None
        if len(header) != 3 or header[:2] != ["a", "b"] or header[2] not in ("distance", "similarity"):
            raise InputError("header must be 'a,b,distance' or 'a,b,similarity'", self.path, 1)
        self.kind = header[2]
        self.pairs: dict[tuple[str, str], float] = {}
        self.terms: set[str] = set()
        for lineno, row in enumerate(reader, start=2):
            if not row or all(not c.strip() for c in row):
                continue
            if len(row) != 3:
                raise InputError(f"expected 3 columns, got {len(row)}", self.path, lineno)
            a, b, v = (c.strip() for c in row)
            try:
                value = float(v)
            except ValueError:
                raise InputError(f"not a number: {v!r}", self.path, lineno) from None
            if not np.isfinite(value):
                raise InputError(f"not a finite number: {v!r}", self.path, lineno)
            if abs(value) > MAX_SCORE:
                raise InputError(f"{v} is too large for a score (at most {MAX_SCORE:g} in magnitude, "
                                 "so that means over many pairs stay finite; rescale the scores)",
                                 self.path, lineno)
            if self.kind == "similarity" and not 0.0 <= value <= 1.0:
                raise InputError(f"a similarity lies in [0, 1], got {v}", self.path, lineno)
            if self.kind == "distance" and value < 0 and a == b:
                raise InputError(f"a term's distance to itself cannot be negative, got {v}", self.path, lineno)
            known = self.pairs.get((a, b))
            if known is not None and known != value:
                raise InputError(f"the pair ({a!r}, {b!r}) is scored twice, {known:g} and {value:g}",
                                 self.path, lineno)
            self.pairs[(a, b)] = value
            self.pairs[(b, a)] = value
            self.terms.update((a, b))
        self._identity = f"scores:{identity(self.path)}"

    @property
    def identity(self) -> str:
        return self._identity

    def _matrix(self, terms_a: list[str], terms_b: list[str]) -> np.ndarray:
        out = np.empty((len(terms_a), len(terms_b)), dtype=np.float64)
        same = 0.0 if self.kind == "distance" else 1.0
        for i, a in enumerate(terms_a):
            for j, b in enumerate(terms_b):
                v = self.pairs.get((a, b))
                if v is None:
                    if a == b:
                        v = same
                    else:
                        raise InputError(f"no score for the pair ({a!r}, {b!r})", self.path)
                out[i, j] = v
        return out
