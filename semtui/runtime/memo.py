"""What a pure computation gave, kept by the content of its inputs: a 128-bit digest of arrays
(each one's type, shape and bytes), and a small bounded memo keyed by such digests.

The methods of one release ask for some figures with the same arrays (the pooled AUC of the
distances is the measure's, not the method's; a cluster's budget-matched draws depend on a
method only through its budget): the digest is what lets a later one take the figure an earlier
one computed, exactly, without holding the arrays."""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import TypeVar

import numpy as np

T = TypeVar("T")


def digest(*arrays) -> bytes:
    """A 128-bit digest of ``arrays`` (each one's type, shape and bytes; None marked as such)."""
    h = hashlib.blake2b(digest_size=16)
    for a in arrays:
        if a is None:
            h.update(b"none;")
            continue
        a = np.ascontiguousarray(a)
        h.update(f"{a.dtype.str}{a.shape};".encode())
        h.update(a.tobytes())
    return h.digest()


class ContentMemo:
    """The last ``size`` results of pure computations by key (a digest and what names the
    computation); safe to share between threads."""

    def __init__(self, size: int = 64) -> None:
        self.size = size
        self._kept: OrderedDict[tuple, object] = OrderedDict()
        self._lock = threading.Lock()
        #: how many results were taken rather than computed (for tests)
        self.taken = 0

    def get(self, key: tuple, compute: Callable[[], T]) -> T:
        with self._lock:
            if key in self._kept:
                self._kept.move_to_end(key)
                self.taken += 1
                return self._kept[key]  # type: ignore[return-value]
        value = compute()
        with self._lock:
            self._kept[key] = value
            while len(self._kept) > self.size:
                self._kept.popitem(last=False)
        return value
