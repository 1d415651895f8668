"""Every key of the TUI in one registry, each binding with an id (Posting's keymap).

Screens and widgets ask for their bindings by id prefix (``bindings("main")``), so a key is
defined once, the help screen and the palette read the same descriptions, and a user can
remap any binding by its id: ``SEMTUI_KEYMAP="main.attack=A;table.select=o"`` (Textual's
``App.set_keymap``).
"""

from __future__ import annotations

import os

from textual.binding import Binding

from semtui.wording import EXPOSED, MOST_BREACHES_HELP

#: id -> (keys, action, description, shown in the footer)
KEYS: dict[str, tuple[str, str, str, bool]] = {
    # the app: everywhere
    "app.help": ("question_mark,f1", "help", "Help", True),
    "app.close": ("q", "close", "Close / quit", True),
    "app.quit": ("ctrl+q", "quit", "Quit", False),
    "app.palette": ("ctrl+p", "command_palette", "Commands", False),
    "app.open": ("o", "open_file", "Open another file", False),
    # any table
    "table.up": ("up,k", "cursor_up", "Up", False),
    "table.down": ("down,j", "cursor_down", "Down", False),
    "table.first": ("g,home", "first", "First", False),
    "table.last": ("G,end", "last", "Last", False),
    "table.page_up": ("pageup,ctrl+b", "page_up", "Page up", False),
    "table.page_down": ("pagedown,ctrl+f", "page_down", "Page down", False),
    "table.left": ("left,h", "column_left", "Column left", False),
    "table.right": ("right,l", "column_right", "Column right", False),
    "table.select": ("enter", "select", "Open", False),
    "table.sort_asc": ("left_square_bracket", "sort(False)", "Sort ↑", False),
    "table.sort_desc": ("right_square_bracket", "sort(True)", "Sort ↓", False),
    "table.copy": ("y", "copy", "Copy cell/row", False),
    "table.csv": ("ctrl+s", "save_csv", "Save table as CSV", False),
    # every main screen (any release kind)
    "main.filter": ("slash", "filter", "Search / filter", True),
    "main.next_match": ("n", "next_match", "Next match", False),
    "main.prev_match": ("N", "prev_match", "Previous match", False),
    "main.clear": ("escape", "escape", "Cancel / clear filter", False),
    "main.inspect": ("i", "inspect", "Inspect", True),
    "main.summary": ("s", "summary", "Summary", True),
    "main.zoom": ("z", "zoom", "Zoom pane: rows whole", False),
    "main.wider": ("greater_than_sign", "resize(1)", "Widen list", False),
    "main.narrower": ("less_than_sign", "resize(-1)", "Narrow list", False),
    "main.next_pane": ("tab", "next_pane", "Switch pane", False),
    "main.assess": ("A", "assess", "Assess: every attack", False),
    "main.prev_pane": ("shift+tab", "next_pane", "Switch pane", False),
    # set-generalised releases
    "setgen.attack": ("a", "attack", "Attack", True),
    "setgen.risk": ("x", "risk", "Items at risk", True),
    "setgen.view": ("v", "toggle_view", "Transactions/distances", False),
    "setgen.believed": ("b", "toggle_believed", "Released / attacker's view", False),
    "setgen.step": ("space", "step_forward", "Step", False),
    "setgen.step_back": ("backspace", "step_back", "Step back", False),
    "setgen.step_reset": ("r", "step_reset", "Reset steps", False),
    "setgen.step_end": ("E", "step_end", "Last step", False),
    "setgen.step_goto": ("colon", "step_goto", "Go to step N", False),
    "setgen.weighted": ("w", "toggle_weighted", "Raw/weighted", False),
    "setgen.original": ("t", "toggle_original", "Original items", False),
    "setgen.export": ("e", "export", "Export report", False),
    "setgen.compare": ("c", "compare", "Compare results", False),
    "setgen.next_result": ("m", "next_result", "Next result", False),
    # disassociated releases
    "disassoc.attack": ("a", "attack", "Re-associate", True),
    "disassoc.cover": ("p", "cover", "Find cover problems", True),
    "disassoc.problems": ("x", "problems", "Problem list", True),
    "disassoc.view": ("v", "cycle_view", "View", True),
    "disassoc.recon": ("b", "recon", "Reconstructed vs original", False),
    "disassoc.jump": ("colon", "jump", "Go to cluster", False),
    "disassoc.export": ("e", "export", "Export report", False),
    "disassoc.compare": ("c", "compare", "Compare results", False),
    "disassoc.next_result": ("m", "next_result", "Next result", False),
    "disassoc.records": ("r", "records", "Records at risk", False),
    # other kinds: keys that say why they do nothing
    "other.attack": ("a", "no_attack", "Attack (set-generalised data only)", False),
    # compare
    "compare.next": ("n", "next_other", "Other result", True),
    "compare.step": ("space", "step_forward", "Step", True),
    "compare.back": ("backspace", "step_back", "Step back", True),
    "compare.reset": ("r", "step_reset", "Reset steps", True),
    "compare.weighted": ("w", "toggle_weighted", "Raw/weighted", True),
    "compare.original": ("t", "toggle_original", "Original items", True),
    "compare.close": ("escape", "close", "Back", True),
    "compare.tab": ("tab", "other_side", "Other side", False),
    "compare.wrap": ("z", "wrap", "Rows whole", False),
    "compare.shift_tab": ("shift+tab", "other_side", "Other side", False),
    # modals and panels
    "form.cancel": ("escape", "cancel", "Cancel", True),
    "form.run": ("ctrl+s", "run", "Run", True),
    "confirm.yes": ("y,q", "answer(True)", "Yes", True),
    "confirm.no": ("n,escape", "answer(False)", "No", True),
    "export.cancel": ("escape", "cancel", "Cancel", True),
    "error.close": ("escape,enter,q", "dismiss", "Close", True),
    "inspector.close": ("escape,q,enter,i", "dismiss", "Close", True),
    "inspector.down": ("j,down", "scroll(1)", "Scroll down", False),
    "inspector.up": ("k,up", "scroll(-1)", "Scroll up", False),
    "inspector.copy": ("y", "copy", "Copy", True),
    "help.close": ("escape,q,question_mark,f1", "dismiss", "Close help", True),
    "help.down": ("j,down", "scroll(1)", "Scroll down", False),
    "help.up": ("k,up", "scroll(-1)", "Scroll up", False),
    "help.top": ("g,home", "top", "Top", False),
    "help.bottom": ("G,end", "bottom", "Bottom", False),
    "help.page_up": ("pageup", "scroll(-10)", "Page up", False),
    "help.page_down": ("pagedown", "scroll(10)", "Page down", False),
    "summary.top": ("g,home", "scroll_home", "Top", False),
    "summary.bottom": ("G,end", "scroll_end", "Bottom", False),
    "summary.down": ("j", "scroll_down", "Down", False),
    "summary.up": ("k", "scroll_up", "Up", False),
    # assessment screen (semtui open --report A.json, or A on a release)
    "assess.view": ("v", "next_view", "Next view", True),
    "assess.verdict": ("i", "verdict", "Verdict whole", True),
    "assess.attacks": ("1", "view('attacks')", "Attacks ranked", False),
    "assess.records": ("2", "view('records')", "Records at risk", False),
    "assess.items": ("3", "view('items')", "Items exposed", False),
    "assess.alternatives": ("4", "view('alternatives')", "Alternatives (risk–utility)", False),
    "assess.export": ("e", "export", "Export assessment", False),
    "assess.rerun": ("R", "rerun", "Run the assessment again", False),
    "assess.back": ("escape", "back", "Back", True),
    # experiment screen (semtui open RESULTS.jsonl)
    "experiment.back": ("escape", "back", "Back", True),
    # risk view
    "risk.close": ("escape", "close", "Back", True),
    "risk.open": ("enter", "open_group", "Go to group", True),
    "risk.wrap": ("z", "wrap", "Row whole", True),
    # records at risk of a disassociated release
    "records.close": ("escape", "close", "Back", True),
    "records.open": ("enter", "open_record", "Go to the record", True),
    "records.wrap": ("z", "wrap", "Row whole", True),
}

#: One-line explanations of the words on screen (help screens and tooltips).
GLOSSARY: dict[str, str] = {
    "δ": "δ: the threshold a method compares distances (or weights) with; above it a cell is eliminated",
    "vulnerability": "vulnerability: how strongly a row or column stands out from the rest of the table; "
                     "GBA/RBA eliminate in the most vulnerable one first",
    "density": "density: the share of a generalised item's members that are really in the original "
               "transactions (low density = many added decoys)",
    "elim a/b": "elim a/b: a cells eliminated by the attack out of b cells in the group's distance table",
    "skipped rows": "skipped rows: transactions with no scored context item, which the attack cannot judge",
    "re-identified rows": "re-identified rows: transactions left with a single possible member (with the original: how many of them to the row's own item)",
    "exposed": EXPOSED,
    "assoc": "assoc: the share of a cluster's items kept in a record chunk (associated with the other items "
             "of that chunk) rather than in the term chunk",
    "cover": MOST_BREACHES_HELP,
    "acc / brk": "acc / brk: the share of the cluster's placements that went to the right transaction, and "
                 "the share of its transactions with at least one item correctly re-associated",
    "k": "k: the cover a release promises; from the form, else the release's sidecar, else the "
         "smallest group size",
}


def bindings(*prefixes: str) -> list[Binding]:
    """The registry's bindings whose id starts with one of ``prefixes`` (``"main"`` or ``"main."``)."""
    out = []
    for ident, (keys, action, description, show) in KEYS.items():
        if any(ident.startswith(p.rstrip(".") + ".") for p in prefixes):
            out.append(Binding(keys, action, description, show=show, id=ident,
                               priority=ident == "app.quit"))
    return out


def only(*ids: str) -> list[Binding]:
    """Just these bindings of the registry."""
    out = []
    for ident in ids:
        keys, action, description, show = KEYS[ident]
        out.append(Binding(keys, action, description, show=show, id=ident))
    return out


def user_keymap(spec: str | None = None) -> dict[str, str]:
    """``SEMTUI_KEYMAP`` (``id=keys;id=keys``) as a Textual keymap; unknown ids are ignored."""
    spec = os.environ.get("SEMTUI_KEYMAP", "") if spec is None else spec
    out = {}
    for part in spec.split(";"):
        ident, _, keys = part.partition("=")
        if ident.strip() in KEYS and keys.strip():
            out[ident.strip()] = keys.strip()
    return out
