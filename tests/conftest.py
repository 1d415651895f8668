"""Shared fixtures: paths to the bundled samples and the shared real data, and a CLI runner."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SAMPLES = REPO / "sample_data"
SHARED_DATA = REPO.parent / "shared" / "data"


def run_cli(*args: str, cwd: Path | None = None, env: dict | None = None, input: str | None = None,
            timeout: float = 120) -> subprocess.CompletedProcess:
    """Run ``python -m semtui ARGS`` as a real process and capture its output."""
    full_env = dict(os.environ)
    full_env.pop("SEMTUI_DEBUG", None)
    full_env.setdefault("SEMTUI_CACHE_DIR", str(Path(os.environ.get("PYTEST_TMP_CACHE", "/tmp")) / "semtui-test-cache"))
    if env:
        full_env.update(env)
    return subprocess.run(
        [sys.executable, "-m", "semtui", *map(str, args)],
        cwd=cwd, env=full_env, input=input, capture_output=True, text=True, timeout=timeout,
    )


@pytest.fixture
def cli():
    return run_cli


@pytest.fixture
def samples() -> Path:
    return SAMPLES


@pytest.fixture
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data is not present")
    return SHARED_DATA
