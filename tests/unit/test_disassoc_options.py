"""The options objects of the disassociation attacks (re-association, cover): one validation,
the same error from the engine, the CLI and the TUI form."""

from __future__ import annotations

import json

import pytest

from semtui.attacks.cover import CoverOptions
from semtui.attacks.reassociation import ReassociationOptions
from semtui.errors import InputError

RELEASE = {"format": "semtui-disassociated/1", "k": 2, "m": 2,
           "clusters": [{"id": "P1", "size": 2, "record_chunks": [[["a", "b"], ["a", "b"]]], "term_chunk": ["c"]}]}

# (engine keyword, value, CLI argument(s), a word of the message)
REASSOC_BAD = [
    ("method", "nope", ["--method", "nope"], "unknown method"),
    ("measure", "bogus:x", ["--measure", "bogus:x"], "unknown measure"),
    ("measure", "scores:", ["--measure", "scores:"], "needs"),
    ("seed", -1, ["--seed", "-1"], "at least 0"),
    ("k", 0, ["--k", "0"], "at least 1"),
    ("jobs", 0, ["--jobs", "0"], "at least 1"),
    ("term_placements", 0, ["--term-placements", "0"], "at least 1"),
    ("background", "counts:", ["--background", "counts:"], "needs a file"),
    ("ties", "last", ["--ties", "last"], "first or random"),
    ("vectors", "v.txt", ["--measure", "wordnet", "--vectors", "v.txt"], "only applies to the embedding"),
]


def _engine_error(cls, **kwargs) -> InputError:
    with pytest.raises(InputError) as info:
        cls(**kwargs)
    return info.value


@pytest.mark.parametrize("name, value, args, word", REASSOC_BAD)
def test_reassociation_options_and_cli_give_the_same_error(cli, tmp_path, name, value, args, word):
    extra = {"measure": "wordnet"} if name == "vectors" else {}
    exc = _engine_error(ReassociationOptions, **{name: value, **extra})
    assert exc.option == name and word in exc.message
    release = tmp_path / "r.json"
    release.write_text(json.dumps(RELEASE))
    r = cli("attack", "disassoc", release, *args)
    assert r.returncode == 2, r.stderr
    assert r.stderr.strip() == f"semtui: error: --{name.replace('_', '-')}: {exc.message}"


def test_background_goes_with_nba_only(cli, tmp_path):
    assert ReassociationOptions(background="bg.txt").method == "nba"  # the default with knowledge
    exc = _engine_error(ReassociationOptions, method="aba", background="bg.txt")
    assert exc.option == "background" and "only applies to nba" in exc.message
    exc2 = _engine_error(ReassociationOptions, method="nba")
    assert exc2.option == "background"
    release = tmp_path / "r.json"
    release.write_text(json.dumps(RELEASE))
    for args, e in ((["--method", "aba", "--background", "bg.txt"], exc), (["--method", "nba"], exc2)):
        r = cli("attack", "disassoc", release, *args)
        assert r.returncode == 2 and r.stderr.strip() == f"semtui: error: --background: {e.message}"


def test_reassociation_options_defaults_and_normalisation():
    o = ReassociationOptions()
    assert (o.method, o.measure, o.k, o.seed, o.ties, o.jobs, o.wmd_measure) == (
        "aba", "embedding", None, 0, "first", 1, "embedding")
    o = ReassociationOptions(method=" MRA ", ties="Random", seed=3.0, k=2)
    assert (o.method, o.ties, o.seed, o.k) == ("mra", "random", 3, 2)
    assert o.replace(seed=4).seed == 4
    with pytest.raises(InputError) as info:
        o.replace(seed=1.5)
    assert info.value.option == "seed"
    assert ReassociationOptions(measure="scores:/x/s.csv").measure_files[0].name == "s.csv"


@pytest.mark.parametrize("name, value, args, word", [
    ("attacker", "nobody", ["--attacker", "nobody"], "strong, moderate or weak"),
    ("seed", -2, ["--seed", "-2"], "at least 0"),
])
def test_cover_options_and_cli_give_the_same_error(cli, tmp_path, name, value, args, word):
    exc = _engine_error(CoverOptions, **{name: value})
    assert exc.option == name and word in exc.message
    release = tmp_path / "r.json"
    release.write_text(json.dumps(RELEASE))
    r = cli("cover", release, *args)
    assert r.returncode == 2, r.stderr
    assert r.stderr.strip() == f"semtui: error: --{name.replace('_', '-')}: {exc.message}"


def test_moderate_attacker_without_the_original_names_it(cli, tmp_path):
    from semtui.attacks.cover import run_cover
    from semtui.formats.disassociated import parse_disassociated

    with pytest.raises(InputError) as info:
        run_cover(parse_disassociated(RELEASE, "r"), CoverOptions(attacker="moderate"))
    assert info.value.option == "original"
    release = tmp_path / "r.json"
    release.write_text(json.dumps(RELEASE))
    r = cli("cover", release, "--attacker", "moderate")
    assert r.returncode == 2 and r.stderr.strip() == f"semtui: error: --original: {info.value.message}"


def test_tui_forms_validate_with_the_engine_options():
    """The forms' errors are the engine's, naming the same field; valid values build the options."""
    from semtui.tui.components.disassoc_form import REASSOC_DEFAULTS, validate

    params = validate("reassociation", REASSOC_DEFAULTS)
    assert ReassociationOptions(**params) == ReassociationOptions()
    for name, value, _, word in REASSOC_BAD:
        if name in ("vectors",):
            values = {**REASSOC_DEFAULTS, "measure": "wordnet", "vectors": value}
        else:
            values = {**REASSOC_DEFAULTS, name: str(value)}
        with pytest.raises(InputError) as info:
            validate("reassociation", values)
        assert info.value.option == name and word in info.value.message
    assert CoverOptions(**validate("cover", {"attacker": "weak", "knowledge": "", "seed": "4"})) == CoverOptions(
        attacker="weak", seed=4)
    with pytest.raises(InputError) as info:
        validate("cover", {"attacker": "strong", "knowledge": "/nonexistent/k.txt", "seed": "0"})
    assert info.value.option == "knowledge"
