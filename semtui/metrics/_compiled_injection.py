"""The masked injection of a joint cluster's budget-matched draws, compiled (numba): the very
draws of :func:`semtui.metrics.reassociation.masked_injection`'s numpy loop -- each placement's
anchor drawn with ``rng.integers(0, candidates)`` from the same generator, whose state advances
as the loop's does (numba draws from the generator object itself) -- without a numpy call per
placement.  Imported only when a process has spent a while in the numpy loop
(:func:`~semtui.metrics.reassociation.masked_injection`)."""

from __future__ import annotations

import numpy as np

from semtui.runtime.compiled import jit


@jit
def masked_injection_kernel(reps, allowed_t, n_anchors, rng):  # pragma: no cover - compiled
    free = np.ones(n_anchors, dtype=np.bool_)
    out = np.empty(len(reps), dtype=np.int64)
    for i in range(len(reps)):
        u = reps[i]
        count = 0
        for a in range(n_anchors):
            if allowed_t[u, a] and free[a]:
                count += 1
        among_allowed = count > 0      # else any unused anchor
        if not among_allowed:
            for a in range(n_anchors):
                if free[a]:
                    count += 1
        if count == 0:   # more placements than anchors: the numpy loop's integers(0) raises too
            raise ValueError("high <= 0")
        pick = rng.integers(0, count)
        seen = 0
        for a in range(n_anchors):
            if free[a] and (allowed_t[u, a] or not among_allowed):
                if seen == pick:
                    free[a] = False
                    out[i] = a
                    break
                seen += 1
    return out
