"""Measuring the alternatives of one assessment (docs/assess.md, *Publish this instead*): each
a cell of the experiment engine (:func:`semtui.experiment.cells.run_cell`), one at a time or,
with ``--jobs``, through the one executor beside this release's own attacks; then the choice
among them (:func:`semtui.experiment.alternatives.choose`).  What is tried and how it is chosen
and worded is :mod:`semtui.experiment.alternatives`."""

from __future__ import annotations

from semtui.errors import InputError
from semtui.experiment.alternatives import Alternative, choose, chosen_sentence, plan, this_release
from semtui.experiment.cells import Context, run_cell
from semtui.experiment.spec import make_cell
from semtui.families import assessed_params as _assessed_params
from semtui.runtime import ProgressCallback, no_progress


def assess_with_alternatives(release, inputs, *, progress: ProgressCallback | None = None,
                             alternatives: bool = True):
    """What ``semtui assess`` reports (the TUI's ``A`` runs this): every applicable attack and,
    with the original, the safer alternatives and the choice among them (measured beside the
    attacks on this release when ``--jobs`` allows, :meth:`AlternativesRun.start`)."""
    from semtui.assess import Assessor

    assessor = Assessor(release, inputs, progress=progress)
    if not alternatives:
        report = assessor.run()
        report.alternatives_note = "no alternatives: --no-alternatives"
        return report
    run = AlternativesRun(assessor, progress=progress)
    run.start()
    try:
        assessor.run()
        run.run()
    finally:
        run.stop()
    return assessor.report


class AlternativesRun:
    """Measures the alternatives of one assessment into ``report.alternatives`` -- one at a time,
    or ``--jobs`` at a time through the one executor -- so an interrupted run keeps those finished
    (:meth:`close`).

    :meth:`start` (before the assessor runs) begins measuring them in the background, ``jobs - 1``
    worker processes of the one executor, while this release's own attacks run here with the
    core left: the alternatives are most of an assessment's work (four to five releases, each
    anonymised, checked and attacked as this one is), and this release's attacks no longer
    wait for them or they for it.  :meth:`run` (after it) measures here, one after another, the
    alternatives no worker has taken yet, then waits for the workers: ``jobs`` processes in all,
    each taking the next alternative as it becomes free (three processes on two cores left the
    last alternative alone on one core at the end).  Progress is reported from this thread only;
    :meth:`stop` ends them (an interrupt, a cancel, any error: call it in a ``finally``) within a
    poll."""

    def __init__(self, assessor, progress: ProgressCallback | None = None):
        self.assessor = assessor
        self.report = assessor.report
        self.progress = progress or no_progress
        self.total = 0
        self._planned = False
        self._todo: list = []
        self._assessed = None
        self._ctx = None
        self._jobs = 1
        # the measuring in the background (start): its thread, results, progress and end
        self._thread = None
        self._cells: list = []
        self._got: dict[int, dict] = {}
        self._error: BaseException | None = None
        self._stopping = self._running = None
        self._left = iter(())          # the alternatives nobody has taken yet, in the order they are taken (start)
        self._claiming = None          # its lock (start)

    def _plan(self) -> bool:
        """The alternatives to measure and their context; False when there are none (no original)."""
        if self._planned:
            return self._assessed is not None
        self._planned = True
        a = self.assessor
        if a.original is None:
            return False
        self._assessed = _assessed_params(a.release, self.report.inputs.data)
        self._todo = plan(self._assessed)
        self.total = len(self._todo)
        i = self.report.inputs
        from semtui.fileio import check_readable

        self._ctx = Context(original=a.original, original_path=i.original, background=i.background, corpus=i.corpus,
                            measures=i.measures, jobs=i.jobs, cache=i.cache, opened=a.opened)
        for _, q in self._todo:
            if q.get("privacy"):
                check_readable(q["privacy"])
        from semtui.runtime.executor import capped_jobs

        self._jobs = capped_jobs(i.jobs)
        return True

    def _parallel(self) -> bool:
        return self._jobs > 1 and len(self._todo) > 1

    def start(self) -> None:
        """Begin measuring the alternatives in the background (with more than one job and more
        than one alternative; else :meth:`run` measures them one by one).  This release's
        attacks then run with the jobs the alternatives' workers leave, one at least
        (:attr:`Assessor.jobs`): they and the workers share the cores."""
        import threading

        if not self._plan() or not self._parallel() or self._thread is not None:
            return
        a = self.assessor
        if self.report.inputs.background:
            a.opened.load_background(self.report.inputs.background)   # read once here; the workers receive it loaded
        self._cells, shipped = self._shipped()
        # taken longest first (Alternative.cost), then in the table's order
        self._left = iter(sorted(range(len(self._todo)), key=lambda n: -self._todo[n][0].cost))
        self._stopping, self._running, self._claiming = threading.Event(), threading.Event(), threading.Lock()
        self._thread = threading.Thread(target=self._measure_beside, args=(shipped,), name="semtui-alternatives",
                                        daemon=True)
        self._thread.start()
        # on until its workers are up: the context is pickled and the fork server started (which
        # points this process's standard streams elsewhere for a moment) before the attacks go on
        while not self._running.wait(0.05) and self._thread.is_alive():
            pass
        # the core the alternatives' workers leave: jobs processes in all
        a.jobs = max(1, self._jobs - self._workers())

    def _workers(self) -> int:
        """Worker processes measuring alternatives beside this release's attacks."""
        return max(1, min(self._jobs - 1, len(self._todo)))

    def _claim(self) -> int | None:
        """The next alternative nobody has taken, taken (by a worker or by :meth:`run`)."""
        with self._claiming:
            return next(self._left, None)

    def _shipped(self):
        import dataclasses

        from semtui.assess import Opened

        cells = [make_cell(alt.family, q) for alt, q in self._todo]
        # each worker opens the measures itself (a measure never travels); the background as loaded here
        ctx = self._ctx
        return cells, dataclasses.replace(ctx, jobs=1, opened=Opened(backgrounds=dict(ctx.opened.backgrounds)))

    def _measure_beside(self, shipped) -> None:
        from semtui.errors import Interrupted
        from semtui.runtime.executor import run_local

        def beside(done: int, total: int, message: str = "") -> None:
            self._running.set()
            if self._stopping.is_set():
                raise Interrupted()

        try:
            run_local(measure_alternative, shipped, self._cells, jobs=self._workers(), progress=beside,
                      on_result=self._got.__setitem__, claim=self._claim)
        except BaseException as exc:  # handed to the thread that waits (run)
            self._error = exc

    def stop(self) -> None:
        """End the measuring in the background, if any (its workers killed within a poll)."""
        if self._thread is not None:
            self._stopping.set()
            self._thread.join()
            self.assessor.jobs = self.report.inputs.jobs

    def run(self) -> None:
        """After the assessor has run: the alternatives measured (waiting for those started
        beside it), then the choice among them."""
        a = self.assessor
        rep = self.report
        if not self._plan():
            rep.alternatives_note = "no alternatives: give --original to measure safer releases beside this one"
            return
        rep.alternatives = [this_release(rep, a.release, a.original, a.key, self._assessed)]
        rep.alternatives_note = self._assessed.note
        self.start()   # if it was not (it measures them beside, which here waits for them alone)
        if self._thread is not None:
            self._wait()
        else:
            self._run_one_by_one()
        self.close(interrupted=False)

    def _said(self, done: int) -> None:
        self.progress(done, self.total, f"[alternatives] {done}/{self.total} measured, {self._jobs} at a time")

    def _wait(self) -> None:
        from semtui.runtime.executor import POLL

        try:
            # what no worker has taken yet, measured here -- unless the workers failed (their pool
            # could not start, a worker died): that error is raised at once, not after the rest
            while self._error is None and (n := self._claim()) is not None:
                self._got[n] = self._measure_here(n)
            while self._thread.is_alive():
                self._said(len(self._got))   # from this thread only (it may raise Interrupted: a cancel)
                self._thread.join(POLL)
        except BaseException:
            self.stop()
            raise
        finally:
            self._keep(self._got)
        if self._error is not None:
            raise self._error
        self._said(len(self._got))

    def _measure_here(self, n: int) -> dict:
        """Alternative ``n`` measured in this process, with the jobs the workers leave."""
        import dataclasses

        alt, _ = self._todo[n]

        def inner(d, t, m="", _name=alt.name):
            done = len(self._got)
            self.progress(done, self.total, f"[alternatives] {done}/{self.total} measured, {self._jobs} at a time; "
                                            f"{_name}: {m}".rstrip(": "))

        return measure_alternative(dataclasses.replace(self._ctx, jobs=self.assessor.jobs), self._cells[n], inner)

    def _keep(self, got: dict) -> None:
        """The alternatives measured, in the table's order (every one finished, when stopped part-way)."""
        for n in sorted(got):
            alt, _ = self._todo[n]
            if "not_measured" in got[n]:
                self._not_measured(alt, got[n]["not_measured"])
            else:
                self._measured(alt, self._cells[n], got[n])
        got.clear()

    def _measured(self, alt: Alternative, cell, doc: dict) -> None:
        doc["label"] = f"{alt.name} ({cell.label})"
        doc["why"] = alt.why
        doc["chosen"] = False
        self.report.alternatives.append(doc)

    def _not_measured(self, alt: Alternative, message: str) -> None:
        """An option this machine cannot run (no WordNet files): said, not fatal."""
        self.report.alternatives_note += f"; not measured: {alt.name} ({message})"

    def _run_one_by_one(self) -> None:
        todo = self._todo
        for n, (alt, q) in enumerate(todo):
            cell = make_cell(alt.family, q)

            def inner(d, t, m="", _n=n, _name=alt.name):
                self.progress(_n, len(todo), f"[alternative {_n + 1}/{len(todo)}] {_name}: {m}".rstrip(": "))

            try:
                doc = run_cell(cell, self._ctx, inner)
            except InputError as exc:  # an option this machine cannot run (no WordNet files): said, not fatal
                self._not_measured(alt, exc.message)
                continue
            self._measured(alt, cell, doc)

    def close(self, interrupted: bool) -> None:
        """Choose among the alternatives measured, and say so in the summary and the verdict."""
        rep = self.report
        alts = rep.alternatives
        if not alts:
            return
        measured = len(alts) - 1
        if interrupted:
            rep.partial = True
            rep.alternatives_note = (rep.alternatives_note or "") + \
                f" (interrupted: {measured} of {self.total} alternatives measured)"
        for c in alts:
            c["chosen"] = False
        k = choose(alts)
        if k is None:
            rep.verdict += " No alternative could be chosen: none passed its check with a scored attack."
            return
        alts[k]["chosen"] = True
        rep.verdict += " " + chosen_sentence(alts, k)


def measure_alternative(ctx: Context, cell, progress: ProgressCallback | None = None) -> dict:
    """One alternative in a worker of the executor (:meth:`AlternativesRun.start`) or here: its
    cell document, or ``{"not_measured": why}`` for an option this machine cannot run."""
    try:
        return run_cell(cell, ctx, progress)
    except InputError as exc:
        return {"not_measured": exc.message}
