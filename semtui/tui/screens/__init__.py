"""One screen per release kind, over a shared :class:`~semtui.tui.screens.base.BaseScreen`."""

from __future__ import annotations

from importlib import import_module

from semtui.release import DISASSOC, KM, PLAIN, SETGEN
from semtui.tui.session import Session

#: the main screen of each family of release (module, class; imported when first shown):
#: a k^m release is set-generalised and shown as one
SCREENS = {DISASSOC: ("disassociated", "DisassociatedScreen"), SETGEN: ("setgen", "SetgenScreen"),
           KM: ("setgen", "SetgenScreen"), PLAIN: ("transactions", "TransactionsScreen")}


def screen_for(session: Session, attack_defaults: dict | None = None):
    """The main screen for the session's release: disassociated, set-generalised (by COAT or k^m)
    or plain transactions."""
    module, name = SCREENS[session.release.family]
    return getattr(import_module(f"semtui.tui.screens.{module}"), name)(session, attack_defaults)
