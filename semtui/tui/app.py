"""The Textual app and ``run_tui``, which the CLI calls for ``semtui open`` and plain ``semtui``."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import ClassVar

from textual.app import App
from textual.binding import BindingType

from semtui.errors import InputError
from semtui.tui.commands import ActionsProvider
from semtui.tui.components.help import HelpScreen, describe_keys
from semtui.tui.components.modal import ErrorModal
from semtui.tui.keys import bindings, user_keymap
from semtui.tui.screens import screen_for
from semtui.tui.session import Session, load_session


class SemtuiApp(App[None]):
    """Opens one :class:`Session`; every screen reads it, only workers add results to it."""

    TITLE = "semtui"
    #: toasts stand above the footer and the panes' bottom borders (their subtitles hold the
    #: counts), one line of padding instead of three
    CSS = """
    ToastRack { margin-bottom: 3; }
    Toast { padding: 0 1; }
    """
    COMMANDS = App.COMMANDS | {ActionsProvider}
    ENABLE_COMMAND_PALETTE = True
    #: toasts sit over the bottom rows of the table: keep them short
    NOTIFICATION_TIMEOUT = 2.5

    BINDINGS: ClassVar[list[BindingType]] = bindings("app")

    def __init__(self, session: Session | None, *, attack_defaults: dict | None = None, autorun: bool = False,
                 document=None, **kw) -> None:
        """``attack_defaults`` prefill the attack form (e.g. a ``scores:FILE`` measure);
        ``autorun`` runs that attack at once (plain ``semtui`` on the sample); ``document``: a
        screen of a document (:func:`document_screen`) to open first instead of ``session``'s."""
        super().__init__(**kw)
        self.session = session
        self.attack_defaults = attack_defaults
        self.autorun = autorun
        self.document = document

    #: an unexpected exception (a bug) in a screen, a widget or a worker: the app exits with
    #: ``INTERNAL_ERROR`` and ``run_session`` raises it, so the CLI says one line and exits 3
    internal_error: BaseException | None = None
    INTERNAL_ERROR = 3  # semtui.cli.exitcodes.INTERNAL (the TUI never imports the CLI)
    #: a companion read after the first paint (:class:`~semtui.tui.session.Companions`) that cannot
    #: be read or does not belong: the app exits with ``BAD_INPUT`` and ``run_session`` raises it
    #: (the CLI's one line, exit 2)
    input_error: Exception | None = None
    BAD_INPUT = 2  # semtui.cli.exitcodes.BAD_INPUT

    def _handle_exception(self, error: Exception) -> None:
        """Never a full-screen traceback: remember the error and exit (SEMTUI_DEBUG=1 keeps
        Textual's traceback, for the developer)."""
        import os

        if os.environ.get("SEMTUI_DEBUG"):
            super()._handle_exception(error)
            return
        from textual.worker import WorkerFailed

        if isinstance(error, WorkerFailed) and isinstance(error.error, BaseException):
            error = error.error
        companions = self.session.companions if self.session is not None else None
        if companions is not None and error is companions.error:   # needed before it was read in
            self._bad_companion(error)
            return
        if self.internal_error is None:
            self.internal_error = error
        self.exit(return_code=self.INTERNAL_ERROR)

    def on_mount(self) -> None:
        keymap = user_keymap()
        if keymap:
            self.set_keymap(keymap)
        self.push_screen(self.document if self.document is not None else self._main(self.session))

    def read_companions(self) -> None:
        """Start reading the session's key and original (the main screen calls this once it is
        up); when they are in, every screen hears of it (``companions_opened``)."""
        session = self.session
        if session is None:
            return
        companions = session.companions

        def then() -> None:
            # handed to the app's loop, not waited for here: what goes wrong in showing them is the
            # app's to handle (it ends the app), never lost in this thread
            try:
                self.call_from_thread(self.call_later, self._companions_in, session)
            except RuntimeError:  # the app has ended meanwhile
                pass

        if companions is None or not companions.start(then):
            # already read (or being read) by whatever needed them first: the screens still hear of it
            self.call_later(self._companions_in, session)

    def _companions_in(self, session: Session) -> None:
        """The companions are in (or failed): every screen shows them, or the app ends with the
        one line. Safe to call more than once."""
        if session is not self.session:
            return
        try:
            session.complete()
        except Exception as exc:
            self._bad_companion(exc)
            return
        for screen in self.screen_stack:
            hook = getattr(screen, "companions_opened", None)
            if hook is not None:
                hook()

    def _bad_companion(self, error: Exception) -> None:
        if self.input_error is None:
            self.input_error = error
        self.exit(return_code=self.BAD_INPUT)

    def _main(self, session: Session):
        screen = screen_for(session, self.attack_defaults)
        if self.autorun and hasattr(screen, "autorun"):
            screen.autorun = True
        return screen

    def action_help(self) -> None:
        screen = self.screen
        if isinstance(screen, HelpScreen):
            return
        name = getattr(screen, "HELP_TITLE", type(screen).__name__)
        self.push_screen(HelpScreen(f"Keys — {name}", describe_keys(screen), getattr(screen, "HELP", "")))

    def action_close(self) -> None:
        """``q``: close the current screen; on the main screen, quit — after asking, when an
        attack runs or results were never exported."""
        if len(self.screen_stack) > 2:
            self.pop_screen()
            return
        warning = getattr(self.screen, "quit_warning", lambda: None)()
        if warning is None:
            self.exit()
            return
        from semtui.tui.components.confirm import Confirm

        def done(yes: bool | None) -> None:
            if yes:
                self.exit()

        self.push_screen(Confirm(warning), done)

    def action_open_file(self) -> None:
        """``o``: open another dataset (``FILE [--original FILE] [--report FILE]``) — after
        asking, as ``q`` does, when a running job or results never exported would be lost."""
        from semtui.tui.components.confirm import Confirm
        from semtui.tui.components.export import ExportPrompt

        def done(text: str | None) -> None:
            if text:
                self.open_file(text)

        def ask_path(go: bool | None = True) -> None:
            if go:
                current = str(self.session.path) if self.session is not None else ""
                self.push_screen(ExportPrompt(current, title="Open: FILE [--original FILE] [--report FILE]",
                                              check_exists=False), done)

        main = self.screen_stack[1] if len(self.screen_stack) > 1 else self.screen
        warning = getattr(main, "quit_warning", lambda doing="quit": None)(doing="open another file")
        if warning is None:
            ask_path()
        else:
            self.push_screen(Confirm(warning, yes="Yes, open another"), ask_path)

    def open_file(self, text: str) -> None:
        try:
            args = shlex.split(text)
        except ValueError as exc:
            self.show_error("Cannot open", str(exc))
            return
        kw: dict[str, Path] = {}
        files = []
        it = iter(args)
        for a in it:
            if a in ("--original", "--report", "--key"):
                value = next(it, None)
                if value is None:
                    self.show_error("Cannot open", f"{a} needs a file")
                    return
                kw[a[2:]] = Path(value)
            else:
                files.append(a)
        if len(files) > 1 or (not files and "report" not in kw):
            self.show_error("Cannot open", "give one dataset file")
            return
        try:
            screen = document_screen(Path(files[0]) if files else None, **kw)
            if screen is None:
                session = load_session(Path(files[0]), **kw)
        except (InputError, OSError) as exc:
            self.show_error("Cannot open", str(exc))
            return
        if screen is None:
            self.session = session
            screen = self._main(session)
        self.autorun = False
        while len(self.screen_stack) > 2:
            self.pop_screen()
        self.switch_screen(screen)

    def show_error(self, title: str, message: str) -> None:
        self.push_screen(ErrorModal(title, message))

    def show_assessment(self, entry: list, origin) -> None:
        """An assessment run on the release screen ``origin`` (``A``): its screen, over it."""
        from semtui.tui.screens.assessment import AssessmentScreen

        screen = AssessmentScreen(entry[0], origin=origin)
        screen.entry = entry  # its export marks the release screen's copy exported
        self.push_screen(screen)


def document_screen(file: Path | None, *, original: Path | None = None, report: Path | None = None,
                    key: Path | None = None):
    """The screen of a document, or None when ``file`` is a release (no document involved):
    ``FILE`` a RESULTS file of ``semtui experiment`` (its first line's ``format`` says so) → the
    experiment screen; ``--report`` (or ``FILE``) an assessment → the assessment screen, over
    ``FILE`` as its release when both are given.  Reads and checks first (InputError)."""
    from semtui.tui.documents import read_assessment, read_experiment, sniff

    if file is not None and sniff(file) == "experiment":
        if original is not None or report is not None or key is not None:
            raise InputError("a RESULTS file opens alone (each cell names its release)", file)
        from semtui.tui.screens.experiment import ExperimentScreen

        return ExperimentScreen(read_experiment(file))
    doc_path = report if report is not None and sniff(report) == "assessment" else \
        file if file is not None and report is None and sniff(file) == "assessment" else None
    if doc_path is None:
        return None
    from semtui.tui.screens.assessment import AssessmentScreen

    doc = read_assessment(doc_path)
    session = None
    if file is not None and doc_path is not file:
        session = load_session(Path(file), original=original, key=key)
    return AssessmentScreen(doc, path=Path(doc_path), session=session)


def run_document(screen) -> None:
    """Run the app on a document's screen (see :func:`document_screen`)."""
    SemtuiApp(None, document=screen).run()


def run_tui(
    file: Path,
    *,
    original: Path | None = None,
    report: Path | None = None,
    key: Path | None = None,
    autorun: bool = False,
) -> None:
    """Load and check every file first (bad input raises InputError), then run the app."""
    run_session(load_session(Path(file), original=original, report=report, key=key), autorun=autorun)


def run_session(session, *, autorun: bool = False) -> None:
    """Run the app on a loaded session (``autorun``: start the default attack at once)."""
    app = SemtuiApp(session, autorun=autorun)
    app.run()
    import threading

    error = app.internal_error
    if error is None and app.input_error is not None:
        raise app.input_error  # a companion that does not belong: one line, exit 2
    if any(t.is_alive() and not t.daemon for t in threading.enumerate() if t is not threading.main_thread()):
        # A weighted replay cannot be interrupted inside the eliminator: do not make the user
        # wait for a result nobody will see (the interpreter would join its thread at exit).
        import os
        import sys

        if error is not None:
            sys.stderr.write(f"semtui: internal error (a bug in semtui; please report it with the command line): "
                             f"{type(error).__name__}: {error}\n")
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0 if error is None else SemtuiApp.INTERNAL_ERROR)
    if error is not None:
        raise error  # the CLI words it as one line and exits 3
