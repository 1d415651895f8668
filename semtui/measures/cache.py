"""A persistent cache of computed scores, so a second run recomputes nothing.

One SQLite file, ``scores.sqlite`` under ``$SEMTUI_CACHE_DIR``, else
``$XDG_CACHE_HOME/semtui``, else ``~/.cache/semtui``.  A row is keyed by the measure's
``identity`` (which changes whenever its scores could: index path + mtime, vectors
hash, ...) and a term pair stored in sorted order (every measure is symmetric).  NaN
(an unknown term) is stored as NULL.  Reads and writes are batched: the terms of a
request go into a temporary table and one join brings back every cached pair; only the
rows and columns with a missing pair are handed to the measure.

The cache is an optimisation: if its directory cannot be written or the file is not a
cache (corrupt), scores are computed as if it were absent, and ``problem_hook`` (the CLI's
warning line) is told once why.  ``semtui cache info|clear`` inspects and removes it.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from pathlib import Path

import numpy as np

from semtui.measures.base import Measure

#: called once with a one-line reason when the cache cannot be used (the CLI prints it)
problem_hook: Callable[[str], None] | None = None


def cache_dir() -> Path:
    env = os.environ.get("SEMTUI_CACHE_DIR")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "semtui"


class ScoreCache:
    def __init__(self, path: str | Path | None = None):
        self.path = Path(path) if path is not None else cache_dir() / "scores.sqlite"
        self._con: sqlite3.Connection | None = None
        self.disabled = False

    def _connect(self) -> sqlite3.Connection | None:
        if self._con is None and not self.disabled:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                con = sqlite3.connect(self.path, timeout=30)
                con.execute("PRAGMA journal_mode=WAL")
                con.execute(
                    "CREATE TABLE IF NOT EXISTS scores (measure TEXT NOT NULL, a TEXT NOT NULL, "
                    "b TEXT NOT NULL, value REAL, PRIMARY KEY (measure, a, b)) WITHOUT ROWID"
                )
                con.execute("CREATE TEMP TABLE IF NOT EXISTS req (t TEXT PRIMARY KEY)")
                con.commit()
                self._con = con
            except (OSError, sqlite3.Error) as exc:
                self.disabled = True
                if problem_hook is not None:
                    problem_hook(f"the score cache {self.path} cannot be used ({exc}); scores are "
                                 f"computed without it ('semtui cache clear' removes it)")
        return self._con

    def lookup(self, identity: str, terms_a: list[str], terms_b: list[str]) -> np.ndarray:
        """Cached scores (NaN where absent) and a mask of which pairs were found."""
        out = np.full((len(terms_a), len(terms_b)), np.nan)
        found = np.zeros(out.shape, dtype=bool)
        con = self._connect()
        if con is None:
            return out, found
        pa = {t: i for i, t in enumerate(terms_a)}
        pb = {t: i for i, t in enumerate(terms_b)}
        try:
            con.execute("DELETE FROM req")
            con.executemany("INSERT OR IGNORE INTO req(t) VALUES (?)", ((t,) for t in {*terms_a, *terms_b}))
            rows = con.execute(
                "SELECT a, b, value FROM scores WHERE measure = ? "
                "AND a IN (SELECT t FROM req) AND b IN (SELECT t FROM req)",
                (identity,),
            ).fetchall()
        except sqlite3.Error:
            return out, found
        for a, b, v in rows:
            value = np.nan if v is None else v
            for x, y in ((a, b), (b, a)):
                i, j = pa.get(x), pb.get(y)
                if i is not None and j is not None:
                    out[i, j] = value
                    found[i, j] = True
        return out, found

    def store(self, identity: str, terms_a: list[str], terms_b: list[str], values: np.ndarray) -> None:
        con = self._connect()
        if con is None:
            return
        a = np.repeat(np.array(terms_a, dtype=object), len(terms_b))
        b = np.tile(np.array(terms_b, dtype=object), len(terms_a))
        swap = a > b
        lo, hi = np.where(swap, b, a), np.where(swap, a, b)
        v = np.asarray(values, dtype=np.float64).ravel()
        vals = np.where(np.isnan(v), None, v.astype(object))
        try:
            con.executemany(
                "INSERT OR REPLACE INTO scores(measure, a, b, value) VALUES (?, ?, ?, ?)",
                zip([identity] * len(lo), lo.tolist(), hi.tolist(), vals.tolist()),
            )
            con.commit()
        except sqlite3.Error:
            con.rollback()

    def clear(self, identity: str | None = None) -> int:
        con = self._connect()
        if con is None:
            return 0
        cur = con.execute("DELETE FROM scores" + ("" if identity is None else " WHERE measure = ?"),
                          () if identity is None else (identity,))
        con.commit()
        return cur.rowcount

    def info(self) -> dict:
        """Where the cache is, its size, and the pairs it holds per measure."""
        facts: dict = {"path": str(self.path), "exists": self.path.exists(), "bytes": 0,
                       "pairs": 0, "measures": {}}
        if not facts["exists"]:
            return facts
        facts["bytes"] = sum(p.stat().st_size for p in self._files())
        try:
            con = sqlite3.connect(f"file:{self.path.resolve()}?mode=ro", uri=True, timeout=30)
            try:
                rows = con.execute("SELECT measure, count(*) FROM scores GROUP BY measure").fetchall()
            finally:
                con.close()
        except sqlite3.Error as exc:
            facts["problem"] = f"not a usable cache ({exc})"
            return facts
        facts["measures"] = {m: int(c) for m, c in rows}
        facts["pairs"] = int(sum(facts["measures"].values()))
        return facts

    def _files(self) -> list[Path]:
        return [p for p in (self.path, Path(f"{self.path}-wal"), Path(f"{self.path}-shm")) if p.exists()]

    def remove(self) -> int:
        """Delete the cache files (a corrupt cache included); returns the bytes freed."""
        self.close()
        freed = 0
        for p in self._files():
            freed += p.stat().st_size
            p.unlink()
        return freed

    def close(self) -> None:
        if self._con is not None:
            self._con.close()
            self._con = None


class CachedMeasure(Measure):
    """Wraps a measure: scores come from the cache, only missing pairs are computed."""

    def __init__(self, inner: Measure, cache: ScoreCache | None = None):
        self.inner = inner
        self.pairs_per_step = inner.pairs_per_step
        self.cache = cache if cache is not None else ScoreCache()
        self.name = inner.name
        self.kind = inner.kind
        #: pairs computed by the measure (not found in the cache) since creation
        self.computed = 0

    @property
    def identity(self) -> str:
        return self.inner.identity

    def unknown(self, terms) -> list[str]:
        return self.inner.unknown(terms)

    def _finish(self, scores: np.ndarray, terms_a: list[str], terms_b: list[str]) -> np.ndarray:
        return self.inner._finish(scores, terms_a, terms_b)

    def capped(self, scores: np.ndarray) -> np.ndarray | None:
        return self.inner.capped(scores)

    def _matrix(self, terms_a: list[str], terms_b: list[str]) -> np.ndarray:
        identity = self.inner.identity
        out, found = self.cache.lookup(identity, terms_a, terms_b)
        if found.all():
            return out
        # terms never seen (whole rows missing) against everything, then the remaining
        # rows against the columns they still miss: a new term costs its row and column
        new_rows = np.flatnonzero(~found.any(axis=1))
        if len(new_rows):
            self._compute(out, found, new_rows, np.arange(len(terms_b)), terms_a, terms_b, identity)
        rows = np.flatnonzero(~found.all(axis=1))
        if len(rows):
            cols = np.flatnonzero(~found[rows].all(axis=0))
            self._compute(out, found, rows, cols, terms_a, terms_b, identity)
        return out

    def _compute(self, out, found, rows, cols, terms_a, terms_b, identity) -> None:
        sub_a = [terms_a[i] for i in rows]
        sub_b = [terms_b[j] for j in cols]
        values = np.asarray(self.inner._matrix(sub_a, sub_b), dtype=np.float64)
        self.computed += values.size
        out[np.ix_(rows, cols)] = values
        found[np.ix_(rows, cols)] = True
        self.cache.store(identity, sub_a, sub_b, values)
