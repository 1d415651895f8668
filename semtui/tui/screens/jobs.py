"""The long work of a release screen, in workers: what a finished, failed or cancelled job
changes on screen (an attack's result, an export, an assessment), ``e`` (export the current
result), ``A`` (the assessment: every attack that applies, the engine's ``assess``) and what
``q`` would lose.

:class:`ScreenJobs` is mixed into :class:`~semtui.tui.screens.base.BaseScreen`; a release
kind's screen starts its own attacks (:func:`~semtui.tui.workers.start_job`) and words them
through the hooks here (``job_failed``, ``attack_notice``, ``export_name``,
``assessment_results``), never through the ``on_job_*`` handlers.  The keys stay bound on
``BaseScreen`` (Textual collects ``BINDINGS`` only from the screen classes of the MRO).
"""

from __future__ import annotations

from pathlib import Path

from semtui.errors import InputError
from semtui.tui.components.export import export_report
from semtui.tui.messages import JobFailed, JobFinished, JobProgress
from semtui.tui.session import Result


class ScreenJobs:
    """Jobs, export, the assessment and the quit warning of a release screen."""

    # ------------------------------------------------------------------ export
    def export_name(self, result) -> str:
        """The default file name of an exported result (without the folder)."""
        return f"{self.session.path.stem}-report.json"

    def action_export(self) -> None:
        from semtui.tui.components.export import ExportPrompt

        def done(path: str | None) -> None:
            if path:
                self.export_to(Path(path))

        self.app.push_screen(ExportPrompt(self.export_name(self.session.result)), done)

    def export_to(self, path: Path):
        """Write the current result in a worker (a big report takes a second or more); returns
        the worker."""
        from semtui.tui.workers import start_job

        result = self.session.result
        self.notify(f"writing {path}…")
        return start_job(self, "export", export_report, result.report, path, params=(result, path), progress=False,
                         private=self.session.holds_private)

    # ------------------------------------------------------------------ jobs
    def on_job_progress(self, message: JobProgress) -> None:
        if self.progress.running:
            self.progress.update(self.job_title, message.done, message.total, message.message)

    job_title = ""

    #: how a result of this kind's attacks is called when ``q`` would lose it
    RESULT_NOUN = "result"
    #: say "attack cancelled" when an attack is cancelled (a kind whose escape says so already: False)
    SAY_ATTACK_CANCELLED = True

    def on_job_finished(self, message: JobFinished) -> None:
        if message.job == "assess":
            self._attack_done()
            doc, covers = message.result
            self.assessments.append([doc, False])
            self.assessment_results(covers)
            self.show_assessment(self.assessments[-1])
        elif message.job == "attack":
            self._attack_done()
            automatic, self.automatic_attack = self.automatic_attack, False
            self.session.add_result(Result(message.result, "run", automatic=automatic))
            self.result_changed()
            self.notify(self.attack_notice(self.session.result))
        elif message.job == "export":
            result, path = message.params
            result.exported = True
            self.notify(f"wrote {path}")

    def assessment_results(self, covers: dict[str, dict]) -> None:
        """What an assessment ran that this screen shows as a result of its own (the
        disassociation screen: the strong attacker's cover problems)."""

    def attack_notice(self, result) -> str:
        """The line that says an attack finished and what it found."""
        return f"{result.label}: done"

    def _attack_done(self) -> None:
        self.progress.stop()
        self.refresh_bindings()

    def on_job_failed(self, message: JobFailed) -> None:
        self.job_failed(message)

    def job_failed(self, message: JobFailed) -> None:
        """One place that says what went wrong (subclasses handle their own jobs first)."""
        if message.job == "assess":
            if message.cancelled:  # escape said so already
                return
            self._attack_done()
        if message.job == "attack":
            self._attack_done()
            self.automatic_attack = False
            if message.cancelled and not self.SAY_ATTACK_CANCELLED:
                return
        if message.job == "export" and not message.cancelled:
            self.app.show_error("Export failed", str(message.error))
            return
        if message.cancelled:
            self.notify(f"{message.job} cancelled")
            return
        err = message.error
        text = str(err) if isinstance(err, InputError) else f"{type(err).__name__}: {err}"
        self.app.show_error(f"The {message.job} failed", text)

    def quit_warning(self, doing: str = "quit") -> str | None:
        """What ``q`` (or ``o``, ``doing="open another file"``) would lose, or None: asked by the
        app before it leaves this screen's session."""
        from semtui.tui.workers import job_running

        if self.progress.running and job_running(self, "assess"):
            return f"An assessment is running: {doing} and lose it?"
        if self.progress.running:
            return f"An attack is running: {doing} and lose it?"
        if any(not exported for _, exported in self.assessments):
            return f"An assessment was never exported (A shows it, e there writes it): {doing} anyway?"
        unsaved = getattr(self.session, "unexported", None)
        if unsaved:
            n = len(unsaved)
            return f"{n} {self.RESULT_NOUN}{'s' if n > 1 else ''} not exported (e writes one): {doing} anyway?"
        return None

    # ------------------------------------------------------------------ assessment (A)
    def assess_inputs(self):
        """What ``semtui assess`` would be given for this release as it is open here (the
        attack form's measure, if one was chosen); raises InputError when it cannot run."""
        from semtui.assess import AssessInputs, knowledge_of

        s = self.session
        if s.unmarked is not None:
            raise InputError("assess takes releases that mark their generalised items; this one is unmarked "
                             "(semtui attack setgen --unmarked attacks it)")
        if not s.release.anonymised:
            raise InputError(f"assess needs a set-generalised, k^m or disassociated release; this is {s.kind} data")
        # a disassociated release is scored with its key and original together, never one alone
        scored = s.complete().scored   # the key and the original, when they are read after the first paint
        # the knowledge the session's attacks used (every measure, the latest background) and the
        # attack form's measure: the assessment `semtui assess` runs with the same inputs
        measure = self.attack_values.get("measure") if isinstance(self.attack_values, dict) else None
        measures, background = knowledge_of([r.head for r in s.results],
                                            measure if isinstance(measure, str) and measure else None)
        return AssessInputs(data=str(s.path), original=str(s.original_path) if scored else None,
                            key=str(s.key_path) if scored and s.key_path is not None else None,
                            measures=measures, background=background)

    def action_assess(self) -> None:
        """``A``: the last assessment run here, else every applicable attack (the engine's
        ``assess``) in a worker, and its screen when done (``R`` there runs it again)."""
        if self.assessments and not self.progress.running:
            self.show_assessment(self.assessments[-1])
            return
        self.run_assessment()

    def run_assessment(self) -> None:
        if self.progress.running:
            self.notify("wait for the running work to finish (escape cancels it)", severity="warning")
            return
        try:
            inputs = self.assess_inputs()
        except InputError as exc:
            self.notify(str(exc), severity="warning", timeout=6)
            return
        from semtui.experiment.measuring import assess_with_alternatives
        from semtui.tui.workers import start_job

        s = self.session
        release = s.complete() if inputs.original else s.complete().unscored()
        self.job_title = "assess"
        self.progress.start("assess: every attack")
        self.refresh_bindings()
        if inputs.original is None and s.original is not None:
            self.notify("assessed unscored: a disassociated release is scored with its key and original together",
                        timeout=5)

        def assess(progress) -> tuple[dict, dict]:
            # what `semtui assess` reports: the attacks and, with the original, the safer alternatives;
            # beside it the cover attacks' own reports (the strong attacker's becomes a result: x lists it)
            rep = assess_with_alternatives(release, inputs, progress=progress)
            return rep.to_json(), rep.cover_reports

        start_job(self, "assess", assess)

    def cancel_assessment(self) -> bool:
        from semtui.tui.workers import cancel_job, job_running

        if self.progress.running and job_running(self, "assess"):
            # stopped here at once; the engine stops at its next progress call
            cancel_job(self, "assess")
            self._attack_done()
            self.notify("assessment cancelled")
            return True
        return False

    def show_assessment(self, entry: list) -> None:
        """The assessment's screen, over this one: the app makes it (a document's screen sits
        above the release screens, which never import it)."""
        self.app.show_assessment(entry, origin=self)
