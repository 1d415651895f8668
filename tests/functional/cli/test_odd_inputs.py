"""Odd but valid inputs never give an internal error (issue 19, class 3): every command that
reads a release with no plain item, a disassociated release claiming a cluster of 10^11
records, 50 transactions of 10,000 items, or -m 1000, ends with exit 0, 1 or 2 — never 3 —
with at most one stderr line (exactly one for exit 2) and no library warning, in bounded
memory: each runs as a process of its own under a 2 GiB address-space limit, so a blow-up
fails the test instead of the machine.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SAMPLES

from semtui import formats

pytestmark = pytest.mark.slow  # every test here is slow (README.md, Development)

ORIGINAL = SAMPLES / "medical-original.txt"
DISASSOCIATED = SAMPLES / "disassociated.json"
KEY = SAMPLES / "disassociated.key.json"
TABLE2 = SAMPLES / "disassociated-original.txt"
#: the address space every command gets: far above what these inputs really need (< 300 MB)
LIMIT = 2 << 30
NO_PLAIN_CONTEXT = "no plain context; no background knowledge given"


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))


def bounded(*args, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, SEMTUI_CACHE_DIR=str(cwd / "cache"), OPENBLAS_NUM_THREADS="1")
    env.pop("SEMTUI_DEBUG", None)
    return subprocess.run([sys.executable, "-m", "semtui", *map(str, args)], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300, preexec_fn=_limit)


@pytest.fixture(scope="module")
def odd(tmp_path_factory) -> Path:
    """The odd inputs, made in a temporary folder (the k^m release by `anonymize km` itself)."""
    d = tmp_path_factory.mktemp("odd")
    for args in (["hierarchy", "build", ORIGINAL, "--fanout", "2", "-o", d / "h.txt"],
                 ["anonymize", "km", ORIGINAL, "--hierarchy", d / "h.txt", "-k", "2", "-m", "2", "-o",
                  d / "noplain.txt"]):
        assert bounded(*args, cwd=d).returncode == 0
    release = formats.read_transactions(d / "noplain.txt")
    assert release.n_generalised and (release.tokens < 0).all()  # no plain item at all
    (d / "constraints.txt").write_text("heart disease, icd\nknee\n")
    doc = json.loads(DISASSOCIATED.read_text())
    doc["clusters"][0]["size"] = 10 ** 11
    (d / "huge-claim.json").write_text(json.dumps(doc))
    doc["k"] = 10 ** 11  # now the size is within what k - 1 holders per term allow
    (d / "huge-k.json").write_text(json.dumps(doc))
    items = " ".join(str(i) for i in range(10_000))
    (d / "wide.dat").write_text(f"{items}\n" * 50)
    (d / "wide-h.txt").write_text("".join(f"{i};{i // 100};*\n" for i in range(10_000)))
    # a disassociated release whose C1 and other terms make 6e7 term pairs to score
    wide = {"format": "semtui-disassociated/1", "k": 2, "m": 2,
            "clusters": [{"id": "P1", "size": 10, "record_chunks": [[[f"a{i}" for i in range(1000)]] * 10],
                          "term_chunk": [f"t{i}" for i in range(60_000)]}]}
    (d / "wide-release.json").write_text(json.dumps(wide))
    return d


# (arguments, the exit codes that are right, text stdout or stderr must hold)
CASES = {
    # a release with no plain item (every k^m release with m >= 2)
    "info no-plain": (["info", "noplain.txt"], {0}, ""),
    "attack setgen no-plain": (["attack", "setgen", "noplain.txt", "--original", ORIGINAL], {0}, NO_PLAIN_CONTEXT),
    "attack setgen no-plain json": (["attack", "setgen", "noplain.txt", "--original", ORIGINAL, "--json"], {0},
                                    NO_PLAIN_CONTEXT),
    "attack setgen no-plain, no original": (["attack", "setgen", "noplain.txt"], {0}, NO_PLAIN_CONTEXT),
    "check km no-plain": (["check", "km", "noplain.txt", "-k", "2", "-m", "2"], {0}, "holds"),
    "check privacy no-plain": (["check", "privacy", "noplain.txt", "--privacy", "constraints.txt", "-k", "2"],
                               {0}, "holds"),
    "anonymize setgen no-plain": (["anonymize", "setgen", "noplain.txt", "-k", "2", "-o", "o.txt",
                                   "--random-privacy", "2"], {2}, ""),
    "anonymize disassoc no-plain": (["anonymize", "disassoc", "noplain.txt", "-k", "2", "-m", "2",
                                     "--max-cluster-size", "4", "-o", "o.json"], {2}, ""),
    "anonymize km no-plain": (["anonymize", "km", "noplain.txt", "--hierarchy", "h.txt", "-k", "2", "-m", "2",
                               "-o", "o.txt"], {2}, ""),
    "hierarchy build no-plain": (["hierarchy", "build", "noplain.txt", "--fanout", "2", "-o", "o.txt"], {2}, ""),
    "cover no-plain": (["cover", "noplain.txt"], {2}, ""),
    "attack disassoc no-plain": (["attack", "disassoc", "noplain.txt"], {2}, ""),
    # a cluster claiming 10^11 records
    "info huge claim": (["info", "huge-claim.json"], {2}, "size"),
    "check km huge claim": (["check", "km", "huge-claim.json", "-k", "2", "-m", "2"], {2}, "size"),
    "cover huge claim": (["cover", "huge-claim.json"], {2}, "size"),
    "attack disassoc huge claim": (["attack", "disassoc", "huge-claim.json"], {2}, "size"),
    "attack disassoc huge claim, key": (["attack", "disassoc", "huge-claim.json", "--key", KEY, "--original",
                                         TABLE2], {2}, "size"),
    "info huge k": (["info", "huge-k.json"], {0}, ""),
    "check km huge k": (["check", "km", "huge-k.json", "-k", "2", "-m", "2"], {0, 1, 2}, ""),
    "cover huge k": (["cover", "huge-k.json"], {0, 1, 2}, ""),
    "attack disassoc huge k": (["attack", "disassoc", "huge-k.json"], {2}, "huge-k.json: cluster 'P1' describes"),
    # 50 transactions of 10,000 items
    "info wide": (["info", "wide.dat"], {0}, ""),
    "check km -m 3 wide": (["check", "km", "wide.dat", "-k", "2", "-m", "3"], {0, 2}, ""),
    "hierarchy build wide": (["hierarchy", "build", "wide.dat", "--fanout", "10", "-o", "o.txt"], {0}, ""),
    "anonymize km wide": (["anonymize", "km", "wide.dat", "--hierarchy", "wide-h.txt", "-k", "2", "-m", "2",
                           "-o", "o.txt"], {0, 2}, ""),
    "attack setgen wide": (["attack", "setgen", "wide.dat"], {2}, ""),
    "info wide release": (["info", "wide-release.json"], {0}, ""),
    "check km wide release": (["check", "km", "wide-release.json", "-k", "2", "-m", "2"], {0, 1}, ""),
    "cover wide release": (["cover", "wide-release.json"], {0, 1}, ""),
    "attack disassoc wide release": (["attack", "disassoc", "wide-release.json"], {2}, "wide-release.json: "),
    # -m 1000
    "anonymize km -m 1000": (["anonymize", "km", ORIGINAL, "--hierarchy", "h.txt", "-k", "2", "-m", "1000",
                              "-o", "o.txt"], {0}, ""),
    "anonymize disassoc -m 1000": (["anonymize", "disassoc", ORIGINAL, "-k", "2", "-m", "1000",
                                    "--max-cluster-size", "4", "-o", "o.json"], {0}, ""),
    "check km -m 1000": (["check", "km", ORIGINAL, "-k", "2", "-m", "1000"], {0, 1}, ""),
    "check km -m 1000 release": (["check", "km", DISASSOCIATED, "-k", "2", "-m", "1000"], {0, 1}, ""),
    "anonymize km lra default parts": (["anonymize", "km", ORIGINAL, "--hierarchy", "h.txt", "-k", "2", "-m", "2",
                                        "--algorithm", "lra", "-o", "o.txt"], {0}, ""),
}


class TestOddInputs:
    @pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
    def test_no_internal_error_and_bounded_memory(self, odd, case):
        args, codes, needle = CASES[case]
        r = bounded(*args, cwd=odd)
        assert r.returncode in codes, (r.returncode, r.stderr)
        assert "Traceback" not in r.stderr and "internal error" not in r.stderr
        assert "Warning" not in r.stderr, r.stderr  # no library warning, no source path
        assert r.stderr.count("\n") <= 1, r.stderr
        if r.returncode == 2:
            assert r.stderr.startswith("semtui: error: ") and r.stderr.count("\n") == 1, r.stderr
        if needle:
            assert needle in r.stdout + r.stderr, (r.stdout[-500:], r.stderr)

    def test_the_unscored_rows_are_reported_not_cleared(self, odd):
        """Every row of a release with no plain item is unscored for a stated reason; the
        report claims no privacy figure for rows it never attacked."""
        r = bounded("attack", "setgen", "noplain.txt", "--original", ORIGINAL, "--json", cwd=odd)
        s = json.loads(r.stdout)["summary"]
        assert s["attacked_rows"] == 0 and s["unscored"] == {"rows": s["rows"], "reasons": {NO_PLAIN_CONTEXT: s["rows"]}}
        text = bounded("attack", "setgen", "noplain.txt", "--original", ORIGINAL, cwd=odd).stdout
        assert "Privacy: not measured" in text and "member items can now appear" not in text


class TestKmOnMepsNames:
    """Issue 19, class 5, end to end on real names holding ';': hierarchy build -> anonymize km
    -> check km -> attack setgen, with a built hierarchy and with the ICD-9 one renamed to
    MEPS' condition names (every row of that m = 2 release loses its plain items).  The first
    2,000 patients: at m = 2 the ICD-9 cut is the root, and the whole file's release is 600 MB."""

    @pytest.fixture
    def meps(self, shared_data, tmp_path) -> Path:
        lines = (shared_data / "meps2005-conditions.txt").read_text().splitlines()[:2000]
        (tmp_path / "meps2000.txt").write_text("\n".join(lines) + "\n")
        return tmp_path / "meps2000.txt"

    def _chain(self, d: Path, meps: Path, hierarchy: Path) -> dict:
        r = bounded("anonymize", "km", meps, "--hierarchy", hierarchy, "-k", "5", "-m", "2", "-o", d / "km.txt", cwd=d)
        assert r.returncode == 0, r.stderr
        r = bounded("check", "km", d / "km.txt", "-k", "5", "-m", "2", "--json", cwd=d)
        assert r.returncode == 0, r.stderr
        check = json.loads(r.stdout)
        assert check["holds"] and check["kind"] == "set-generalised"
        r = bounded("attack", "setgen", d / "km.txt", "--original", meps, "--json", cwd=d)
        assert r.returncode == 0 and "Warning" not in r.stderr, r.stderr
        return json.loads(r.stdout)["summary"]

    def test_built_hierarchy(self, meps, tmp_path):
        r = bounded("hierarchy", "build", meps, "--fanout", "5", "-o", tmp_path / "h.txt", cwd=tmp_path)
        assert r.returncode == 0, r.stderr
        assert '"' in (tmp_path / "h.txt").read_text()  # names holding ';' are quoted
        r = bounded("hierarchy", "info", tmp_path / "h.txt", "--json", cwd=tmp_path)
        info = json.loads(r.stdout)
        assert info["leaves"] > 300 and info["cuts"] is None and info["cuts_at_least"] > 100_000
        summary = self._chain(tmp_path, meps, tmp_path / "h.txt")
        assert summary["unscored"]["rows"] == summary["skipped_rows"]

    def test_icd9_hierarchy_renamed(self, shared_data, meps, tmp_path):
        from semtui.formats.hierarchy import read_hierarchy, write_hierarchy
        from semtui.model.hierarchy import Hierarchy

        h = read_hierarchy(shared_data / "icd9.hierarchy.txt")
        names = dict(line.split("\t") for line in (shared_data / "icd9-3digit-names.tsv").read_text().splitlines())
        names = {c: n.replace(",", ";").replace("(", " - ").replace(")", " - ") for c, n in names.items()}
        write_hierarchy(Hierarchy([names.get(lab, lab) if h.is_leaf[v] else lab for v, lab in enumerate(h.labels)],
                                  h.parent), tmp_path / "icd9-names.txt")
        summary = self._chain(tmp_path, meps, tmp_path / "icd9-names.txt")
        assert summary["attacked_rows"] == 0
        assert summary["unscored"] == {"rows": summary["rows"], "reasons": {NO_PLAIN_CONTEXT: summary["rows"]}}
