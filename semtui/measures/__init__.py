"""Semantic measures behind one interface (:class:`semtui.measures.base.Measure`).

``open_measure(spec)`` turns a user's spec into a measure:

* ``embedding`` (default) - GloVe 6B 50d cosine distance (``--vectors FILE`` for others)
* ``scores:FILE`` - precomputed pairs
"""

from __future__ import annotations

from pathlib import Path

from semtui.errors import InputError
from semtui.measures.base import Measure

DEFAULT_MEASURE = "embedding"


def open_measure(spec: str = DEFAULT_MEASURE, *, vectors: str | Path | None = None, cache: bool = True) -> Measure:
    """Build the measure named by ``spec``."""
    kind, _, arg = spec.partition(":")
    if kind == "scores":
        from semtui.measures.scores import ScoresMeasure

        if not arg:
            raise InputError("scores: needs a file, e.g. scores:pairs.csv")
        return ScoresMeasure(arg)
    raise InputError(f"unknown measure {spec!r}")
