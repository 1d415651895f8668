"""What the attackers of the cover problem know (the cover-problem paper, section 6; ALGORITHMS.md
§3): the strong attacker knows every pair, the moderate one a random pair of each of a random half
of the original records, the weak one every pair of 10 random items of the release and 10 words
from outside it; a knowledge file gives another.  Each is the sorted codes of the item pairs it
holds together (:func:`knowledge_pairs`), which :func:`semtui.attacks.cover.run_cover` searches
for every cover problem's pairs at once (:func:`held`)."""

from __future__ import annotations

import numpy as np

from semtui.errors import InputError
from semtui.model import DisassociatedData
from semtui.model.transactions import in_sorted

#: the weak attacker's knowledge, as in the paper's experiments: 2-combinations of this many release
#: items and this many outside words
WEAK_DATASET_ITEMS = 10
WEAK_OUTSIDE_WORDS = 10
#: the moderate attacker: a random pair of this share of the original records
MODERATE_SHARE = 0.5


def pair_codes(a: np.ndarray, b: np.ndarray, n: int) -> np.ndarray:
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    return lo.astype(np.int64) * n + hi.astype(np.int64)


def knowledge_pairs(itemsets: list[np.ndarray], n_items: int) -> np.ndarray:
    """Sorted codes of every pair of items held together by some knowledge itemset."""
    from semtui.metrics.reassociation import row_pairs

    lengths = np.fromiter((len(s) for s in itemsets), dtype=np.int64, count=len(itemsets))
    ptr = np.zeros(len(itemsets) + 1, dtype=np.int64)
    np.cumsum(lengths, out=ptr[1:])
    flat = np.concatenate(itemsets).astype(np.int64) if itemsets and ptr[-1] else np.zeros(0, dtype=np.int64)
    _, a, b = row_pairs(ptr, flat)
    return np.unique(pair_codes(a, b, n_items))


def original_rows(indptr: np.ndarray, indices: np.ndarray) -> list[np.ndarray]:
    """The original's records, one int64 array each, from its CSR over the release vocabulary
    (:meth:`~semtui.model.TransactionData.incidence_arrays`: items the release lacks dropped)."""
    if len(indptr) <= 1:
        return []
    return np.split(np.asarray(indices, dtype=np.int64), np.asarray(indptr[1:-1], dtype=np.int64))


def moderate_knowledge(rows: list[np.ndarray], rng: np.random.Generator, share: float = MODERATE_SHARE) -> list[np.ndarray]:
    """One random 2-combination of each record of a random strict subset of the records."""
    n = len(rows)
    z = min(max(int(n * share), 1), max(n - 1, 1))
    chosen = np.sort(rng.choice(n, size=z, replace=False)) if n else np.zeros(0, dtype=np.int64)
    out = []
    for r in chosen.tolist():
        items = rows[r]
        if len(items) >= 2:
            out.append(np.sort(rng.choice(items, size=2, replace=False)))
    return out


def weak_knowledge(n_items: int, rng: np.random.Generator) -> tuple[list[np.ndarray], list[str]]:
    """Every 2-combination of 10 random items of the release and 10 outside words (190 itemsets).
    The outside words are ids beyond the vocabulary, so they can never meet a release item;
    which words they are cannot change the result, so they are named ``outside-1`` ... ."""
    from itertools import combinations

    picked = rng.choice(n_items, size=min(WEAK_DATASET_ITEMS, n_items), replace=False).tolist()
    outside = list(range(n_items, n_items + WEAK_OUTSIDE_WORDS))
    pool = sorted(picked) + outside
    return [np.asarray(c, dtype=np.int64) for c in combinations(pool, 2)], [f"outside-{i + 1}" for i in range(WEAK_OUTSIDE_WORDS)]


def read_knowledge(path, data: DisassociatedData) -> tuple[list[np.ndarray], int]:
    """Background knowledge from a file, one itemset per line (plain transactions, or FIMI ids);
    returns the itemsets over the release vocabulary and the number of lines read."""
    from semtui import formats

    know = formats.read_transactions(path)
    if know.n_generalised:
        raise InputError("background knowledge must be plain itemsets, not set-generalised", path)
    if know.n_transactions == 0:
        raise InputError("no itemsets in the background knowledge", path)
    lookup = np.fromiter((data.vocab.get(s) if s in data.vocab else -1 for s in know.vocab.items),
                         dtype=np.int64, count=len(know.vocab))
    out = []
    for i in range(know.n_transactions):
        t = lookup[know.transaction(i)]
        out.append(np.unique(t[t >= 0]))
    return out, know.n_transactions


def held(sorted_codes: np.ndarray, codes: np.ndarray, code_ptr: np.ndarray) -> np.ndarray:
    """Per run ``codes[code_ptr[i]:code_ptr[i + 1]]`` (a cover problem's pairs), whether the sorted
    array ``sorted_codes`` holds one of its codes: one sorted search over every run."""
    hit = in_sorted(sorted_codes, codes)
    out = np.zeros(len(code_ptr) - 1, dtype=bool)
    has = np.diff(code_ptr) > 0
    out[has] = np.logical_or.reduceat(hit, code_ptr[:-1][has])
    return out
