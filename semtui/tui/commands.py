"""The ``ctrl+p`` palette: every action bound on the current screen, by its description.

Built from the live bindings (Posting's approach), so a new key is in the palette the
moment it exists, and the palette never offers an action the screen cannot run.
"""

from __future__ import annotations

from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider

#: Palette-only actions that no key could express.
SKIP = {"command_palette"}


class ActionsProvider(Provider):
    def _commands(self) -> list[tuple[str, str, object]]:
        screen = self.screen
        seen: set[tuple[int, str]] = set()
        out = []
        for active in screen.active_bindings.values():
            b = active.binding
            if b.action in SKIP or not active.enabled:
                continue
            ident = (id(active.node), b.action)
            if ident in seen:
                continue
            seen.add(ident)
            label = b.description or b.action.replace("_", " ")
            keys = screen.app.get_key_display(b)
            out.append((label, f"key: {keys}", partial(active.node.run_action, b.action)))
        for label, help_text, callback in getattr(screen, "palette_commands", list)():
            out.append((label, help_text, callback))
        return sorted(out, key=lambda c: c[0].lower())

    async def discover(self) -> Hits:
        for label, help_text, callback in self._commands():
            yield DiscoveryHit(label, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for label, help_text, callback in self._commands():
            score = matcher.match(label)
            if score > 0:
                yield Hit(score, matcher.highlight(label), callback, help=help_text)
