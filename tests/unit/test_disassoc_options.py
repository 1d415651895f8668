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
@pytest.mark.slow
def test_reassociation_options_and_cli_give_the_same_error(cli, tmp_path, name, value, args, word):
    extra = {"measure": "wordnet"} if name == "vectors" else {}
    exc = _engine_error(ReassociationOptions, **{name: value, **extra})
    assert exc.option == name and word in exc.message
    release = tmp_path / "r.json"
    release.write_text(json.dumps(RELEASE))
    r = cli("attack", "disassoc", release, *args)
    assert r.returncode == 2, r.stderr
    assert r.stderr.strip() == f"semtui: error: --{name.replace('_', '-')}: {exc.message}"


@pytest.mark.slow
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
    assert (o.method, o.measure, o.k, o.seed, o.ties, o.tie_rule, o.jobs, o.wmd_measure) == (
        "aba", "embedding", None, 0, None, "first", 1, "embedding")
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
@pytest.mark.slow
def test_cover_options_and_cli_give_the_same_error(cli, tmp_path, name, value, args, word):
    exc = _engine_error(CoverOptions, **{name: value})
    assert exc.option == name and word in exc.message
    release = tmp_path / "r.json"
    release.write_text(json.dumps(RELEASE))
    r = cli("cover", release, *args)
    assert r.returncode == 2, r.stderr
    assert r.stderr.strip() == f"semtui: error: --{name.replace('_', '-')}: {exc.message}"


@pytest.mark.slow
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


def test_tie_rule_defaults_per_method_and_an_explicit_one_is_honoured():
    """ties=None is the method's default, decided in one place: the paper's stable order for its
    methods, seeded random ties for NBA (and RA, which places at random anyway); a given rule wins,
    and the default follows the method through replace()."""
    from semtui.attacks.reassociation.options import DEFAULT_TIES, METHODS

    assert set(DEFAULT_TIES) == set(METHODS)
    for method in ("aba", "rga", "mra", "assign"):
        assert ReassociationOptions(method=method).tie_rule == "first"
    assert ReassociationOptions(background="bg.txt").tie_rule == "random"
    assert ReassociationOptions(method="ra").tie_rule == "random"
    nba_first = ReassociationOptions(background="bg.txt", ties="first")
    assert (nba_first.ties, nba_first.tie_rule) == ("first", "first")
    assert ReassociationOptions(method="aba", ties="random").tie_rule == "random"
    aba = ReassociationOptions(method="aba")
    assert aba.replace(method="nba", background="bg.txt").tie_rule == "random"  # not ABA's rule carried over


def test_tui_form_blank_ties_is_the_methods_default():
    from semtui.tui.components.disassoc_form import REASSOC_DEFAULTS, validate

    assert REASSOC_DEFAULTS["ties"] == ""
    for method, background, ties, rule in (("aba", "", "", "first"), ("nba", "bg.txt", "", "random"),
                                           ("nba", "bg.txt", "first", "first"), ("aba", "", "random", "random")):
        params = validate("reassociation", {**REASSOC_DEFAULTS, "method": method, "background": background,
                                            "ties": ties})
        assert params["ties"] == (ties or None)
        opts = ReassociationOptions(**params)
        assert opts.tie_rule == rule
        # the same options as the CLI builds from the same choices (its --ties defaults to None)
        assert opts == ReassociationOptions(method=method, background=background or None, ties=ties or None)


@pytest.mark.slow
def test_cli_ties_default_per_method_and_the_reference_under_the_same_rule(cli, tmp_path):
    """NBA's default ties are random and its informed reference uses the same rule, said in the
    summary; --ties first is honoured for NBA (and its reference); ABA's default stays first."""
    release = tmp_path / "r.json"
    rel = {"format": "semtui-disassociated/1", "k": 2, "m": 2,
           "clusters": [{"id": "P1", "size": 4, "record_chunks": [[["a"], ["a"], ["b"], ["b"]]],
                         "term_chunk": ["s", "t"]}]}
    release.write_text(json.dumps(rel))
    key = tmp_path / "key.json"
    key.write_text(json.dumps({"format": "semtui-disassociation-key/1",
                               "clusters": [{"id": "P1", "record_chunks": [[0, 1, 2, 3]], "term_chunk": [[0], [2]]}]}))
    orig = tmp_path / "orig.txt"
    orig.write_text("a, s\na\nb, t\nb\n")
    bg = tmp_path / "bg.txt"
    bg.write_text("a, s\n" * 3 + "b, t\n" * 3 + "a\nb\n")
    scores = tmp_path / "s.csv"
    scores.write_text("a,b,similarity\na,s,0.9\na,t,0.1\nb,s,0.1\nb,t,0.9\n")
    judged = ["--key", key, "--original", orig]
    docs = {}
    for name, args in (("nba", ["--background", bg]), ("nba-first", ["--background", bg, "--ties", "first"]),
                       ("aba", ["--method", "aba", "--measure", f"scores:{scores}"])):
        r = cli("attack", "disassoc", release, *judged, *args, "--json")
        assert r.returncode == 0, r.stderr
        docs[name] = json.loads(r.stdout)
    for name, rule in (("nba", "random"), ("nba-first", "first"), ("aba", "first")):
        assert docs[name]["ties"] == rule
        assert docs[name]["metrics"]["informed_reference"]["ties"] == rule
    r = cli("attack", "disassoc", release, *judged, "--background", bg)
    assert r.returncode == 0 and "both under random ties" in " ".join(r.stdout.split())
