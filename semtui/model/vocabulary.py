"""Items as dense integer ids: the one vocabulary every array in semtui indexes."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

Item = str


class Vocabulary:
    """A bijection between item strings and dense integer ids 0..n-1 (first seen first)."""

    __slots__ = ("_index", "_items")

    def __init__(self, items: Iterable[str] = ()):
        self._items: list[str] = []
        self._index: dict[str, int] = {}
        for it in items:
            self.add(it)

    def add(self, item: str) -> int:
        """Return the id of ``item``, giving it the next id if it is new."""
        i = self._index.get(item)
        if i is None:
            i = len(self._items)
            self._index[item] = i
            self._items.append(item)
        return i

    def get(self, item: str) -> int | None:
        return self._index.get(item)

    def id(self, item: str) -> int:
        """The id of a known item (KeyError otherwise)."""
        return self._index[item]

    def ids(self, items: Iterable[str]) -> np.ndarray:
        return np.fromiter((self._index[i] for i in items), dtype=np.int32)

    def names(self, ids: Iterable[int]) -> list[str]:
        items = self._items
        if isinstance(ids, np.ndarray):   # Python ints at once, not a numpy scalar per id
            return [items[i] for i in ids.astype(np.int64, copy=False).tolist()]
        return [items[int(i)] for i in ids]

    @property
    def items(self) -> list[str]:
        return self._items

    def __getitem__(self, i: int) -> str:
        return self._items[i]

    def __contains__(self, item: object) -> bool:
        return item in self._index

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self):
        return iter(self._items)

    def __repr__(self) -> str:
        return f"Vocabulary({len(self)} items)"
