"""Do a release, its original and its key belong together?  One check for every face.

Every command and screen that reads a release with its original and/or its private key calls
:func:`check_belongs` before it uses them, so that an original of another length, a shuffled
or foreign original, or the key of another release is refused (one :class:`InputError` naming
the file that does not fit, and why) instead of giving figures that look plausible and mean
nothing -- or, worse, an all-clear.

The rules (docs/cli.md states them for the user):

* **an original** is plain transactions with exactly as many transactions as the release
  describes;
* of a **set-generalised release** (set-based or k^m generalisation) it is the original line
  for line: each plain item of release transaction i is in original transaction i, and each
  generalised item there has at least one of its members in it;
* of a **disassociated release** it holds every occurrence the release shows: an item that
  appears s times in the release (sub-records, plus one per term chunk that lists it) is in
  at least s original transactions;
* **a key** describes exactly the release's clusters (the same ids, as many sub-records per
  record chunk, as many term-chunk terms) and names no transaction beyond the release;
* **a key with an original**: every item of every sub-record and term is in the original
  transaction the key names;
* **a set-generalisation sidecar** (``RELEASE.json``, what ``anonymize setgen`` writes beside
  its release) describes as many transactions as the release, and every generalised item of
  the release is one of its generalisation's.

Everything is counted over integer codes (row * vocabulary + item) with numpy; no Python loop
runs over transactions or items.
"""

from __future__ import annotations

import numpy as np

from semtui.errors import InputError
from semtui.model.disassociated import DisassociatedData, DisassociationKey
from semtui.model.transactions import TransactionData, column_counts, in_sorted

#: occurrences (sub-record items, term holders) counted or checked at once: a release kept on
#: disk (a Spool) is read a block of clusters at a time (100,000: the key's lists of a block,
#: as Python ints, peaked at ~170 MB with 500,000 on a resampled MEPS x 64, and were no faster)
_BLOCK = 100_000


def check_belongs(
    release: TransactionData | DisassociatedData,
    *,
    original: TransactionData | None = None,
    key: DisassociationKey | None = None,
    release_path=None,
    original_path=None,
    key_path=None,
    sidecar: dict | None = None,
    sidecar_path=None,
    by_item: bool = True,
    incidence=None,
) -> None:
    """Raise :class:`InputError` naming the file (the original or the key) that does not
    belong to ``release``; return quietly when everything given fits.  ``by_item=False``
    checks the original's shape only (plain, as many transactions): for the generalised items
    recovered from an unmarked release, whose plain items may be added ones.  ``incidence``: the
    original over a disassociated release's vocabulary
    (:meth:`TransactionData.incidence`), when the caller has built it already."""
    rel = "the release" if release_path is None else str(release_path)
    if key is not None:
        if not isinstance(release, DisassociatedData):
            raise InputError(f"a key is for a disassociated release; {rel} is {release.kind}", key_path)
        _key_fits(release, key, rel, key_path)
    if sidecar is not None:
        _sidecar_fits(release, sidecar, rel, sidecar_path)
    if original is None:
        return
    if original.n_generalised:
        raise InputError("the original must be plain transactions, not set-generalised", original_path)
    if original.n_transactions != release.n_transactions:
        why = ("its cluster sizes add up to that" if isinstance(release, DisassociatedData)
               else "the original must align line for line")
        raise InputError(f"the original has {original.n_transactions} transactions but {rel} has "
                         f"{release.n_transactions} ({why}): it does not belong there",
                         original_path)
    if not by_item:
        return
    if isinstance(release, DisassociatedData):
        # the original over the release's items (sorted, distinct within a row): its rows are the
        # codes row * V + item in order, so nothing the size of the original is built beside it
        x = original.incidence(release.vocab) if incidence is None else incidence
        _occurrences_covered(release, x, rel, original_path)
        if key is not None:
            _placed_where_key_says(release, key, original, x, rel, original_path, key_path)
    else:
        _aligned(release, original, rel, original_path)


# ---------------------------------------------------------------------------- helpers
def _to_release_ids(release_vocab, original: TransactionData) -> np.ndarray:
    """Release id of each original vocabulary id (-1: an item the release does not have)."""
    return np.fromiter((release_vocab.get(s) if s in release_vocab else -1 for s in original.vocab.items),
                       dtype=np.int64, count=len(original.vocab))


def _aligned(release: TransactionData, original: TransactionData, rel: str, original_path) -> None:
    v = len(release.vocab)
    codes = original.incidence_codes(release.vocab)
    rows = release.row_of_token()
    tokens = release.tokens.astype(np.int64)
    plain = tokens >= 0
    bad_plain = rows[plain][~in_sorted(codes, rows[plain] * v + tokens[plain])]
    # generalised tokens: is any member held?  Either expand each token to (row, member) codes,
    # or each original occurrence to the generalised items holding its item: whichever is smaller
    # (a k^m release's high nodes have hundreds of members and occur in most transactions)
    gen_rows = rows[~plain]
    g = -tokens[~plain] - 1
    n_gen = release.n_generalised
    holders = np.bincount(release.gen_members.astype(np.int64), minlength=v) if n_gen else np.zeros(v, np.int64)
    by_original = int(holders[codes % v].sum()) if v else 0
    if n_gen and by_original < release.member_expansion():
        any_held = _held_by_original(release, codes, v, gen_rows, g)
    else:
        any_held = release.members_held(codes) > 0
    bad_gen = gen_rows[~any_held]
    bad = np.concatenate([bad_plain, bad_gen])
    if bad.size:
        i = int(bad.min())
        raise InputError(
            f"transaction {i + 1} of {rel} does not come from this line of the original ({bad.size} items "
            f"disagree in all: a shuffled original, or another dataset's?); it does not belong to {rel} "
            "(an original must align line for line)", original_path,
            original.line_of(i))


def _held_by_original(release: TransactionData, codes: np.ndarray, v: int, gen_rows: np.ndarray,
                      g: np.ndarray) -> np.ndarray:
    """For each generalised token (row ``gen_rows``, item ``g``): whether the original row holds
    one of its members, from the (row, generalised item) pairs the original's occurrences give."""
    n_gen = release.n_generalised
    owner = np.repeat(np.arange(n_gen, dtype=np.int64), np.diff(release.gen_indptr))
    mem = release.gen_members.astype(np.int64)
    order = np.argsort(mem, kind="stable")
    by_item = np.zeros(v + 1, dtype=np.int64)
    np.cumsum(np.bincount(mem, minlength=v), out=by_item[1:])
    owners = owner[order]  # generalised items holding each item: owners[by_item[i]:by_item[i + 1]]
    o_rows, o_items = codes // v, codes % v
    cnt = by_item[o_items + 1] - by_item[o_items]
    starts = np.repeat(by_item[o_items], cnt)
    offs = np.arange(int(cnt.sum()), dtype=np.int64) - np.repeat(np.cumsum(cnt) - cnt, cnt)
    pairs = np.unique(np.repeat(o_rows, cnt) * n_gen + owners[starts + offs])
    return in_sorted(pairs, gen_rows * n_gen + g)


def _release_occurrences(release: DisassociatedData) -> np.ndarray:
    """How many times each release item appears: once per sub-record holding it, once per
    term chunk listing it (counted a block of clusters at a time: a release kept on disk is
    never whole)."""
    v = len(release.vocab)
    shown = np.zeros(v, dtype=np.int64)
    parts: list[np.ndarray] = []
    held = 0

    def count() -> None:
        nonlocal shown, held
        if parts:
            shown += np.bincount(np.concatenate(parts).astype(np.int64), minlength=v)
        parts.clear()
        held = 0

    for c in release.clusters:
        for ch in c.record_chunks:
            parts.append(ch.items)
            held += len(ch.items)
        parts.append(c.term_chunk)
        held += len(c.term_chunk)
        if held >= _BLOCK:
            count()
    for j in release.joint_clusters:
        for ch in j.shared_chunks:
            parts.append(ch.items)
            held += len(ch.items)
        if held >= _BLOCK:
            count()
    count()
    return shown


def _occurrences_covered(release: DisassociatedData, x, rel: str, original_path) -> None:
    shown = _release_occurrences(release)
    support = column_counts(x)  # transactions holding each item
    short = np.flatnonzero(shown > support)
    if short.size:
        it = int(short[0])
        where = ("is in no transaction of the original" if support[it] == 0
                 else f"is in only {int(support[it])} transactions of the original")
        raise InputError(
            f"{release.vocab[it]!r} occurs {int(shown[it])} times in {rel} but {where} "
            f"({short.size} items in all); the original does not belong to {rel}", original_path)


def key_clusters(release: DisassociatedData, key: DisassociationKey):
    """(cluster, its cluster of the key or None) in the release's order (a key kept on disk
    is read a cluster at a time: :attr:`DisassociationKey.by_id`)."""
    by_id = key.by_id
    for c in release.clusters:
        yield c, by_id.get(c.id)


def _key_fits(release: DisassociatedData, key: DisassociationKey, rel: str, key_path) -> None:
    for c, ck in key_clusters(release, key):
        if ck is None:
            raise InputError(f"the key has no cluster {c.id!r}: the key does not belong to {rel}", key_path)
        if [len(ch) for ch in ck.record_chunks] != [len(ch) for ch in c.record_chunks]:
            raise InputError(f"cluster {c.id!r}: the key's record chunks do not match the release "
                             f"({[len(ch) for ch in ck.record_chunks]} sub-records, the release has "
                             f"{[len(ch) for ch in c.record_chunks]}): the key does not belong to {rel}", key_path)
        if len(ck.term_chunk) != len(c.term_chunk):
            raise InputError(f"cluster {c.id!r}: the key's term chunk has {len(ck.term_chunk)} terms, the "
                             f"release's {len(c.term_chunk)}: the key does not belong to {rel}", key_path)
    jby_id = key.joint_by_id
    for jc in release.joint_clusters:
        jk = jby_id.get(jc.id)
        if jk is None:
            raise InputError(f"the key has no joint cluster {jc.id!r}: the key does not belong to {rel}", key_path)
        if [len(ch) for ch in jk.shared_chunks] != [len(ch) for ch in jc.shared_chunks]:
            raise InputError(f"joint cluster {jc.id!r}: the key's shared chunks do not match the release "
                             f"({[len(ch) for ch in jk.shared_chunks]} sub-records, the release has "
                             f"{[len(ch) for ch in jc.shared_chunks]}): the key does not belong to {rel}", key_path)
    n = release.n_transactions
    from itertools import chain

    every = chain(chain.from_iterable(chain.from_iterable((*ck.record_chunks, *ck.term_chunk, ck.records or [])
                                                          for ck in key.clusters)),
                  chain.from_iterable(chain.from_iterable(jk.shared_chunks for jk in key.joint_clusters)))
    if max(every, default=-1) < n:  # one pass in C; the cluster at fault is looked for only if needed
        return
    for ck in [*key.clusters, *key.joint_clusters]:
        lists = ck.shared_chunks if hasattr(ck, "shared_chunks") else (*ck.record_chunks, *ck.term_chunk,
                                                                        ck.records or [])
        top = max((max(ch) for ch in lists if ch), default=-1)
        if top >= n:
            what = "joint cluster" if hasattr(ck, "shared_chunks") else "cluster"
            raise InputError(f"{what} {ck.id!r}: the key names transaction {top}, out of range: the release "
                             f"has {n} transactions (0 to {n - 1}); the key does not belong to {rel}", key_path)


def _rows_codes(x, rows: np.ndarray) -> np.ndarray:
    """The sorted codes ``row * V + item`` of the sorted distinct ``rows`` of ``x`` (CSR with
    sorted indices)."""
    from semtui.fileio import drop_pages

    starts, ends = x.indptr[rows].astype(np.int64), x.indptr[rows + 1].astype(np.int64)
    lens = ends - starts
    offs = np.arange(int(lens.sum()), dtype=np.int64) - np.repeat(np.cumsum(lens) - lens, lens)
    codes = np.repeat(rows, lens) * x.shape[1] + x.indices[np.repeat(starts, lens) + offs]
    drop_pages(x)  # a memory-mapped original: only a block's rows held at a time
    return codes


def _placed_where_key_says(release: DisassociatedData, key: DisassociationKey, original: TransactionData,
                           x, rel: str, original_path, key_path) -> None:
    """Every item of every sub-record and term is in the transaction the key names: checked a
    block of clusters at a time (every sub-record's transaction repeated per item, every term's
    holders), as flat lists turned into arrays once a block (no per-chunk numpy calls)."""
    from itertools import chain

    v = len(release.vocab)
    sub_t, sub_len, sub_items, term_lists, term_items = [], [], [], [], []
    size = 0

    def flat(parts) -> np.ndarray:
        return np.concatenate(parts).astype(np.int64) if parts else np.zeros(0, dtype=np.int64)

    def check() -> None:
        holders = list(chain.from_iterable(term_lists))
        t_lens = np.fromiter(map(len, holders), dtype=np.int64, count=len(holders))
        t_all = np.concatenate([
            np.repeat(np.fromiter(chain.from_iterable(sub_t), dtype=np.int64), flat(sub_len)),
            np.fromiter(chain.from_iterable(holders), dtype=np.int64, count=int(t_lens.sum()))])
        i_all = np.concatenate([flat(sub_items), np.repeat(flat(term_items), t_lens)])
        rows = np.unique(t_all)
        held = in_sorted(_rows_codes(x, rows[(rows >= 0) & (rows < x.shape[0])]), t_all * v + i_all)
        if not held.all():
            bad = int(np.flatnonzero(~held)[0])
            key_name = "the key" if key_path is None else str(key_path)
            raise InputError(
                f"{int((~held).sum())} items of {rel} are not in the original transaction {key_name} names "
                f"(first: {release.vocab[int(i_all[bad])]!r} in transaction {int(t_all[bad])}; "
                f"a shuffled original, or another release's key and original?); they do not belong to {rel}",
                original_path,
                original.line_of(int(t_all[bad])))
        for parts in (sub_t, sub_len, sub_items, term_lists, term_items):
            parts.clear()

    def add(ts, ch) -> None:
        nonlocal size
        sub_t.append(ts)
        sub_len.append(np.diff(ch.indptr))
        sub_items.append(ch.items)
        size += len(ch.items)

    for c, ck in key_clusters(release, key):
        for j, ch in enumerate(c.record_chunks):
            add(ck.record_chunks[j], ch)
        term_lists.append(ck.term_chunk)
        term_items.append(c.term_chunk)
        size += sum(map(len, ck.term_chunk))
        if size >= _BLOCK:
            check()
            size = 0
    for jc in release.joint_clusters:
        jk = key.joint_by_id[jc.id]
        for j, ch in enumerate(jc.shared_chunks):
            add(jk.shared_chunks[j], ch)
        if size >= _BLOCK:
            check()
            size = 0
    check()


def _sidecar_fits(release, sidecar: dict, rel: str, sidecar_path) -> None:
    if not isinstance(release, TransactionData):
        raise InputError(f"a set-generalisation sidecar is for a set-generalised release; {rel} is {release.kind}",
                         sidecar_path)
    if str(sidecar.get("format", "")).startswith("semtui-km-report/"):
        _km_sidecar_fits(release, sidecar, rel, sidecar_path)
        return
    n = (sidecar.get("stats") or {}).get("n_transactions")
    if isinstance(n, int) and n != release.n_transactions:
        raise InputError(f"the sidecar describes {n} transactions but {rel} has {release.n_transactions}: "
                         f"it does not belong to {rel} (a stale sidecar?)", sidecar_path)
    gen = sidecar.get("generalisation")
    if isinstance(gen, dict):
        known = {frozenset(m) for m in gen.values() if isinstance(m, list)}
        names = release.vocab.items
        ip, mem = release.gen_indptr.tolist(), release.gen_members.tolist()
        for g in range(release.n_generalised):
            members = frozenset(names[i] for i in mem[ip[g]:ip[g + 1]])
            if members not in known:
                raise InputError(f"the generalised item {release.label(g)!r} of {rel} is not in the sidecar's "
                                 f"generalisation: it does not belong to {rel} (a stale sidecar?)", sidecar_path)


def _km_sidecar_fits(release: TransactionData, sidecar: dict, rel: str, sidecar_path) -> None:
    """A k^m report beside its release: as many transactions, and every generalised item one
    of the cut's nodes (by label when the release names them; by count for leaf lists)."""
    from semtui.model.sidecar import km_nodes

    n = sidecar.get("n_transactions")
    if isinstance(n, int) and n != release.n_transactions:
        raise InputError(f"the k^m report describes {n} transactions but {rel} has {release.n_transactions}: "
                         f"it does not belong to {rel} (a stale report?)", sidecar_path)
    nodes = km_nodes(sidecar)
    if release.gen_labels is not None:
        stray = [x for x in dict.fromkeys(release.gen_labels) if x not in nodes]
        if stray:
            raise InputError(f"node {stray[0]!r} of {rel} is not in the k^m report's cut: it does not belong to "
                             f"{rel} (a stale report?)", sidecar_path)
    elif release.n_generalised > len(nodes):
        raise InputError(f"{rel} has {release.n_generalised} generalised items but the k^m report's cut only "
                         f"{len(nodes)} nodes: it does not belong to {rel} (a stale report?)", sidecar_path)
