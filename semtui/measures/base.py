"""The one small interface every semantic measure implements.

A measure scores pairs of terms in batches: ``matrix(terms_a, terms_b)`` returns a
``len(a) x len(b)`` float array of its native scores (distances or similarities, see
``kind``), ``NaN`` where a term has no representation.  ``distances(a, b)`` gives
distances whatever the kind (similarity s becomes ``1 - s``), which is what the attacks
rank by.  ``unknown(terms)`` names the terms the measure cannot score: attacks report
them and never eliminate them.  ``identity`` is a stable string that changes whenever
the measure's scores could (index path and mtime, vectors hash, ...), used as the key of
the persistent score cache.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Literal

import numpy as np

from semtui.runtime.progress import ProgressCallback

Kind = Literal["distance", "similarity"]


class Measure(ABC):
    """Base class: subclasses implement :meth:`_matrix` (and may override ``unknown``)."""

    #: The spec the user wrote, e.g. ``embedding`` or ``scores:pairs.csv``.
    name: str = "measure"
    kind: Kind = "distance"
    #: Pairs scored between two progress calls: about a second's work or less, so that a cancel
    #: is answered quickly.  Slow measures (WordNet, NGD) set it lower.
    pairs_per_step: int = 5_000_000

    @property
    def identity(self) -> str:
        return self.name

    # -- the interface -------------------------------------------------------
    def matrix(self, terms_a: Sequence[str], terms_b: Sequence[str],
               progress: ProgressCallback | None = None) -> np.ndarray:
        """Native scores for every pair; each distinct term is scored once.  ``progress(done,
        total, "scoring")`` is called between blocks of rows (it may raise ``Interrupted``)."""
        ua, ia = np.unique(np.asarray(list(terms_a), dtype=object), return_inverse=True)
        ub, ib = np.unique(np.asarray(list(terms_b), dtype=object), return_inverse=True)
        if len(ua) == 0 or len(ub) == 0:
            return np.zeros((len(ia), len(ib)), dtype=np.float64)
        a, b = ua.tolist(), ub.tolist()
        core = self._finish(self._scores(a, b, progress), a, b)
        return core[np.ix_(ia.ravel(), ib.ravel())]

    def distances(self, terms_a: Sequence[str], terms_b: Sequence[str],
                  progress: ProgressCallback | None = None) -> np.ndarray:
        m = self.matrix(terms_a, terms_b, progress)
        return m if self.kind == "distance" else 1.0 - m

    def unknown(self, terms: Sequence[str]) -> list[str]:
        """Terms this measure has no representation for (default: none)."""
        return []

    def capped(self, scores: np.ndarray) -> np.ndarray | None:
        """A boolean mask of the cells of ``scores`` (the last table this measure returned)
        that hold a substitute rather than a score (NGD's never co-occurring pairs), or
        None when the measure never substitutes."""
        return None

    # -- for subclasses ------------------------------------------------------
    def _scores(self, terms_a: list[str], terms_b: list[str], progress: ProgressCallback | None) -> np.ndarray:
        """Native scores of distinct terms, computed in blocks of rows with a progress call
        between blocks."""
        step = max(1, self.pairs_per_step // len(terms_b))
        blocks = []
        for lo in range(0, len(terms_a), step):
            if progress is not None:
                progress(lo, len(terms_a), "scoring")
            blocks.append(np.asarray(self._matrix(terms_a[lo:lo + step], terms_b), dtype=np.float64))
        if progress is not None:
            progress(len(terms_a), len(terms_a), "scoring")
        return np.concatenate(blocks, axis=0)

    @abstractmethod
    def _matrix(self, terms_a: list[str], terms_b: list[str]) -> np.ndarray:
        """Native scores of distinct terms, ``len(terms_a) x len(terms_b)``."""

    def _finish(self, scores: np.ndarray, terms_a: list[str], terms_b: list[str]) -> np.ndarray:
        """A last step over the whole table asked for (after the cache): e.g. NGD's cap of
        never co-occurring pairs at the table's largest finite value.  Default: none."""
        return scores

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"
