"""semtui: measure how much of an anonymised transaction dataset a semantic attacker takes back.

The package has one engine and two faces.  Everything except ``semtui.cli`` and
``semtui.tui`` is the engine: it never imports textual or rich, takes plain
arguments, returns plain objects and reports progress through a callback.
"""

__version__ = "0.1.0"
