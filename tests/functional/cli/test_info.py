"""`semtui info` on every sample and on real data."""

from __future__ import annotations

import json

import pytest

STABLE_KEYS = {"kind", "transactions", "items", "avg_length", "max_length", "generalised_items",
               "clusters", "record_chunks", "term_chunk_terms"}


def info(cli, *args):
    result = cli("info", *args, "--json")
    assert result.returncode == 0, result.stderr
    facts = json.loads(result.stdout)
    assert STABLE_KEYS <= facts.keys()
    return facts


def test_info_setgen_sample(cli, samples):
    facts = info(cli, samples / "medical-setgen.txt")
    assert facts["kind"] == "set-generalised"
    assert (facts["transactions"], facts["items"], facts["generalised_items"]) == (4, 12, 1)
    assert facts["group_sizes"] == {"min": 4, "mean": 4.0, "max": 4}
    assert facts["max_length"] == 4 and facts["avg_length"] == 3.0


def test_info_plain_sample(cli, samples):
    facts = info(cli, samples / "medical-original.txt")
    assert facts["kind"] == "transactions"
    assert (facts["transactions"], facts["items"], facts["max_length"]) == (4, 12, 5)
    assert facts["avg_length"] == 3.5


def test_info_disassociated_sample(cli, samples):
    facts = info(cli, samples / "disassociated.json")
    assert facts["kind"] == "disassociated"
    assert (facts["clusters"], facts["record_chunks"], facts["term_chunk_terms"]) == (1, 2, 3)
    assert (facts["k"], facts["m"], facts["transactions"], facts["items"]) == (2, 2, 4, 9)
    # 16 sub-record items + 3 term-chunk terms over 4 transactions: Table 2's true average
    assert facts["avg_length"] == 4.75
    assert facts["max_length"] == 3 + 2 + 3  # an upper bound: longest sub-records + term chunk
    # 4 + 4 sub-records (the release keeps C2's two empty ones)
    assert facts["avg_sub_record_length"] == round(16 / 8, 4)


@pytest.mark.parametrize("name", ["medical-setgen.txt", "medical-original.txt", "disassociated.json",
                                  "disassociated-original.txt"])
@pytest.mark.slow
def test_info_renders_for_people(cli, samples, name):
    result = cli("info", samples / name, env={"NO_COLOR": "1"})
    assert result.returncode == 0, result.stderr
    assert "transactions" in result.stdout
    assert "\x1b[" not in result.stdout


@pytest.mark.slow
def test_info_bms_webview_2(cli, shared_data):
    facts = info(cli, shared_data / "bms-webview-2.dat")
    assert facts["transactions"] == 77512
    assert facts["kind"] == "transactions"


@pytest.mark.slow
def test_info_meps(cli, shared_data):
    facts = info(cli, shared_data / "meps2005-conditions.txt")
    assert facts["transactions"] == 26735
    assert facts["items"] == 599


@pytest.mark.slow
def test_info_says_a_disassociated_max_length_is_a_bound(cli, samples):
    """The release only bounds its longest transaction (8 here; the original's longest is 5)."""
    r = cli("info", samples / "disassociated.json")
    assert r.returncode == 0, r.stderr
    row = next(line for line in r.stdout.splitlines() if "max length" in line)
    assert "≤ 8" in row
    assert info(cli, samples / "disassociated.json")["max_length"] == 8  # JSON keeps the number


@pytest.mark.slow
def test_info_prints_a_km_release_ncp_as_anonymize_km_does(cli, samples, tmp_path):
    h, rel = tmp_path / "h.txt", tmp_path / "km.txt"
    assert cli("hierarchy", "build", samples / "meps400-original.txt", "--fanout", "5", "-o", h).returncode == 0
    made = cli("anonymize", "km", samples / "meps400-original.txt", "--hierarchy", h, "-k", "3", "-m", "2", "-o", rel)
    assert made.returncode == 0, made.stderr
    ncp = made.stdout.split("NCP ")[1].split(",")[0]
    assert ncp.endswith("%")
    r = cli("info", rel)
    row = next(line for line in r.stdout.splitlines() if " ncp " in line)
    assert ncp in row, (ncp, row)
    assert isinstance(info(cli, rel)["ncp"], float)
