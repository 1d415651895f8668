"""The bundled sample data, found whether semtui is installed from a wheel or editable."""

from __future__ import annotations

from pathlib import Path

#: The file plain ``semtui`` opens.
DEFAULT_SAMPLE = "medical-setgen.txt"
#: Its original, so that the first view has precision and recall.
SAMPLE_ORIGINAL = "medical-original.txt"


def sample_dir() -> Path:
    """``semtui/sample_data`` in an installed wheel, else the repository's ``sample_data/``."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "sample_data", here.parent / "sample_data"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError("semtui's bundled sample_data folder is missing from this installation")


def sample_path(name: str = DEFAULT_SAMPLE) -> Path:
    return sample_dir() / name
