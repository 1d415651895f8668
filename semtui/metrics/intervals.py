"""Bootstrap intervals over units (equivalence groups, clusters), one definition for every
family's metrics (ALGORITHMS.md §6): units drawn with replacement, seeded, and the percentile
interval of a ratio of sums."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

#: Bootstrap intervals over units need a few units to mean anything: with fewer, every resample
#: is (nearly) the whole release and the interval collapses to a point.  The one threshold of
#: every family (equivalence groups, clusters).
MIN_UNITS_FOR_INTERVALS = 5


def no_interval_reason(units: int, name: str) -> str | None:
    """Why a report gives no interval over ``units`` units called ``name`` ("equivalence
    groups", "clusters"), or None when there are enough of them; every face prints this line."""
    if units >= MIN_UNITS_FOR_INTERVALS:
        return None
    return f"no interval: fewer than {MIN_UNITS_FOR_INTERVALS} {name}"


def no_interval_of(figures: dict) -> str | None:
    """Why an attack's figures (a report's ``metrics``, an assessment's ``figures``, or the
    assessment's typed figures) carry no
    interval: the reason they state (``intervals.reason``), or, for a set-generalised attack's,
    which keep their number of equivalence groups, the one that follows from it; None when
    nothing says there is none.  Every face reads it here."""
    if isinstance(figures, dict):  # a document's
        said = (figures.get("intervals") or {}).get("reason")
        groups = figures.get("groups")
    else:  # the assessment's typed figures (semtui.assess.results)
        said = getattr(getattr(figures, "intervals", None), "reason", None)
        groups = getattr(figures, "groups", None)
    if said:
        return said
    return no_interval_reason(groups, "equivalence groups") if isinstance(groups, int) else None


#: the level and the number of resamples of every bootstrap interval semtui computes
LEVEL = 0.95
RESAMPLES = 1000


@dataclass(frozen=True)
class Interval:
    """A seeded percentile bootstrap interval over equivalence groups (or clusters).

    Every document writes it in one shape, :meth:`to_json`: ``{"low", "high", "level",
    "resamples"}``.  Documents written before that (``semtui-disassoc-report/1``,
    ``semtui-assessment/1``, ``semtui-experiment/1``) hold some as a pair ``[low, high]``;
    :meth:`read` reads either shape (the one reader: :func:`semtui.wording.interval` is it for
    the faces), a pair with its level and resamples unknown (None)."""

    low: float
    high: float
    level: float | None = LEVEL
    resamples: int | None = RESAMPLES

    def to_json(self) -> dict:
        from semtui.reports import json_float

        return {"low": json_float(self.low), "high": json_float(self.high), "level": self.level,
                "resamples": self.resamples}

    @classmethod
    def read(cls, v) -> Interval | None:
        """An interval as a document holds it, in either shape (``{"low", "high"[, "level",
        "resamples"]}`` or ``[low, high]``); None for anything else (null, a bound that is not a
        number)."""
        if isinstance(v, Interval):
            return v
        if isinstance(v, dict):
            low, high = v.get("low"), v.get("high")
            level, resamples = v.get("level"), v.get("resamples")
        elif isinstance(v, (list, tuple)) and len(v) == 2:
            (low, high), level, resamples = v, None, None
        else:
            return None
        if not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (low, high)):
            return None
        return cls(float(low), float(high), level if isinstance(level, (int, float)) else None,
                   resamples if isinstance(resamples, int) else None)


@dataclass(frozen=True)
class Intervals:
    """An attack's intervals by figure, in its report's order (None: none for that figure), and
    why there are none (too few units), as every face says it."""

    values: tuple[tuple[str, Interval | None], ...] = ()
    reason: str | None = None

    @classmethod
    def read(cls, raw: Mapping | None, keep: tuple[str, ...] | None = None, reason: bool = True) -> Intervals:
        """From an attack report's ``intervals`` (either interval shape); ``keep``: only those
        figures; ``reason``: keep the reason it states."""
        raw = raw or {}
        return cls(tuple((k, Interval.read(v)) for k, v in raw.items()
                         if k != "reason" and (keep is None or k in keep)),
                   raw.get("reason") if reason else None)

    def get(self, name: str) -> Interval | None:
        return dict(self.values).get(name)

    def to_json(self) -> dict:
        out: dict = {k: None if v is None else v.to_json() for k, v in self.values}
        if self.reason is not None:
            out["reason"] = self.reason
        return out


def bootstrap_weights(n_units: int, resamples: int, seed: int) -> np.ndarray:
    """``resamples x n_units`` multiplicities of a bootstrap over units (seeded)."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, 0x5E77]))
    return rng.multinomial(n_units, np.full(n_units, 1.0 / n_units), size=resamples).astype(np.float64)


#: the weights of the last bootstrap over at most this many (resample, unit) cells are kept, in
#: the narrowest integer type that holds them (a byte each, mostly): the methods of an
#: assessment each bootstrap the same clusters with the same seed
KEPT_WEIGHT_CELLS = 20_000_000

_KEPT_WEIGHTS: dict[tuple, list[np.ndarray]] = {}


def bootstrap_weight_blocks(n_units: int, resamples: int, seed: int, rows: int):
    """:func:`bootstrap_weights` ``rows`` resamples at a time (the same multiplicities, drawn
    from the same stream), so that the ``resamples x n_units`` table is never held at once
    (beyond :data:`KEPT_WEIGHT_CELLS`: below, the last table drawn is kept and given again, as
    the same draws, to the next bootstrap of as many units with the same seed)."""
    made_for = (int(n_units), int(resamples), int(seed), int(rows))
    kept = _KEPT_WEIGHTS.get(made_for)
    if kept is not None:
        for w in kept:
            yield w.astype(np.float64)
        return
    keep = n_units * resamples <= KEPT_WEIGHT_CELLS
    blocks = []
    rng = np.random.default_rng(np.random.SeedSequence([seed, 0x5E77]))
    pvals = np.full(n_units, 1.0 / n_units)
    for start in range(0, resamples, rows):
        w = rng.multinomial(n_units, pvals, size=min(rows, resamples - start))
        if keep:
            blocks.append(w.astype(np.min_scalar_type(int(w.max(initial=0)))))
        yield w.astype(np.float64)
    if keep:   # drawn to the end: the last table is the one kept
        _KEPT_WEIGHTS.clear()
        _KEPT_WEIGHTS[made_for] = blocks


def bootstrap_weight_columns(n_units: int, resamples: int, seed: int, columns: int):
    """The multiplicities of a bootstrap over units a block of ``columns`` units at a time,
    ``(lo, hi, resamples x (hi - lo) multiplicities)``, for units too many for one resample to
    be held (:func:`bootstrap_weight_blocks` draws a resample over every unit at once).  Each
    resample still draws ``n_units`` units with replacement: how many fall in a block is
    binomial given those the blocks before took (each draw left is uniform over the units
    left), then spread over the block's units uniformly -- the distribution of
    :func:`bootstrap_weights`, from other draws (seeded)."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, 0x5E77, 1]))
    left = np.full(resamples, n_units, dtype=np.int64)   # each resample's draws not yet placed
    for lo in range(0, n_units, columns):
        hi = min(n_units, lo + columns)
        x = left if hi == n_units else rng.binomial(left, (hi - lo) / (n_units - lo))
        yield lo, hi, rng.multinomial(x, np.full(hi - lo, 1.0 / (hi - lo)))
        left = left - x


def ratio_interval(num: np.ndarray, den: np.ndarray, weights: np.ndarray, level: float = LEVEL) -> Interval | None:
    """Interval of ``sum(num) / sum(den)`` (precision, recall, AUC within table) over units."""
    if weights.size == 0 or den.sum() == 0:
        return None
    return interval_of_sums(weights @ num, weights @ den, level)


def interval_of_sums(n: np.ndarray, d: np.ndarray, level: float = LEVEL) -> Interval | None:
    """:func:`ratio_interval` from the resamples' sums ``n`` (numerator) and ``d`` (denominator)."""
    ok = d > 0
    if not ok.any():
        return None
    values = n[ok] / d[ok]
    a = (1 - level) / 2
    return Interval(float(np.quantile(values, a)), float(np.quantile(values, 1 - a)), level, len(n))
