"""Limits that hold (issue 38, class 1): a whole number beyond 64 bits is one line naming its option
on every command (it ended as an internal error, exit 3, in numpy or the JSON writer), and an m far
beyond the longest transaction asks nothing more of the checkers and of disassociation (it took
every byte of the machine) -- it runs, as an m equal to the longest transaction would."""

from __future__ import annotations

import json

import pytest
from conftest import SAMPLES, run_cli

HUGE = "99999999999999999999999"
INT64_MAX = 2**63 - 1


def test_every_command_checks_its_whole_numbers():
    """Every command of the app (its callback) is wrapped by the one check, whatever its options."""
    from semtui.cli.main import COMMANDS, _built, whole_command

    def leaves(cmd, path=()):
        subs = getattr(cmd, "commands", None)
        if subs:
            for name, sub in subs.items():
                yield from leaves(sub, (*path, name))
        else:
            yield path, cmd

    checked = list(leaves(whole_command()))
    built = [leaf for name, what, panel in COMMANDS for leaf in leaves(_built(name, what, panel), (name,))]
    assert [path for path, _ in checked] == [path for path, _ in built] and len(checked) >= 20
    assert all(getattr(cmd.callback, "__wrapped__", None) is not None for _, cmd in checked)


@pytest.mark.parametrize("args, option", [
    (("anonymize", "setgen", SAMPLES / "meps400-original.txt", "-k", "3", "--random-privacy", HUGE, "-o", "{out}"),
     "--random-privacy"),
    (("anonymize", "setgen", SAMPLES / "meps400-original.txt", "-k", "3", "--random-privacy", "5", "--seed", HUGE,
      "-o", "{out}"), "--seed"),
    (("anonymize", "disassoc", SAMPLES / "meps400-original.txt", "-k", HUGE, "-m", "2", "--max-cluster-size",
      "10", "-o", "{out}"), "-k"),
    (("attack", "disassoc", SAMPLES / "disassociated.json", "--seed", HUGE), "--seed"),
    (("cover", SAMPLES / "disassociated.json", "--attacker", "weak", "--seed", f"-{HUGE}"), "--seed"),
    (("check", "km", SAMPLES / "medical-original.txt", "-k", "2", "-m", HUGE), "-m"),
    (("attack", "setgen", SAMPLES / "medical-setgen.txt", "--k", HUGE), "--k"),
])
def test_a_number_beyond_64_bits_is_one_line_naming_its_option(tmp_path, args, option):
    r = run_cli(*(str(a).replace("{out}", str(tmp_path / "out")) for a in args))
    assert r.returncode == 2, r.stderr
    assert r.stderr.count("\n") == 1 and r.stderr.startswith(f"semtui: error: {option}: "), r.stderr
    assert "beyond the largest whole number" in r.stderr and not list(tmp_path.iterdir())


@pytest.mark.slow
def test_the_largest_64_bit_m_runs_as_the_longest_transaction(tmp_path):
    """An m beyond the longest transaction is the same question as m = the longest transaction:
    the same release, the same check -- in the same bounded time and memory."""
    out = {}
    for m in (str(INT64_MAX), "40"):
        rel, key = tmp_path / f"d{m[:3]}.json", tmp_path / f"k{m[:3]}.json"
        r = run_cli("anonymize", "disassoc", SAMPLES / "meps400-original.txt", "-k", "2", "-m", m,
                    "--max-cluster-size", "10", "-o", rel, "--key", key, timeout=60)
        assert r.returncode == 0, r.stderr
        c = run_cli("check", "km", rel, "-k", "2", "-m", m, "--key", key, "--original",
                    SAMPLES / "meps400-original.txt", "--json", timeout=60)
        assert c.returncode == 0, c.stderr
        doc = json.loads(c.stdout)
        assert doc["holds"] and doc["m"] == int(m)
        out[m] = (json.loads(rel.read_text())["clusters"], doc["violations_by_size"])
    assert out[str(INT64_MAX)] == out["40"]
    plain = run_cli("check", "km", SAMPLES / "meps400-original.txt", "-k", "2", "-m", str(INT64_MAX), "--json",
                    timeout=60)
    assert plain.returncode == 1 and json.loads(plain.stdout)["n_violations"] > 0
