"""Utility constraints built from the data so that a generalised item only holds items that
neither the prior nor the context tells apart (issue 21, "publish this instead"): items of
similar support and, optionally, similar meaning.

The strongest attacker (ALGORITHMS.md §7) takes most of a COAT release back because COAT puts a
rare item with a common one (the prior tells the added member from the real one) and unrelated
items together (the context tells them apart).  These classes are COAT's utility constraints:
an item is only generalised with items of its class.

* ``freq:B`` - **support bands**: the items present in the data are split into B bands by
  quantiles of log(support) (equal numbers of items; ties of support stay in one band, so a band
  may hold more);
* ``similar:B:S`` - support bands, then **meaning** within each band: the band's items the
  embedding knows are ordered by a nearest-neighbour chain (:func:`semtui.measures.order.meaning_chain`)
  and cut into consecutive classes of S items (the last may be smaller; one smaller than 2 joins
  the one before); items the embedding does not know form one class of the band, by support only.

Defaults B = 8, S = 12.  A class that cannot lift a constraint to k is COAT's ordinary case:
the least supported item of the constraint is suppressed (docs/anonymize.md, "Suppression").
"""

from __future__ import annotations

import numpy as np

from semtui.errors import InputError
from semtui.model import TransactionData

DEFAULT_BANDS = 8
DEFAULT_SIZE = 12
KINDS = ("freq", "similar")


def parse_matched(spec: str) -> tuple[str, int, int] | None:
    """``freq[:B]`` / ``similar[:B[:S]]`` -> (kind, B, S); another spec -> None."""
    kind, _, rest = spec.partition(":")
    if kind not in KINDS:
        return None
    parts = rest.split(":") if rest else []
    if len(parts) > (1 if kind == "freq" else 2):
        raise InputError(f"{spec!r}: expected {kind}:BANDS" + ("[:SIZE]" if kind == "similar" else ""),
                         option="utility")
    try:
        nums = [int(p) for p in parts]
    except ValueError:
        raise InputError(f"{spec!r}: BANDS and SIZE must be whole numbers", option="utility") from None
    bands = nums[0] if nums else DEFAULT_BANDS
    size = nums[1] if len(nums) > 1 else DEFAULT_SIZE
    if bands < 1 or size < 2:
        raise InputError(f"{spec!r}: BANDS must be at least 1 and SIZE at least 2", option="utility")
    return kind, bands, size


def support_bands(support: np.ndarray, bands: int) -> np.ndarray:
    """The band (0 = rarest) of every item of positive support; -1 for support 0.  Bands are
    quantiles of log(support); equal supports share a band."""
    support = np.asarray(support)
    out = np.full(len(support), -1, dtype=np.int64)
    live = np.flatnonzero(support > 0)
    if not len(live):
        return out
    logs = np.log(support[live].astype(np.float64))
    edges = np.quantile(logs, np.arange(1, bands) / bands) if bands > 1 else np.zeros(0)
    out[live] = np.searchsorted(edges, logs, side="right")
    # renumber the bands that hold items 0, 1, ... (quantile ties may leave some empty)
    _, out[live] = np.unique(out[live], return_inverse=True)
    return out


def matched_classes(support: np.ndarray, bands: int, vectors: np.ndarray | None = None,
                    size: int = DEFAULT_SIZE) -> list[np.ndarray]:
    """The classes (arrays of item ids) of items of similar support (``vectors`` None) or of
    similar support and meaning (``vectors``: one unit vector per item, NaN rows unknown)."""
    from semtui.measures.order import meaning_chain

    band = support_bands(support, bands)
    out: list[np.ndarray] = []
    for b in range(int(band.max()) + 1 if len(band) else 0):
        items = np.flatnonzero(band == b)
        if vectors is None:
            out.append(items)
            continue
        vec = vectors[items]
        unknown = np.isnan(vec).any(axis=1)
        known_items = items[~unknown]
        chain = known_items[meaning_chain(vec[~unknown])]
        cuts = list(range(0, len(chain), size))
        pieces = [chain[a:a + size] for a in cuts]
        if len(pieces) > 1 and len(pieces[-1]) < 2:
            last = pieces.pop()
            pieces[-1] = np.concatenate([pieces[-1], last])
        out.extend(np.sort(p) for p in pieces if len(p))
        if unknown.any():
            out.append(items[unknown])
    return out


def matched_utility(data: TransactionData, spec: str, vectors: np.ndarray | None = None) -> list[list[str]]:
    """The utility constraints of ``freq:B`` / ``similar:B:S`` over ``data`` (item names).  For
    ``similar``, ``vectors`` (one row per item of ``data.vocab``; NaN: unknown) may be given, else
    the default embedding's are read."""
    parsed = parse_matched(spec)
    if parsed is None:
        raise InputError(f"{spec!r} is not freq:BANDS or similar:BANDS:SIZE", option="utility")
    kind, bands, size = parsed
    support = np.bincount(np.asarray(data.tokens, dtype=np.int64), minlength=len(data.vocab))
    if kind == "similar" and vectors is None:
        from semtui.measures.order import embedding_vectors

        vectors = embedding_vectors(list(data.vocab.items))
    classes = matched_classes(support, bands, vectors if kind == "similar" else None, size)
    return [data.vocab.names(c) for c in classes if len(c)]
