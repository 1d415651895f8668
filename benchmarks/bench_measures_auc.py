"""How well does each measure tell a transaction's real items from items added to it?

This is the question the set-generalisation attack asks of a measure, so it is how
the NGD zero co-occurrence rule was chosen (docs/measures.md).  On MEPS 2005
(``../shared/data/meps2005-conditions.txt``, one document per transaction):

1. shuffle the transactions (seeded) and split them in two halves;
2. build an FTS5 index from the first half (the corpus NGD counts in);
3. to every transaction of the second half with at least 2 items, add ``--added``
   items drawn at random in proportion to their support (so they look like real items,
   only not in this transaction);
4. score every item by its mean distance to the rest of its (augmented) transaction,
   leaving out NaN (unknown terms) and negative NGD (unreliable, ALGORITHMS.md);
5. AUC = the chance that an added item's mean distance exceeds an original item's of
   the same transaction (ties count one half).  0.5 is chance; 1 is a perfect split.

Usage: python benchmarks/bench_measures_auc.py [--data FILE] [--added 2] [--seed 0]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve()
DATA = HERE.parents[2] / "shared" / "data" / "meps2005-conditions.txt"


def load(path: Path) -> list[list[str]]:
    out = []
    for line in path.read_text(encoding="utf-8").split("\n"):
        items = list(dict.fromkeys(x.strip() for x in line.split(",") if x.strip()))
        if items:
            out.append(items)
    return out


def auc(dist: np.ndarray, cases: list[tuple[np.ndarray, int]]) -> tuple[float, int]:
    """Within-transaction AUC over ``cases`` (item ids, number of originals first)."""
    wins = 0.0
    pairs = 0
    for ids, n_orig in cases:
        d = dist[np.ix_(ids, ids)].copy()
        np.fill_diagonal(d, np.nan)
        d[d < 0] = np.nan
        valid = ~np.isnan(d)
        cnt = valid.sum(axis=1)
        mean = np.where(cnt > 0, np.nansum(d, axis=1) / np.maximum(cnt, 1), np.nan)
        orig, added = mean[:n_orig], mean[n_orig:]
        orig = orig[~np.isnan(orig)]
        added = added[~np.isnan(added)]
        if not len(orig) or not len(added):
            continue
        diff = added[:, None] - orig[None, :]
        wins += float((diff > 0).sum() + 0.5 * (diff == 0).sum())
        pairs += diff.size
    return (wins / pairs if pairs else float("nan")), pairs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--added", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    if not args.data.exists():
        print(f"no data at {args.data}", file=sys.stderr)
        return 2

    from semtui.corpus import build_index
    from semtui.errors import InputError
    from semtui.measures.embedding import EmbeddingMeasure
    from semtui.measures.ngd import ZERO_RULES, NGDIndexMeasure

    rng = np.random.default_rng(args.seed)
    transactions = load(args.data)
    order = rng.permutation(len(transactions))
    half = len(transactions) // 2
    train = [transactions[i] for i in order[:half]]
    test = [transactions[i] for i in order[half:]]
    vocab = sorted({x for t in transactions for x in t})
    pos = {x: i for i, x in enumerate(vocab)}
    support = np.zeros(len(vocab))
    for t in transactions:
        for x in t:
            support[pos[x]] += 1
    p = support / support.sum()
    cases = []
    for t in test:
        if len(t) < 2:
            continue
        ids = [pos[x] for x in t]
        pool = np.setdiff1d(np.arange(len(vocab)), ids)
        w = p[pool] / p[pool].sum()
        added = rng.choice(pool, size=args.added, replace=False, p=w)
        cases.append((np.array(ids + added.tolist()), len(ids)))
    print(f"data {args.data.name}: {len(transactions)} transactions, {len(vocab)} items; "
          f"index on {len(train)}, evaluated on {len(cases)} transactions (+{args.added} items each)")

    results: list[tuple[str, float, int, str]] = []
    with tempfile.TemporaryDirectory() as tmp:
        index = Path(tmp) / "half.sqlite"
        with open(Path(tmp) / "half.txt", "w", encoding="utf-8") as fh:
            fh.write("\n".join(", ".join(t) for t in train) + "\n")
        rep = build_index([Path(tmp) / "half.txt"], index, kind="lines")
        print(f"index: {rep.documents} documents in {rep.seconds:.2f} s")
        for rule in ZERO_RULES:
            m = NGDIndexMeasure(index, rule=rule)
            t0 = time.perf_counter()
            dist = m.distances(vocab, vocab)
            secs = time.perf_counter() - t0
            unknown = len(m.unknown(vocab))
            a, n = auc(dist, cases)
            results.append((f"ngd, zero rule {rule}", a, n, f"{unknown} unknown, matrix {secs:.2f} s"))
        # reference: leave never-co-occurring pairs out of the means altogether
        m = NGDIndexMeasure(index, rule="one")
        _, both = m.index.counts(vocab)
        dist = m.distances(vocab, vocab)
        dist[both == 0] = np.nan
        a, n = auc(dist, cases)
        results.append(("ngd, zero pairs left out (reference)", a, n, ""))

    e = EmbeddingMeasure()
    t0 = time.perf_counter()
    dist = e.distances(vocab, vocab)
    secs = time.perf_counter() - t0
    a, n = auc(dist, cases)
    results.append(("embedding (GloVe 6B 50d, stop words dropped)", a, n,
                    f"{len(e.unknown(vocab))} unknown, matrix {secs:.2f} s"))

    class AllWords(EmbeddingMeasure):
        def _rows(self, term):
            from semtui.measures.terms import words

            index, _ = self._load()
            return [index[w] for w in words(term, drop_stopwords=False) if w in index]

    dist = AllWords().distances(vocab, vocab)
    a, n = auc(dist, cases)
    results.append(("embedding, every word kept (reference)", a, n, ""))

    try:
        from semtui.measures.wordnet import WordNetMeasure

        w = WordNetMeasure()
        t0 = time.perf_counter()
        dist = w.distances(vocab, vocab)
        secs = time.perf_counter() - t0
        a, n = auc(dist, cases)
        results.append(("wordnet (Wu-Palmer)", a, n, f"{len(w.unknown(vocab))} unknown, matrix {secs:.2f} s"))
    except (ImportError, InputError) as exc:  # the optional extra is absent
        results.append(("wordnet", float("nan"), 0, f"skipped: {exc}"))

    print()
    print("| measure | AUC | pairs | notes |")
    print("|---|---|---|---|")
    for name, a, n, note in results:
        print(f"| {name} | {a:.4f} | {n} | {note} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
