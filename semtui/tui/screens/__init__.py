"""One screen per release kind, over a shared :class:`~semtui.tui.screens.base.BaseScreen`."""

from __future__ import annotations

from semtui.model import DisassociatedData, TransactionData
from semtui.tui.session import Session


def screen_for(session: Session, attack_defaults: dict | None = None):
    """The main screen for the session's release kind."""
    data = session.data
    if isinstance(data, DisassociatedData):
        from semtui.tui.screens.disassociated import DisassociatedScreen

        return DisassociatedScreen(session, attack_defaults)
    if isinstance(data, TransactionData) and data.n_generalised:
        from semtui.tui.screens.setgen import SetgenScreen

        return SetgenScreen(session, attack_defaults)
    from semtui.tui.screens.transactions import TransactionsScreen

    return TransactionsScreen(session, attack_defaults)
