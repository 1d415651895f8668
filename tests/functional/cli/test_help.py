"""``semtui --help`` reads as the work: commands in panels in the README's order (anonymise →
check → attack → look → tools), and a flag shows no value (issue 19: ``--version <bool>``)."""

from __future__ import annotations

import re

import pytest

PANELS = ["Anonymise", "Check", "Attack", "Look", "Tools"]
IN_ORDER = ["anonymize", "check", "attack", "assess", "cover", "open", "info", "score", "measures", "table", "corpus",
            "cache", "hierarchy"]


def _commands() -> list[list[str]]:
    """Every command and command group, as the words that name it."""
    from semtui.cli.main import whole_command

    found = []

    def walk(cmd, path):
        found.append(path)
        for name, sub in getattr(cmd, "commands", {}).items():
            walk(sub, [*path, name])

    walk(whole_command(), [])
    return found


def test_the_commands_are_listed_in_panels_in_the_order_of_the_work(semtui):
    r = semtui("--help")
    assert r.rc == 0
    titles = re.findall(r"╭─ (\w+) ─", r.out)
    assert titles == ["Options", *PANELS], titles
    listed = [m.group(1) for m in re.finditer(r"^│ (\w+) ", r.out, re.M) if m.group(1) in IN_ORDER]
    assert listed == IN_ORDER
    # each command in its panel: the text between two panel titles
    body = {t: r.out.split(f"╭─ {t} ")[1].split("╰")[0] for t in PANELS}
    assert "anonymize" in body["Anonymise"] and "check" in body["Check"]
    assert {"attack", "assess", "cover"} <= set(re.findall(r"│ (\w+) ", body["Attack"]))
    assert set(re.findall(r"│ (\w+) ", body["Look"])) >= {"open", "info"}
    assert set(re.findall(r"^│ (\w+) ", body["Tools"], re.M)) == {"score", "measures", "table", "corpus", "cache",
                                                                 "hierarchy"}


@pytest.mark.slow
def test_no_flag_shows_a_value_in_any_help(semtui):
    commands = _commands()
    assert len(commands) > 20
    for words in commands:
        r = semtui(*words, "--help")
        assert r.rc == 0, (words, r.err)
        assert "<bool>" not in r.out and "BOOLEAN" not in r.out, (words, r.out)
        assert "--help" in r.out
    r = semtui("--help")
    assert re.search(r"│ --version +Print semtui's version", r.out), r.out
    # an option that takes a value still says which
    r = semtui("attack", "setgen", "--help")
    assert re.search(r"--threshold +<float>", r.out)


@pytest.mark.parametrize("typo, meant", [("anonymise", "anonymize"), ("atack", "attack"), ("attack setgn", "setgen")])
def test_a_misspelt_command_gets_a_suggestion(semtui, typo, meant):
    """The commands are built as they are asked for; a typo still hears of every one."""
    r = semtui(*typo.split())
    assert r.rc == 2
    r.one_error_line(f"Did you mean '{meant}'?")
