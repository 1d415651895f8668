"""The Textual face.  Only this package (and semtui.cli) may import textual or rich."""
