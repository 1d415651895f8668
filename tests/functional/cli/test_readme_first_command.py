"""The README's first command runs semtui's main job on the bundled sample: `semtui assess` with the
original and a background shipped beside it, a verdict on screen (issue 39: timed in benchmarks/,
never here)."""

from __future__ import annotations

import re
import shlex

from conftest import REPO, run_cli


def test_the_first_quick_start_command_prints_a_verdict():
    quick = (REPO / "README.md").read_text().split("## Quick start", 1)[1].split("\n## ", 1)[0]
    first = re.findall(r"```(?:sh|bash|console)?\n(.*?)```", quick, re.S)[0].strip().splitlines()[0]
    command = first.split("&&")[-1].strip()
    args = shlex.split(command)
    assert args[:2] == ["semtui", "assess"] and "--background" in args and "--original" in args
    for a in args[2:]:
        if a.startswith("sample_data/"):
            assert (REPO / a).is_file(), a
    r = run_cli(*args[1:], cwd=REPO, timeout=300)
    assert r.returncode == 0, r.stderr
    verdict = [line for line in r.stdout.splitlines() if line.startswith("Verdict:")]
    assert len(verdict) == 1 and "At risk" in verdict[0], r.stdout[:2000]
    assert "Strongest attack:" in r.stdout and "How sure:" in r.stdout
