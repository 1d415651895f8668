"""Bootstrap intervals over units (equivalence groups, clusters), one definition for every
family's metrics (ALGORITHMS.md §6): units drawn with replacement, seeded, and the percentile
interval of a ratio of sums."""

from __future__ import annotations

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
    """Why an attack's figures (a report's ``metrics``, an assessment's ``figures``) carry no
    interval: the reason they state (``intervals.reason``), or, for a set-generalised attack's,
    which keep their number of equivalence groups, the one that follows from it; None when
    nothing says there is none.  Every face reads it here."""
    said = (figures.get("intervals") or {}).get("reason")
    if said:
        return said
    groups = figures.get("groups")
    return no_interval_reason(groups, "equivalence groups") if isinstance(groups, int) else None


@dataclass(frozen=True)
class Interval:
    """A seeded percentile bootstrap interval over equivalence groups (or clusters)."""

    low: float
    high: float
    level: float
    resamples: int

    def to_json(self) -> dict:
        from semtui.reports import json_float

        return {"low": json_float(self.low), "high": json_float(self.high), "level": self.level,
                "resamples": self.resamples}


def bootstrap_weights(n_units: int, resamples: int, seed: int) -> np.ndarray:
    """``resamples x n_units`` multiplicities of a bootstrap over units (seeded)."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, 0x5E77]))
    return rng.multinomial(n_units, np.full(n_units, 1.0 / n_units), size=resamples).astype(np.float64)


def bootstrap_weight_blocks(n_units: int, resamples: int, seed: int, rows: int):
    """:func:`bootstrap_weights` ``rows`` resamples at a time (the same multiplicities, drawn
    from the same stream), so that the ``resamples x n_units`` table is never held at once."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, 0x5E77]))
    pvals = np.full(n_units, 1.0 / n_units)
    for start in range(0, resamples, rows):
        yield rng.multinomial(n_units, pvals, size=min(rows, resamples - start)).astype(np.float64)


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


def ratio_interval(num: np.ndarray, den: np.ndarray, weights: np.ndarray, level: float = 0.95) -> Interval | None:
    """Interval of ``sum(num) / sum(den)`` (precision, recall, AUC within table) over units."""
    if weights.size == 0 or den.sum() == 0:
        return None
    return interval_of_sums(weights @ num, weights @ den, level)


def interval_of_sums(n: np.ndarray, d: np.ndarray, level: float = 0.95) -> Interval | None:
    """:func:`ratio_interval` from the resamples' sums ``n`` (numerator) and ``d`` (denominator)."""
    ok = d > 0
    if not ok.any():
        return None
    values = n[ok] / d[ok]
    a = (1 - level) / 2
    return Interval(float(np.quantile(values, a)), float(np.quantile(values, 1 - a)), level, len(n))
