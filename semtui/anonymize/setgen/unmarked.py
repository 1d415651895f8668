"""Unmarked releases (Ong's thesis §3.5.2, Fig. 3.7): a publisher may release set-generalised
transactions without marking the generalised items, each replaced by all its members as plain
items, hoping the groups stay hidden.  ``semtui attack setgen --unmarked`` measures whether they
do (:mod:`semtui.attacks.setgen.unknown`)."""

from __future__ import annotations

import numpy as np

from semtui.model import TransactionData


def flatten(data: TransactionData) -> TransactionData:
    """``data`` with every generalised item replaced by its members as plain items, in place of
    the generalised token (a member already in the transaction is kept once, where first seen)."""
    tokens = data.tokens.astype(np.int64)
    gen = tokens < 0
    g = np.where(gen, -tokens - 1, 0)
    sizes = np.diff(data.gen_indptr)
    width = np.where(gen, sizes[g] if len(sizes) else 0, 1)  # how many plain items each token becomes
    start = np.repeat(np.cumsum(width) - width, width)
    within = np.arange(int(width.sum()), dtype=np.int64) - start
    src = np.repeat(np.arange(len(tokens)), width)
    is_member = np.repeat(gen, width)
    flat = tokens[src]
    if is_member.any():
        flat[is_member] = data.gen_members[data.gen_indptr[g[src[is_member]]] + within[is_member]]
    rows = np.repeat(data.row_of_token(), width)
    # a transaction is a set: keep each item once, at its first place
    key = rows * max(len(data.vocab), 1) + flat
    _, first = np.unique(key, return_index=True)
    first.sort()
    rows, flat = rows[first], flat[first]
    indptr = np.zeros(data.n_transactions + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=data.n_transactions), out=indptr[1:])
    return TransactionData(data.vocab, indptr, flat.astype(np.int32), lines=data.lines, ids=data.ids)
