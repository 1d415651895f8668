"""How well does each measure tell a transaction's real items from items added to it?

This is the question the set-generalisation attack asks of a measure, so it is how
the NGD zero co-occurrence rule was chosen (docs/measures.md).  On MEPS 2005
(``../shared/data/meps2005-conditions.txt``, one document per transaction), the
transactions are shuffled (seeded) and split in two halves; the first half is the
corpus of an FTS5 index (what NGD counts in, the attacker's "web"), the second half is
what gets attacked.  Two experiments:

* **release** (the attack's own setting, and the one that decides): the second half is
  set-generalised by ``semtui.anonymize`` (COAT-style, k = ``--k``, ``--privacy``
  random privacy constraints).  For every generalised item of every transaction, each
  member is scored by its mean distance to the transaction's plain items (its context);
  AUC = the chance that an added member (one not in the original transaction) scores
  higher than a real one of the same generalised item.
* **draw**: to every transaction of the second half with at least 2 items, ``--added``
  items are added, drawn in proportion to their support (``--draw uniform``: uniformly
  over the items); each item is scored by its mean distance to the rest of its
  augmented transaction; AUC = the chance that an added item scores higher than an
  original item of the same transaction.

Means leave out NaN (unknown terms) and negative NGD (unreliable, ALGORITHMS.md); ties
count one half.  0.5 is chance, 1 a perfect split, below 0.5 the attack would keep the
added items and eliminate the real ones.

Usage: python benchmarks/bench_measures_auc.py [--seed 0] [--k 5] [--privacy 1000]
       [--added 2] [--draw support|uniform]
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


def auc_draw(dist: np.ndarray, cases: list[tuple[np.ndarray, int]]) -> tuple[float, int]:
    """Within-transaction AUC over ``cases`` (item ids, the originals first, and their number)."""
    wins, pairs = 0.0, 0
    for ids, n_orig in cases:
        d = dist[np.ix_(ids, ids)].copy()
        np.fill_diagonal(d, np.nan)
        mean = _mean(d)
        w, n = _wins(mean[n_orig:], mean[:n_orig])
        wins, pairs = wins + w, pairs + n
    return (wins / pairs if pairs else float("nan")), pairs


def auc_release(dist: np.ndarray, cases: list[tuple[np.ndarray, np.ndarray, np.ndarray]]) -> tuple[float, int]:
    """AUC over generalised items: (member ids, which are real, context ids)."""
    wins, pairs = 0.0, 0
    for members, real, ctx in cases:
        mean = _mean(dist[np.ix_(members, ctx)].copy())
        w, n = _wins(mean[~real], mean[real])
        wins, pairs = wins + w, pairs + n
    return (wins / pairs if pairs else float("nan")), pairs


def _mean(d: np.ndarray) -> np.ndarray:
    d[d < 0] = np.nan
    cnt = (~np.isnan(d)).sum(axis=1)
    return np.where(cnt > 0, np.nansum(d, axis=1) / np.maximum(cnt, 1), np.nan)


def _wins(added: np.ndarray, orig: np.ndarray) -> tuple[float, int]:
    added, orig = added[~np.isnan(added)], orig[~np.isnan(orig)]
    if not len(added) or not len(orig):
        return 0.0, 0
    diff = added[:, None] - orig[None, :]
    return float((diff > 0).sum() + 0.5 * (diff == 0).sum()), diff.size


def release_cases(test: list[list[str]], pos: dict[str, int], k: int, n_privacy: int, seed: int):
    from semtui.anonymize.setgen import anonymize, random_privacy
    from semtui.model import TransactionData

    data = TransactionData.from_lists(test)
    result = anonymize(data, random_privacy(data, n_privacy, seed=seed), k)
    release = result.data
    names = release.vocab.items
    cases = []
    for i in range(release.n_transactions):
        tokens = release.transaction(i)
        if not (tokens < 0).any():
            continue
        ctx = np.array([pos[names[t]] for t in tokens if t >= 0], dtype=np.int64)
        if not len(ctx):
            continue
        original = set(test[i])
        for t in tokens[tokens < 0]:
            members = [names[m] for m in release.members(-int(t) - 1)]
            real = np.array([m in original for m in members])
            cases.append((np.array([pos[m] for m in members]), real, ctx))
    return cases, release.n_generalised


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--privacy", type=int, default=1000)
    ap.add_argument("--added", type=int, default=2)
    ap.add_argument("--draw", choices=("support", "uniform"), default="support",
                    help="added items in proportion to their support, or uniformly over the items")
    args = ap.parse_args(argv)
    if not args.data.exists():
        print(f"no data at {args.data}", file=sys.stderr)
        return 2

    from semtui.corpus import build_index
    from semtui.errors import InputError
    from semtui.measures.embedding import EmbeddingMeasure
    from semtui.measures.ngd import ZERO_RULES, NGDIndexMeasure
    from semtui.measures.terms import words

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
    p = support / support.sum() if args.draw == "support" else np.full(len(vocab), 1.0 / len(vocab))
    draw = []
    for t in test:
        if len(t) < 2:
            continue
        ids = [pos[x] for x in t]
        pool = np.setdiff1d(np.arange(len(vocab)), ids)
        added = rng.choice(pool, size=args.added, replace=False, p=p[pool] / p[pool].sum())
        draw.append((np.array(ids + added.tolist()), len(ids)))
    release, n_generalised = release_cases(test, pos, args.k, args.privacy, args.seed)
    mixed = [c for c in release if c[1].any() and not c[1].all()]
    print(f"data {args.data.name}: {len(transactions)} transactions, {len(vocab)} items, seed {args.seed}; "
          f"index on {len(train)} transactions")
    print(f"release: k={args.k}, {args.privacy} random privacy constraints, {n_generalised} generalised items, "
          f"{len(release)} generalised tokens, {len(mixed)} with both real and added members")
    print(f"draw: {len(draw)} transactions, +{args.added} items each, drawn by {args.draw}")

    measures: list[tuple[str, np.ndarray, str]] = []
    with tempfile.TemporaryDirectory() as tmp:
        index = Path(tmp) / "half.sqlite"
        (Path(tmp) / "half.txt").write_text("\n".join(", ".join(t) for t in train) + "\n", encoding="utf-8")
        build_index([Path(tmp) / "half.txt"], index, kind="lines")
        for rule in ZERO_RULES:
            m = NGDIndexMeasure(index, rule=rule)
            t0 = time.perf_counter()
            dist = m.distances(vocab, vocab)
            secs = time.perf_counter() - t0
            measures.append((f"ngd, zero rule {rule}", dist, f"{len(m.unknown(vocab))} unknown, {secs:.2f} s"))
            if rule == "cap":  # the former rule: never co-occurring pairs tied with the largest finite NGD
                capped = m.capped(dist)
                tied = dist.copy()
                off = ~np.eye(len(vocab), dtype=bool) & ~capped & np.isfinite(dist)
                tied[capped] = dist[off].max()
                measures.append(("ngd, cap tied with the largest finite NGD (former rule)", tied, ""))
        _, both = NGDIndexMeasure(index).index.counts(vocab)
        dist = NGDIndexMeasure(index, rule="one").distances(vocab, vocab)
        dist[both == 0] = np.nan
        measures.append(("ngd, never co-occurring pairs left out (reference)", dist, ""))

    e = EmbeddingMeasure()
    t0 = time.perf_counter()
    dist = e.distances(vocab, vocab)
    secs = time.perf_counter() - t0
    measures.append(("embedding (GloVe 6B 50d)", dist, f"{len(e.unknown(vocab))} unknown, {secs:.2f} s"))

    class AllWords(EmbeddingMeasure):
        def _rows(self, term):
            index, _ = self._load()
            return [index[w] for w in words(term, drop_stopwords=False) if w in index]

    measures.append(("embedding, stop words kept (reference)", AllWords().distances(vocab, vocab), ""))
    try:
        from semtui.measures.wordnet import WordNetMeasure

        w = WordNetMeasure()
        t0 = time.perf_counter()
        dist = w.distances(vocab, vocab)
        secs = time.perf_counter() - t0
        measures.append(("wordnet (Wu-Palmer)", dist, f"{len(w.unknown(vocab))} unknown, {secs:.2f} s"))
    except (ImportError, InputError) as exc:  # the optional extra is absent
        print(f"wordnet skipped: {exc}")

    print()
    print(f"| measure | AUC within generalised item, release (k={args.k}) | AUC within transaction, draw ({args.draw}) | notes |")
    print("|---|---|---|---|")
    for name, dist, note in measures:
        a_rel, n_rel = auc_release(dist, mixed)
        a_draw, n_draw = auc_draw(dist, draw)
        print(f"| {name} | {a_rel:.4f} ({n_rel} pairs) | {a_draw:.4f} ({n_draw} pairs) | {note} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
