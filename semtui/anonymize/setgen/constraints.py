"""Privacy and utility constraints for set-based generalisation (COAT, Loukides et al. 2011).

A *privacy constraint* is an itemset that must end with support >= k or 0 in the
released data (setgen-attack-shao-ong-toit2017, Def. 3.2).  A *utility constraint* is a
set of items that may be generalised together; the utility constraints are disjoint, and
an item listed in none of them may not be generalised at all (it can only be kept or
suppressed).

Constraint files are plain text, one itemset per line, items separated by commas, the
same notation as a plain transaction file (brackets are taken literally).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from semtui.errors import InputError
from semtui.formats.text import read_plain
from semtui.model import TransactionData

#: The thesis' sizes (§5.1.2): 3- to 6-item privacy constraints.
DEFAULT_SIZES = (3, 6)


def read_itemsets(path: str | Path) -> tuple[list[list[str]], list[int]]:
    """Itemsets of a constraint file, with the 1-based line of each."""
    sets = read_plain(path)
    out: list[list[str]] = []
    lines: list[int] = []
    for i in range(sets.n_transactions):
        items = sets.vocab.names(sets.transaction(i))
        line = sets.line_of(i)
        if not items:
            raise InputError("empty constraint ('-'): a constraint needs at least one item", path, line)
        out.append(items)
        lines.append(line)
    return out, lines


def read_privacy(path: str | Path) -> list[list[str]]:
    """Privacy constraints from a text file, one itemset per line."""
    return read_itemsets(path)[0]


def read_utility(path: str | Path) -> list[list[str]]:
    """Utility constraints from a text file; an item may be listed in one constraint only."""
    sets, lines = read_itemsets(path)
    seen: dict[str, int] = {}
    for items, line in zip(sets, lines):
        for it in items:
            if it in seen:
                raise InputError(
                    f"item {it!r} is already in the utility constraint of line {seen[it]}; "
                    "utility constraints must be disjoint", path, line)
            seen[it] = line
    return sets


def parse_sizes(text: str) -> tuple[int, int]:
    """``"3-6"`` -> (3, 6); ``"4"`` -> (4, 4)."""
    lo_s, sep, hi_s = text.strip().partition("-")
    try:
        lo = int(lo_s)
        hi = int(hi_s) if sep else lo
    except ValueError:
        raise InputError(f"{text!r}: expected a size or a range such as 3-6", option="sizes") from None
    if lo < 1 or hi < lo:
        raise InputError(f"{text!r}: sizes must be >= 1 and the range ascending", option="sizes")
    return lo, hi


def random_privacy(
    data: TransactionData, n: int, sizes: tuple[int, int] = DEFAULT_SIZES, seed: int = 0
) -> list[list[str]]:
    """``n`` random privacy constraints drawn from real transactions, as in the thesis (§5.1.2).

    Constraints come in chains: a transaction with at least ``max(sizes)`` items is drawn
    at random, a random ``min(sizes)``-item subset of it is the first constraint, one more
    random item of the same transaction makes the next, and so on up to ``max(sizes)``
    items.  Every constraint is therefore supported by at least one transaction.  When no
    transaction is long enough, chains stop at the length of their transaction.  Chains
    are drawn without replacement until ``n`` distinct constraints are found (or the
    transactions run out); the last chain may be cut short.
    """
    if n < 1:
        raise InputError("must be at least 1", option="random_privacy")
    lo, hi = sizes
    lengths = data.lengths
    if data.n_generalised:
        raise InputError("random privacy constraints need plain (not set-generalised) transactions")
    eligible = np.flatnonzero(lengths >= hi)
    if len(eligible) == 0:
        eligible = np.flatnonzero(lengths >= lo)
    if len(eligible) == 0:
        raise InputError(f"no transaction has {lo} or more items to draw a {lo}-item constraint from")
    rng = np.random.default_rng(seed)
    out: list[list[str]] = []
    seen: set[frozenset] = set()
    for row in rng.permutation(eligible):
        items = rng.permutation(data.transaction(int(row)))
        for size in range(lo, min(hi, len(items)) + 1):
            key = frozenset(int(i) for i in items[:size])
            if key in seen:
                continue
            seen.add(key)
            out.append(data.vocab.names(items[:size]))
            if len(out) == n:
                return out
    return out


def wordnet_utility(
    items: Sequence[str], privacy: Sequence[Sequence[str]], measure, threshold: float = 0.5
) -> list[list[str]]:
    """Semantically consistent utility constraints (setgen-attack-shao-ong-toit2017 §6.2.3).

    For each privacy constraint, in order, the utility constraint is every item of the
    domain whose similarity (Wu-Palmer, from ``measure.matrix``) to some item of the
    constraint exceeds ``threshold``.  COAT needs disjoint utility constraints, so an item
    already placed in an earlier one stays there.  Items close to no constrained item are in
    no utility constraint and may not be generalised (COAT may have to suppress them).
    """
    domain = list(items)
    index = {it: j for j, it in enumerate(domain)}
    wanted = sorted({it for p in privacy for it in p if it in index})
    if not wanted or not domain:
        return []
    sim = np.asarray(measure.matrix(wanted, domain), dtype=np.float64)
    close = np.nan_to_num(sim, nan=0.0) > threshold
    row_of = {it: r for r, it in enumerate(wanted)}
    assigned = np.zeros(len(domain), dtype=bool)
    out: list[list[str]] = []
    for p in privacy:
        rows = [row_of[it] for it in p if it in row_of]
        if not rows:
            continue
        cols = np.flatnonzero(close[rows].any(axis=0) & ~assigned)
        if len(cols) == 0:
            continue
        assigned[cols] = True
        out.append([domain[j] for j in cols])
    return out


def utility_constraints(spec: str, data: TransactionData, privacy: Sequence[Sequence[str]]) -> list[list[str]] | None:
    """The utility constraints a spec names: ``all`` (None: one constraint holding every item,
    as in the thesis' experiments), ``wordnet`` (§6.2.3, needs the wordnet measure),
    ``freq:B`` / ``similar:B:S`` (items of similar support, and meaning: :mod:`.matched`) or a
    FILE of item sets."""
    if spec == "all":
        return None
    from semtui.anonymize.setgen.matched import matched_utility, parse_matched

    if parse_matched(spec) is not None:
        return matched_utility(data, spec)
    if spec == "wordnet":
        from semtui.measures import check_measure, open_measure

        check_measure("wordnet")
        try:
            measure = open_measure("wordnet")
        except ImportError:
            raise InputError("the wordnet measure is unavailable in this installation of semtui",
                             option="utility") from None
        return wordnet_utility(data.vocab.items, privacy, measure)
    return read_utility(Path(spec))


def utility_files(spec: str) -> list[Path]:
    """The file a utility spec reads, if any (never an output)."""
    from semtui.anonymize.setgen.matched import parse_matched

    return [] if spec in ("all", "wordnet") or parse_matched(spec) is not None else [Path(spec)]
