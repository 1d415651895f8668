"""Opening a release from a document (an experiment cell, an assessment): the usual release
screen, pushed over the document's screen (escape or q comes back), or a line that says why
it cannot be opened."""

from __future__ import annotations

from pathlib import Path

from semtui.errors import InputError
from semtui.tui.documents import resolve


def release_screen(screen, release: str | None, beside: Path, *, original: str | None = None,
                   key: str | None = None, what: str = "this cell", session=None, pending: dict | None = None,
                   attack_defaults: dict | None = None):
    """Push the release screen for ``release`` (a path as the document wrote it, resolved from
    the working folder, else beside the document) and return it; None (and a notification
    saying why) when it cannot be opened.  ``session``: an already open session of that release
    (the one the assessment was run from), reused instead of reading the files again.
    ``pending``: a record of an assessment to dive into once the screen is up;
    ``attack_defaults``: what the attack form starts from (the assessment's strongest attack)."""
    from semtui.tui.screens import screen_for
    from semtui.tui.session import load_session

    app = screen.app
    if session is None:
        if not release:
            app.notify(f"{what}: no release was kept (its 'release' is null), nothing to open", severity="warning")
            return None
        path = resolve(release, beside)
        if not path.is_file():
            app.notify(f"{what}: the release {release} is not there (looked in the working folder and beside "
                       f"{Path(beside).name})", severity="warning", timeout=6)
            return None
        orig, the_key = resolve(original, beside), resolve(key, beside)
        orig = orig if orig is not None and orig.is_file() else None
        the_key = the_key if the_key is not None and the_key.is_file() else None
        try:
            session = load_session(path, original=orig, key=the_key)
        except InputError as exc:
            if orig is None and the_key is None:
                app.notify(f"cannot open {release}: {exc}", severity="error", timeout=6)
                return None
            try:  # the original or key it names does not belong to it: the release alone
                session = load_session(path)
            except (InputError, OSError) as exc2:
                app.notify(f"cannot open {release}: {exc2}", severity="error", timeout=6)
                return None
            app.notify(f"opened {release} without its original/key ({exc})", severity="warning", timeout=6)
        except OSError as exc:
            app.notify(f"cannot open {release}: {exc}", severity="error", timeout=6)
            return None
    new = screen_for(session, attack_defaults)
    new.pushed = True
    new.pending_dive = pending
    app.push_screen(new)
    return new
