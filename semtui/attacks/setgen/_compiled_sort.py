"""The compiled eliminator's tools (:mod:`semtui.attacks.setgen._compiled`): its ``njit``
(:func:`semtui.runtime.compiled.jit`: numba's on-disk cache where a cache directory can be
written) and the sort its kernels call."""

from __future__ import annotations

import numpy as np

from semtui.runtime.compiled import jit as _jit


@_jit
def argsort(vals):
    """The indices that sort ``vals`` (finite) ascending, equal values in their order: a merge sort
    written out.  numba's own ``np.argsort`` compiled its quicksort twice over (~5 s of a cold
    cache's ~14 s on a 2-core machine); sorted values do not depend on the algorithm, and nothing
    here reads the order of equal values."""
    n = vals.shape[0]
    a = np.empty(n, dtype=np.int64)
    b = np.empty(n, dtype=np.int64)
    run = 16
    for lo in range(0, n, run):   # runs of 16 by insertion
        hi = min(lo + run, n)
        for i in range(lo, hi):
            v = vals[i]
            j = i
            while j > lo and vals[a[j - 1]] > v:
                a[j] = a[j - 1]
                j -= 1
            a[j] = i
    width = run
    while width < n:              # then merged, pairs of runs at a time
        for lo in range(0, n, 2 * width):
            mid = min(lo + width, n)
            hi = min(lo + 2 * width, n)
            i = lo
            j = mid
            k = lo
            while i < mid and j < hi:
                if vals[a[j]] < vals[a[i]]:
                    b[k] = a[j]
                    j += 1
                else:
                    b[k] = a[i]
                    i += 1
                k += 1
            while i < mid:
                b[k] = a[i]
                i += 1
                k += 1
            while j < hi:
                b[k] = a[j]
                j += 1
                k += 1
        a, b = b, a
        width *= 2
    return a
