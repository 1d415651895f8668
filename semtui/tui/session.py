"""What the TUI has open: the dataset, its original, key and attack reports.

Everything here is loaded and checked *before* the app starts, so that a bad file ends
like every other command (one line, exit 2) instead of inside a running TUI -- with one
exception, for the first paint's sake: a disassociated release's key and original, and a
set-generalised release's original (the slowest companions to read and check; the first screen
shows nothing of them, or a column that joins the list later) may be read *after* the first
paint, by :class:`Companions`, in a thread; a companion that turns out not to belong then closes
the TUI with the same one line and exit 2.  The session holds engine objects and engine reports
as they are; the screens only read them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from semtui.errors import InputError
from semtui.families import family_of
from semtui.model import Dataset, DisassociationKey, TransactionData
from semtui.release import Release, read_release, with_companions


def report_head(report) -> dict:
    """What names an attack report and the files it was run on: a set-generalisation report's
    document itself, a typed report's (re-association, cover) header (its format, options and
    sources, :meth:`~semtui.attacks.cover.CoverReport.header`)."""
    return report if isinstance(report, dict) else report.header()


@dataclass
class Result:
    """One attack report and its origin: a set-generalisation report as its document (the JSON
    the headless ``attack setgen`` writes), a re-association's or a cover run's as the engine's
    typed report (:class:`~semtui.attacks.reassociation.ReassociationReport`,
    :class:`~semtui.attacks.cover.CoverReport`)."""

    report: object
    source: str  # "file:PATH" or "run"
    #: written to a file (a report opened from a file counts as written)
    exported: bool = False
    #: run by the app itself, not asked for (plain ``semtui``'s attack on the sample): quitting
    #: never asks about it
    automatic: bool = False
    _by_label: dict[str, dict] | None = field(default=None, repr=False)
    #: per group label: its GroupAttack, which keeps the engine's replay once computed
    attacks: dict = field(default_factory=dict, repr=False)
    _scale: tuple[float, float] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.source.startswith("file:"):
            self.exported = True

    @property
    def head(self) -> dict:
        """Its format, options and sources (:func:`report_head`)."""
        return report_head(self.report)

    @property
    def format(self) -> str:
        return str(self.head.get("format", ""))

    @property
    def kind(self) -> str:
        """``setgen``, ``reassociation`` or ``cover``: which engine wrote the report."""
        f = self.format
        if f.startswith("semtui-disassoc-report/"):
            return "reassociation"
        if f.startswith("semtui-cover-report/"):
            return "cover"
        return "setgen"

    @property
    def label(self) -> str:
        """The result's name: its method, measure and knowledge (the engine's words)."""
        from semtui.wording import result_name

        return result_name(self.head)

    def group(self, label: str) -> dict | None:
        """The report's entry for the generalised item written ``label``."""
        if self._by_label is None:
            self._by_label = {g["generalised_item"]: g for g in self.report.get("groups", [])}
        return self._by_label.get(label)

    @property
    def metrics(self):
        """What the attack took back (None: unjudged; a cover run has none): a document's
        ``metrics``, or a re-association's typed metrics."""
        if isinstance(self.report, dict):
            return self.report.get("metrics")
        return getattr(self.report, "metrics", None)

    @property
    def scale(self) -> tuple[float, float]:
        """One colour scale for every group of this result: 0 to the largest distance of the
        report (at least 1), so the same number has the same colour in every table."""
        if self._scale is None:
            hi = 1.0
            for g in self.report.get("groups", []):
                for row in g.get("table") or []:
                    finite = [v for v in row if v is not None]
                    if finite and max(finite) > hi:
                        hi = float(max(finite))
            self._scale = (0.0, hi)
        return self._scale

    def options_text(self, other: Result | None = None) -> str:
        """The options that made this result (background and knowledge among them); with
        ``other``, only those that differ."""
        from semtui.wording import options_text

        return options_text(self.head, None if other is None else other.head)


class Companions:
    """A release's companions read and checked to belong (:func:`semtui.release.with_companions`)
    after the first paint, in a thread: ``start`` it once the screen is up; ``result`` waits for
    it (or, not started yet, reads them in the calling thread), so whatever needs the key or the
    original gets them checked, never a release without them."""

    def __init__(self, load: Callable[[], Release], names: tuple[str, ...], paths: dict | None = None):
        self._load = load
        #: what is being read (``key``, ``original``), for the views that say so meanwhile
        self.names = names
        #: the paths they were given as (found readable), by name: a form shows them without waiting
        self.paths = dict(paths or {})
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._started = False
        self.release: Release | None = None
        self.error: Exception | None = None

    @property
    def done(self) -> bool:
        return self._done.is_set()

    def start(self, then: Callable[[], None] | None = None) -> bool:
        """Read them in a daemon thread; ``then`` is called in that thread once they are read
        (or failed).  False (and ``then`` not called): they were already being read, or read."""
        with self._lock:
            if self._started:
                return False
            self._started = True

        def run() -> None:
            self._run()
            if then is not None:
                then()

        threading.Thread(target=run, name="semtui-companions", daemon=True).start()
        return True

    def _run(self) -> None:
        try:
            self.release = self._load()
        except Exception as exc:  # kept, and raised by ``result`` where the companions are needed
            self.error = exc
        finally:
            self._done.set()

    def result(self) -> Release:
        """The release with its companions, checked; raises what reading or checking raised."""
        with self._lock:
            run_here = not self._started
            self._started = True
        if run_here:
            self._run()
        self._done.wait()
        if self.error is not None:
            raise self.error
        assert self.release is not None
        return self.release


@dataclass
class Session:
    """What the TUI has open: the release with its companions (opened once, by
    :func:`semtui.release.open_release`'s two halves) and the results shown on it.

    ``release`` is the release as far as it is open: while ``companions`` are being read (after
    the first paint) it is the release alone, and the properties that give a companion (``key``,
    ``original``, ...) wait for them; the first paint reads only ``opened``."""

    release: Release
    results: list[Result] = field(default_factory=list)
    current: int = -1  # index into results of the one shown
    #: ``r``'s rows once found, with the two results they were found from (the latest cover
    #: report and re-association, compared by identity): ``r`` again on the same results opens at once
    records_found: tuple[tuple, list[dict]] | None = field(default=None, repr=False)
    #: the key and the original being read after the first paint (None: read before the app started)
    companions: Companions | None = field(default=None, repr=False)

    @property
    def opened(self) -> Release:
        """The release as far as it is open now, without waiting for its companions."""
        return self.release

    @property
    def reading(self) -> tuple[str, ...]:
        """The companions still being read (``key``, ``original``); empty once they are in."""
        c = self.companions
        return () if c is None or c.done else c.names

    def complete(self) -> Release:
        """The release with its companions: waits for them when they are still being read."""
        c = self.companions
        if c is not None:
            self.release = c.result()
            self.companions = None
        return self.release

    @property
    def path(self) -> Path:
        return Path(self.release.path)

    @property
    def data(self) -> Dataset:
        """The release as attacked: an unmarked one with its generalised items recovered."""
        return self.release.data

    @property
    def original(self) -> TransactionData | None:
        return self.complete().original

    @property
    def original_path(self) -> Path | None:
        """The original's path; while it is read after the first paint, the path it was given as,
        without waiting (the attack form shows it: ``a`` never waits for the original)."""
        return self._path_of("original")

    @property
    def key(self) -> DisassociationKey | None:
        return self.complete().key

    @property
    def key_path(self) -> Path | None:
        """The key's path, as :attr:`original_path` gives the original's."""
        return self._path_of("key")

    def _path_of(self, name: str) -> Path | None:
        c = self.companions
        if c is not None and not c.done and name in c.paths:
            return Path(c.paths[name])
        path = getattr(self.complete(), f"{name}_path")
        return None if path is None else Path(path)

    @property
    def release_k(self) -> int | None:
        """The k the release was made for, from its sidecar (None: no sidecar)."""
        return self.release.k

    @property
    def unmarked(self) -> TransactionData | None:
        """An unmarked release (``open --unmarked``) as read; ``data`` holds it recovered."""
        return self.release.unmarked

    @property
    def recovery_k(self) -> int | None:
        return self.release.recovery_k

    @property
    def km(self) -> tuple[int, int] | None:
        """A k^m release (its ``anonymize km`` report given, or beside it as its sidecar): k and m."""
        r = self.release
        return None if r.m is None else (r.k, r.m)

    @property
    def title_kind(self) -> str:
        """What the release is, for a screen's title: its data kind, or k^m with its k and m."""
        if self.km is not None:
            return f"k^m-generalised (k={self.km[0]}, m={self.km[1]})"
        return self.kind

    @property
    def holds_private(self) -> bool:
        """What the TUI shows may hold original data: an original or a key is open, or a
        report scored against the original.  Every export of such a session is private (0600)."""
        return (self.original is not None or self.key is not None
                or any(r.head.get("original") is not None for r in self.results))

    @property
    def unexported(self) -> list[Result]:
        """Results of attacks the user ran here that were never written to a file."""
        return [r for r in self.results if not r.exported and not r.automatic]

    def k_for_exposure(self) -> tuple[int | None, str]:
        """The k exposure is judged against when the form leaves k blank, and where it comes from."""
        if self.release_k is not None:
            return self.release_k, "sidecar"
        data = self.data
        if isinstance(data, TransactionData) and data.n_generalised:
            return int(data.group_sizes().min()), "smallest group size"
        return None, "none"

    @property
    def kind(self) -> str:
        return self.data.kind

    @property
    def result(self) -> Result | None:
        return self.results[self.current] if self.results else None

    def latest(self, kind: str) -> Result | None:
        """The result of ``kind`` on screen: the current one if it is of that kind, else the
        last of that kind."""
        r = self.result
        if r is not None and r.kind == kind:
            return r
        for r in reversed(self.results):
            if r.kind == kind:
                return r
        return None

    def add_result(self, result: Result) -> None:
        self.results.append(result)
        self.current = len(self.results) - 1

    # ------------------------------------------------------------------ groups
    def label(self, g: int) -> str:
        """The label of one group, without building them all (first paint stays fast)."""
        labels = getattr(self, "_labels", None)
        return labels[g] if labels is not None else self.data.label(g)

    def display_label(self, g: int) -> str:
        """What the screens show for group ``g``: a k^m release's hierarchy node first,
        ``{node} (a, b)``; its label otherwise (``label`` stays the key reports match on)."""
        nodes = getattr(self.data, "gen_labels", None)
        return f"{{{nodes[g]}}} {self.label(g)}" if nodes else self.label(g)

    def labels(self) -> list[str]:
        """Generalised item labels, ``(a, b)``, cached (built on first use only)."""
        if getattr(self, "_labels", None) is None:
            self._labels = self.data.labels()
        return self._labels


def load_session(
    file: Path,
    *,
    original: Path | None = None,
    report: Path | None = None,
    key: Path | None = None,
    unmarked: bool = False,
    defer: bool = False,
) -> Session:
    """Read and cross-check every file; raises :class:`InputError` for anything wrong.
    ``defer``: the companions the release's family reads after the first paint (a disassociated
    release's key and original, a set-generalised release's original; no report given) are only
    found readable here, and read and checked by the session's :class:`Companions` once the first
    screen is up (``semtui open`` in a terminal: the first paint waits for the release alone).
    ``unmarked``: the release does not mark its generalised items; they are recovered (so is a
    plain release opened with a report of an ``attack setgen --unmarked``).  The release and its
    companions are opened by :mod:`semtui.release` (the belonging check runs there, once); an
    attack report given with it may name the original and the key it was scored with."""
    data = read_release(file)
    family = family_of(data)
    if defer and family.companions_after_paint and report is None and not unmarked \
            and (key is not None or original is not None):
        from semtui.fileio import check_readable, on_disk

        given = tuple((name, path) for name, path in (("key", key), ("original", original)) if path is not None)
        if all(on_disk(path) for _, path in given):  # a stream is read before the app starts, as ever
            for _, path in given:
                check_readable(path)   # a missing companion: refused before the TUI starts

            def companions() -> Release:
                return with_companions(data, file, original=original, key=key)

            return Session(with_companions(data, file),
                           companions=Companions(companions, tuple(n for n, _ in given), dict(given)))
    km_report = None
    if report is not None and isinstance(data, TransactionData) and _is_km_report(report):
        # ``anonymize km``'s report is the release's sidecar: it gives k (and m, the cut), no results
        km_report, report = report, None
    report_doc = None if report is None else family.read_report(report)
    head = None if report_doc is None else report_head(report_doc)
    recovered = (isinstance(data, TransactionData) and not data.n_generalised
                 and (unmarked or (head is not None and head.get("unmarked") is not None)))
    if unmarked and not recovered:
        raise InputError("--unmarked is for a set-generalised release written without its generalised items "
                         f"marked; {file} is {data.kind} data" + (" that marks them" if data.kind != "disassociated"
                                                                  else ""), file)
    if report is not None:
        # the key and the original the report was scored with, so that new runs keep their metrics
        # (only a disassociated release's reports name a key)
        if key is None and head.get("key"):
            key = _beside(head["key"], report)
        if original is None and head.get("original"):
            original = _beside(head["original"], report)
    # a report's own recovery k, else the sidecar's (the one the engine recovers with when the form leaves k blank)
    from_report = ((head or {}).get("unmarked") or {}) if recovered else {}
    release = with_companions(data, file, original=original, key=key, sidecar=km_report, recover=recovered,
                              recovery_k=from_report.get("k") if from_report else None)
    session = Session(release)
    if report is not None:
        family.check_report(release, report_doc, report)
        session.add_result(Result(report_doc, f"file:{report}"))
    return session


def _beside(named: str, report: Path) -> Path | None:
    """A file a report names: as named, else beside the report; None when neither is there."""
    candidate = Path(named)
    if not candidate.is_absolute() and not candidate.is_file():
        candidate = Path(report).parent / candidate
    return candidate if candidate.is_file() else None


def _is_km_report(path) -> bool:
    """Whether ``path`` is a k^m report (``anonymize km``'s sidecar), by its first bytes."""
    from semtui.fileio import read_head

    return b'"semtui-km-report/' in read_head(path, 256)


