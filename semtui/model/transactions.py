"""Plain and set-generalised transactions in CSR form.

A token ``t >= 0`` is a trivially generalised (plain) item with id ``t``; a token ``t < 0`` is
the generalised item ``g = -t - 1``, whose members are
``gen_members[gen_indptr[g]:gen_indptr[g + 1]]`` (setgen-attack-shao-ong-toit2017 Def. 3.3).
The *equivalence group* of a generalised item is the set of transactions that contain it.
Token order is the order of the file, which the ``nearest:N`` context needs.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import accumulate, chain

import numpy as np

from semtui.model.vocabulary import Vocabulary

#: A transaction as strings: plain items, and lists of members for generalised items.
Token = str | Sequence[str]


def generalised_label(members: Iterable[str]) -> str:
    """The papers' notation for a generalised item: ``(a, b, c)``."""
    return "(" + ", ".join(members) + ")"


def token_label(token: Token) -> str:
    """A token as the papers write it: a plain item as is, a generalised one in brackets."""
    return token if isinstance(token, str) else generalised_label(token)


def _csr_from_lists(lists: Sequence[Sequence[int]], dtype=np.int32) -> tuple[np.ndarray, np.ndarray]:
    # two numpy calls, not four: a disassociated release makes one of these per chunk (BMS-WebView-2:
    # ~7,000), where numpy's per-call cost outweighs the summing (34 -> 15 us a chunk)
    indptr = np.fromiter(accumulate(map(len, lists), initial=0), dtype=np.int64, count=len(lists) + 1)
    flat = np.fromiter(chain.from_iterable(lists), dtype=dtype, count=int(indptr[-1]))
    return indptr, flat


#: tokens turned into the incidence's columns at once
_INCIDENCE_BLOCK = 1 << 20


def column_counts(x) -> np.ndarray:
    """The entries of each column of a 0/1 CSR matrix (an incidence: the transactions holding
    each item), counted a block of entries at a time (``bincount``
    of the indices whole would copy them to int64)."""
    from semtui.fileio import drop_pages

    counts = np.zeros(x.shape[1], dtype=np.int64)
    for start in range(0, x.nnz, _INCIDENCE_BLOCK):
        counts += np.bincount(x.indices[start:start + _INCIDENCE_BLOCK], minlength=x.shape[1])
        drop_pages(x.indices)
    return counts


def row_blocks(x, rows: int) -> Iterator[tuple[int, object]]:
    """``(start, x[start:start + rows])`` over a CSR matrix; the pages of a memory-mapped one
    (:class:`OriginalMatrix` read from disk) let go after each block, so that a pass over a
    large original holds one block of it."""
    from semtui.fileio import drop_pages

    for start in range(0, x.shape[0], rows):
        yield start, x[start:start + rows]
        drop_pages(x)


def in_sorted(sorted_codes: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """Which of ``codes`` are in the sorted array ``sorted_codes`` (a binary search each: np.isin
    would sort the large array again for every call)."""
    if len(sorted_codes) == 0 or len(codes) == 0:
        return np.zeros(len(codes), dtype=bool)
    pos = np.minimum(np.searchsorted(sorted_codes, codes), len(sorted_codes) - 1)
    return sorted_codes[pos] == codes


@dataclass
class TransactionData:
    """Plain or set-generalised transactions (see the module docstring for the encoding).

    ``lines`` holds the 1-based source line of each transaction (None when built in
    memory); ``ids`` the JSON Lines ``id`` values when the file had them.
    """

    vocab: Vocabulary
    indptr: np.ndarray
    tokens: np.ndarray
    gen_indptr: np.ndarray = field(default_factory=lambda: np.zeros(1, dtype=np.int64))
    gen_members: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int32))
    lines: np.ndarray | None = None
    ids: list | None = None
    _groups: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False, compare=False)
    #: a k^m release's hierarchy node of each generalised item (None: not known), see formats/km.py
    gen_labels: list[str] | None = field(default=None, repr=False, compare=False)

    # ------------------------------------------------------------------ building
    @classmethod
    def from_lists(
        cls,
        transactions: Iterable[Sequence[Token]],
        vocab: Vocabulary | None = None,
        ids: list | None = None,
    ) -> TransactionData:
        """Build from Python lists: a str is a plain item, a list/tuple a generalised item.

        Two generalised items with the same members (in any order) are the same
        generalised item.
        """
        builder = TransactionBuilder(vocab)
        for t in transactions:
            builder.add(t)
        return builder.build(ids=ids)

    # ------------------------------------------------------------------ facts
    @property
    def kind(self) -> str:
        return "set-generalised" if self.n_generalised else "transactions"

    @property
    def n_transactions(self) -> int:
        return len(self.indptr) - 1

    def __len__(self) -> int:
        return self.n_transactions

    @property
    def n_generalised(self) -> int:
        return len(self.gen_indptr) - 1

    @property
    def lengths(self) -> np.ndarray:
        """Tokens per transaction (a generalised item counts once)."""
        return np.diff(self.indptr)

    def row_of_token(self) -> np.ndarray:
        """The transaction index of every token (same length as ``tokens``)."""
        return np.repeat(np.arange(self.n_transactions, dtype=np.int64), self.lengths)

    def incidence(self, vocab: Vocabulary | None = None):
        """The plain items as a 0/1 CSR matrix (transactions x ``vocab``, default its own);
        items ``vocab`` does not know are left out.  Generalised tokens are not included."""
        from scipy.sparse import csr_matrix

        vocab = self.vocab if vocab is None else vocab
        indptr, indices = self.incidence_arrays(vocab)
        m = csr_matrix((np.ones(len(indices), dtype=np.int8), indices, indptr),
                       shape=(self.n_transactions, len(vocab)))
        m.sum_duplicates()  # sorted within each row, a repeated item once (in place)
        m.data[:] = 1
        return m

    def incidence_codes(self, vocab: Vocabulary) -> np.ndarray:
        """The plain items as sorted distinct codes ``row * len(vocab) + item`` over ``vocab``
        (:meth:`incidence`'s entries in order, without scipy)."""
        indptr, indices = self.incidence_arrays(vocab)
        rows = np.repeat(np.arange(len(indptr) - 1, dtype=np.int64), np.diff(indptr))
        return np.unique(rows * len(vocab) + indices)

    def member_expansion(self) -> int:
        """How many (row, member) pairs the generalised tokens hold: what :meth:`members_held`
        expands them to."""
        g = -self.tokens[self.tokens < 0].astype(np.int64) - 1
        return int(np.diff(self.gen_indptr)[g].sum())

    def members_held(self, codes: np.ndarray) -> np.ndarray:
        """For every generalised token (in token order), how many of its members the rows of
        ``codes`` hold (sorted ``row * len(self.vocab) + item`` codes, as :meth:`incidence_codes`
        gives an original's): each token expanded to its (row, member) codes and looked up."""
        gen = self.tokens < 0
        g = -self.tokens[gen].astype(np.int64) - 1
        counts = (self.gen_indptr[g + 1] - self.gen_indptr[g]).astype(np.int64)
        starts = np.repeat(self.gen_indptr[g].astype(np.int64), counts)
        offs = np.arange(int(counts.sum()), dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts)
        members = self.gen_members[starts + offs].astype(np.int64)
        held = in_sorted(codes, np.repeat(self.row_of_token()[gen], counts) * len(self.vocab) + members)
        return np.bincount(np.repeat(np.arange(len(g), dtype=np.int64), counts)[held], minlength=len(g))

    def incidence_arrays(self, vocab: Vocabulary) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`incidence`'s CSR arrays as the tokens give them (``indptr``, ``indices`` over
        ``vocab``; within a row in token order, a repeated item repeated), without scipy: what
        the belonging check of a set-generalised release reads before the first screen, which
        need not wait for scipy's import (~0.1 s)."""
        wide = len(vocab) >= 2**31 or len(self.tokens) >= 2**31
        idx = np.int64 if wide else np.int32
        lookup = np.fromiter((vocab.get(s) if s in vocab else -1 for s in self.vocab.items),
                             dtype=idx, count=len(self.vocab))
        lookup = np.append(lookup, np.asarray(-1, dtype=idx))  # a generalised token (< 0) reads this
        # built as CSR directly, rows already in order, a block of tokens at a time: the matrix
        # and one block's temporaries are all that is held (through COO it took ~100 bytes a
        # token, MEPS x 32's original peaking at +159 MB for a 26 MB matrix)
        tokens, n, block = self.tokens, len(self.tokens), _INCIDENCE_BLOCK

        def cols_of(start: int) -> np.ndarray:
            t = tokens[start:start + block]
            return lookup[np.where(t >= 0, t, len(lookup) - 1)]

        kept = np.zeros(-(-n // block) + 1, dtype=np.int64)  # kept tokens before each block
        for b, start in enumerate(range(0, n, block)):
            kept[b + 1] = kept[b] + int(np.count_nonzero(cols_of(start) >= 0))
        indices = np.empty(int(kept[-1]), dtype=idx)
        indptr = np.zeros(self.n_transactions + 1, dtype=idx)
        bounds = self.indptr
        for b, start in enumerate(range(0, n, block)):
            cols = cols_of(start)
            keep = cols >= 0
            indices[kept[b]:kept[b + 1]] = cols[keep]
            # the rows that start in this block: their start, counted in kept tokens
            first, last = np.searchsorted(bounds, [start, start + block], side="left")
            before = np.zeros(len(cols) + 1, dtype=idx)
            np.cumsum(keep, dtype=idx, out=before[1:])
            indptr[first:last] = kept[b] + before[bounds[first:last] - start]
        # the rows that start where the tokens end (empty last rows, and the end itself)
        indptr[int(np.searchsorted(bounds, n, side="left")):] = kept[-1]
        return indptr, indices

    def line_of(self, i: int) -> int:
        """The 1-based source line of transaction ``i`` (its position when built in memory)."""
        return int(self.lines[i]) if self.lines is not None else int(i) + 1

    def transaction(self, i: int) -> np.ndarray:
        return self.tokens[self.indptr[i] : self.indptr[i + 1]]

    def members(self, g: int) -> np.ndarray:
        return self.gen_members[self.gen_indptr[g] : self.gen_indptr[g + 1]]

    def member_names(self, g: int) -> list[str]:
        return self.vocab.names(self.members(g))

    def label(self, g: int) -> str:
        """The papers' notation for a generalised item: ``(a, b, c)``."""
        return generalised_label(self.member_names(g))

    def labels(self) -> list[str]:
        """Every generalised item's :meth:`label`, in order (built in one pass over the members)."""
        names, ip, mem = self.vocab.items, self.gen_indptr.tolist(), self.gen_members.tolist()
        return [generalised_label(names[m] for m in mem[ip[g]:ip[g + 1]]) for g in range(self.n_generalised)]

    def token_names(self, i: int) -> list[Token]:
        """Transaction ``i`` as strings (generalised items as lists of members)."""
        out: list[Token] = []
        for t in self.transaction(i):
            t = int(t)
            out.append(self.vocab[t] if t >= 0 else self.member_names(-t - 1))
        return out

    def plain_items(self, i: int) -> np.ndarray:
        """The trivially generalised items of transaction ``i`` (its context)."""
        t = self.transaction(i)
        return t[t >= 0]

    def groups(self) -> tuple[np.ndarray, np.ndarray]:
        """Equivalence groups in CSR: transactions of generalised item g are
        ``rows[indptr[g]:indptr[g+1]]`` (ascending)."""
        if self._groups is None:
            mask = self.tokens < 0
            g = -self.tokens[mask].astype(np.int64) - 1
            rows = self.row_of_token()[mask]
            order = np.lexsort((rows, g))
            counts = np.bincount(g, minlength=self.n_generalised)
            indptr = np.zeros(self.n_generalised + 1, dtype=np.int64)
            np.cumsum(counts, out=indptr[1:])
            self._groups = (indptr, rows[order])
        return self._groups

    def group(self, g: int) -> np.ndarray:
        indptr, rows = self.groups()
        return rows[indptr[g] : indptr[g + 1]]

    def group_sizes(self) -> np.ndarray:
        return np.diff(self.groups()[0])

    def item_supports(self) -> np.ndarray:
        """Support of every vocabulary item as a plain (trivially generalised) token."""
        plain = self.tokens[self.tokens >= 0]
        return np.bincount(plain, minlength=len(self.vocab))

    def generalisation(self) -> dict[str, list[str]]:
        """Generalised item label -> member names."""
        return {self.label(g): self.member_names(g) for g in range(self.n_generalised)}


class TransactionBuilder:
    """Accumulates transactions token by token into flat arrays (used by the readers)."""

    def __init__(self, vocab: Vocabulary | None = None, *, shared_lists: bool = False):
        """``shared_lists``: the caller hands the same list object for every transaction that
        holds the same generalised item written alike, and never changes one it has handed
        (the set-generalised text reader's memo): its token is then found by the list's identity."""
        self.vocab = vocab if vocab is not None else Vocabulary()
        self._shared_lists = shared_lists
        # machine integers, 4 bytes a token (a list of Python ints took ~36: reading MEPS x 32's
        # original peaked at 458 MB for a 64 MB result)
        self._tokens = array("i")
        self._lengths = array("i")
        self._gen_index: dict[frozenset, int] = {}
        self._gen_members: list[list[int]] = []
        self._gen_by_names: dict[tuple, int] = {}   # members as written -> token
        # shared_lists: a member list's identity -> (the list, its token), the token found without
        # hashing the members again; the list is held, so its id is never another's
        self._gen_by_object: dict[int, tuple[object, int]] = {}
        self.lines = array("i")

    def generalised(self, members: Sequence[str]) -> int:
        """The token of the generalised item with these members (created on first use)."""
        named = tuple(members)
        g = self._gen_by_names.get(named)
        if g is not None:  # the same members written alike: a release repeats each item thousands of times
            return g
        ids = [self.vocab.add(m) for m in members]
        key = frozenset(ids)
        g = self._gen_index.get(key)
        if g is None:
            g = len(self._gen_members)
            self._gen_index[key] = g
            seen: set[int] = set()
            self._gen_members.append([i for i in ids if not (i in seen or seen.add(i))])
        self._gen_by_names[named] = -g - 1
        return -g - 1

    def add(self, transaction: Sequence[Token], line: int | None = None) -> None:
        """Add one transaction.  A transaction is a set: repeated tokens are kept once,
        and a generalised item with a single member is that (plain) item."""
        vocab_add = self.vocab.add
        by_object = self._gen_by_object
        seen: set[int] = set()
        tokens = self._tokens
        for tok in transaction:
            if isinstance(tok, str):
                t = vocab_add(tok)
            elif (hit := by_object.get(id(tok))) is not None and hit[0] is tok:
                t = hit[1]
            elif len(set(tok)) == 1:
                t = vocab_add(next(iter(tok)))
            else:
                t = self.generalised(tok)
                if self._shared_lists and len(by_object) < 1 << 16:
                    by_object[id(tok)] = (tok, t)
            if t not in seen:
                seen.add(t)
                tokens.append(t)
        self._lengths.append(len(seen))
        if line is not None:
            self.lines.append(line)

    def add_tokens(self, tokens: Sequence[int], line: int | None = None) -> None:
        self._tokens.extend(tokens)
        self._lengths.append(len(tokens))
        if line is not None:
            self.lines.append(line)

    def build(self, ids: list | None = None) -> TransactionData:
        indptr = np.zeros(len(self._lengths) + 1, dtype=np.int64)
        np.cumsum(np.frombuffer(self._lengths, dtype=np.int32), out=indptr[1:])
        tokens = np.frombuffer(self._tokens, dtype=np.int32).copy()
        gen_indptr, gen_members = _csr_from_lists(self._gen_members)
        lines = np.frombuffer(self.lines, dtype=np.int32).copy() if len(self.lines) else None
        return TransactionData(self.vocab, indptr, tokens, gen_indptr, gen_members, lines, ids)


@dataclass
class OriginalMatrix:
    """An original held only as its 0/1 incidence over a release's vocabulary: what an attack
    on a large disassociated release needs of it (the plain items the release knows, ~5 bytes
    a token), without the token arrays beside it.  It answers what
    :func:`semtui.model.belongs.check_belongs` asks of an original (its number of transactions,
    whether it held generalised items, a transaction's source line) and gives its matrix for
    the release's vocabulary (:meth:`incidence`)."""

    vocab: Vocabulary
    matrix: object        # scipy CSR, transactions x vocab, sorted indices, data 1 (int8)
    lines: np.ndarray | None = None
    n_generalised: int = 0   # generalised items it held (an original must hold none)

    @property
    def n_transactions(self) -> int:
        return int(self.matrix.shape[0])

    @property
    def kind(self) -> str:
        return "set-generalised" if self.n_generalised else "transactions"

    def line_of(self, i: int) -> int:
        """The 1-based source line of transaction ``i``."""
        return int(self.lines[i]) if self.lines is not None else int(i) + 1

    def incidence(self, vocab: Vocabulary | None = None):
        if vocab is not None and vocab is not self.vocab:
            raise ValueError("an OriginalMatrix is over one vocabulary, the release's it was read for")
        return self.matrix

    @classmethod
    def on_disk(cls, vocab: Vocabulary, indptr, indices, lines, n_generalised: int = 0) -> OriginalMatrix:
        """From :class:`semtui.fileio.DiskArray` s (``indptr`` int64, ``indices`` int32, sorted
        and distinct per row; ``lines`` int32): a CSR matrix over their memory-mapped views.
        The index arrays are given one type first (int32 while the entries fit, as scipy would
        make them, but a block at a time on disk rather than whole in memory), and the 1s of
        the matrix are on disk too."""
        from scipy.sparse import csr_matrix

        from semtui.fileio import DiskArray

        nnz = int(indptr.view()[-1])
        if nnz < 2**31:
            indptr = indptr.astype(np.int32)
        else:
            indices = indices.astype(np.int64)
        ones = DiskArray(np.int8, "the original's entries")
        for start in range(0, nnz, _INCIDENCE_BLOCK):
            ones.extend(np.ones(min(_INCIDENCE_BLOCK, nnz - start), dtype=np.int8))
        n = len(indptr) - 1
        matrix = csr_matrix((ones.view(), indices.view(), indptr.view()), shape=(n, len(vocab)), copy=False)
        matrix.has_sorted_indices = True
        matrix.has_canonical_format = True
        return cls(vocab, matrix, lines.view(), n_generalised)

    @classmethod
    def of(cls, data: TransactionData, vocab: Vocabulary) -> OriginalMatrix:
        """From transactions read whole (a format not read a line at a time)."""
        return cls(vocab, data.incidence(vocab), data.lines, data.n_generalised)
