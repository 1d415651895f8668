"""The fixed runs behind the golden reports (issue 36), and how their outputs are normalised
and compared.

Each run is one ``semtui`` command run as a real process, in a work folder holding its inputs
(the bundled samples, a MEPS slice and a TOML spec), with relative paths and a fixed
``--seed`` wherever the command takes one. Runs of one chain depend on the earlier runs of that
chain (an attack reads the release ``anonymize`` wrote); chains are independent of each other.

What is kept of a run: its exit code, its stdout (JSON, normalised) and every file it writes
(a JSON file normalised; any other file its bytes, format version suffixes stripped).
Normalising drops what legitimately differs between two runs of the same code (timings,
semtui's version, the work folder's absolute path) and what issue 36 means to change (the two
JSON shapes of an interval, format version suffixes); everything else must stay identical.

Used by ``tests/functional/cli/test_golden_reports.py`` (which runs the working tree) and by
``tests/golden/regenerate.py`` (which writes the goldens).
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path

GOLDEN = Path(__file__).resolve().parent
RUNS_DIR = GOLDEN / "runs"
FILES_DIR = GOLDEN / "files"

MEPS_FILE = "meps2005-conditions.txt"
SLICE = 300  # the MEPS slice: the first SLICE transactions; its background, the next SLICE

SAMPLE_FILES = ("medical-setgen.txt", "medical-original.txt", "disassociated.json",
                "disassociated.key.json", "disassociated-original.txt")

SPEC = """original = "meps-head.txt"
background = "meps-next.txt"

[[release]]
family = "setgen"
k = [3]
random_privacy = 10
sizes = "3-5"
seed = 1

[[release]]
family = "disassoc"
k = [3]
m = [2]
max_cluster_size = [30]

[[release]]
family = "km"
k = [5]
m = [2]
fanout = [5]
order = ["id"]
algorithm = "aa"
"""


@dataclass(frozen=True)
class Run:
    """One command: ``semtui ARGS`` in the work folder; ``files`` it writes are kept too."""

    name: str
    args: tuple[str, ...]
    files: tuple[str, ...] = ()
    meps: bool = False  # needs the MEPS slice (../shared/data)


def _chain(*runs: Run) -> tuple[Run, ...]:
    return runs


S, SO = "medical-setgen.txt", "medical-original.txt"
D, DK, DO = "disassociated.json", "disassociated.key.json", "disassociated-original.txt"
M, MB = "meps-head.txt", "meps-next.txt"

CHAINS: tuple[tuple[Run, ...], ...] = (
    # set-generalised: the papers' running example (Fig. 2 of Shao & Ong), with its original
    _chain(
        Run("setgen-sample-info", ("info", S, "--json")),
        Run("setgen-sample-check-km", ("check", "km", S, "-k", "2", "-m", "1", "--json")),
        Run("setgen-sample-attack-rba", ("attack", "setgen", S, "--original", SO, "--json", "-o", "sample-rba.txt"),
            files=("sample-rba.txt",)),
        Run("setgen-sample-attack-tba", ("attack", "setgen", S, "--original", SO, "--method", "tba", "--json")),
        Run("setgen-sample-attack-ra", ("attack", "setgen", S, "--original", SO, "--method", "ra", "--seed", "7",
                                        "--json")),
        Run("setgen-sample-assess", ("assess", S, "--original", SO, "--json", "--no-alternatives")),
        Run("setgen-sample-assess-alternatives", ("assess", S, "--original", SO, "--json")),
    ),
    # disassociated: the bundled sample (Table 2 of Alshuhail & Shao), with key and original
    _chain(
        Run("disassoc-sample-anonymize", ("anonymize", "disassoc", DO, "-k", "2", "-m", "2", "--max-cluster-size", "4",
                                          "--seed", "5", "-o", "sample-dis.json", "--key", "sample-dis.key.json",
                                          "--json"),
            files=("sample-dis.json", "sample-dis.key.json")),
        Run("disassoc-sample-info", ("info", D, "--json")),
        Run("disassoc-sample-check-km", ("check", "km", D, "-k", "2", "-m", "2", "--json")),
        Run("disassoc-sample-check-km-key", ("check", "km", D, "-k", "2", "-m", "2", "--key", DK, "--original", DO,
                                             "--json")),
        Run("disassoc-sample-attack-aba", ("attack", "disassoc", D, "--key", DK, "--original", DO, "--method", "aba",
                                           "--seed", "3", "--json", "-o", "sample-aba.txt"),
            files=("sample-aba.txt",)),
        Run("disassoc-sample-attack-ra", ("attack", "disassoc", D, "--key", DK, "--original", DO, "--method", "ra",
                                          "--seed", "3", "--json")),
        Run("disassoc-sample-cover-strong", ("cover", D, "--attacker", "strong", "--key", DK, "--original", DO,
                                             "--seed", "3", "--json")),
        Run("disassoc-sample-cover-moderate", ("cover", D, "--attacker", "moderate", "--key", DK, "--original", DO,
                                               "--seed", "3", "--json")),
        Run("disassoc-sample-cover-weak", ("cover", D, "--attacker", "weak", "--key", DK, "--original", DO,
                                           "--seed", "3", "--json")),
        Run("disassoc-sample-assess", ("assess", D, "--key", DK, "--original", DO, "--json", "--no-alternatives")),
    ),
    # set-generalised: a MEPS slice anonymised by anonymize setgen, attacked with and without background
    _chain(
        Run("setgen-meps-anonymize", ("anonymize", "setgen", M, "-k", "3", "--random-privacy", "20", "--sizes", "3-5",
                                      "--seed", "1", "-o", "meps-setgen.txt", "--json"),
            files=("meps-setgen.txt", "meps-setgen.txt.json"), meps=True),
        Run("setgen-meps-info", ("info", "meps-setgen.txt", "--json"), meps=True),
        Run("setgen-meps-check-privacy", ("check", "privacy", "meps-setgen.txt", "--privacy", "meps-setgen.txt.json",
                                          "-k", "3", "--json"), meps=True),
        Run("setgen-meps-attack-rba", ("attack", "setgen", "meps-setgen.txt", "--original", M, "--json"), meps=True),
        Run("setgen-meps-attack-background", ("attack", "setgen", "meps-setgen.txt", "--original", M,
                                              "--background", MB, "--json", "-o", "meps-setgen-bg.txt"),
            files=("meps-setgen-bg.txt",), meps=True),
        Run("setgen-meps-assess", ("assess", "meps-setgen.txt", "--original", M, "--background", MB, "--json",
                                   "--no-alternatives"), meps=True),
    ),
    # k^m: a hierarchy built from the slice, anonymize km, then its checker and attacks
    _chain(
        Run("km-meps-hierarchy", ("hierarchy", "build", M, "--fanout", "5", "-o", "meps-hierarchy.txt", "--json"),
            files=("meps-hierarchy.txt",), meps=True),
        Run("km-meps-anonymize", ("anonymize", "km", M, "--hierarchy", "meps-hierarchy.txt", "-k", "5", "-m", "2",
                                  "-o", "meps-km.txt", "--json"),
            files=("meps-km.txt", "meps-km.txt.json"), meps=True),
        Run("km-meps-info", ("info", "meps-km.txt", "--json"), meps=True),
        Run("km-meps-check-km", ("check", "km", "meps-km.txt", "-k", "5", "-m", "2", "--json"), meps=True),
        Run("km-meps-attack-rba", ("attack", "setgen", "meps-km.txt", "--original", M, "--json"), meps=True),
        Run("km-meps-assess", ("assess", "meps-km.txt", "--original", M, "--background", MB, "--json",
                               "--no-alternatives"), meps=True),
    ),
    # disassociated: a MEPS slice anonymised by anonymize disassoc (key and original), attacked, covered
    _chain(
        Run("disassoc-meps-anonymize", ("anonymize", "disassoc", M, "-k", "3", "-m", "2", "--max-cluster-size", "30",
                                        "--seed", "1", "-o", "meps-dis.json", "--key", "meps-dis.key.json", "--json"),
            files=("meps-dis.json", "meps-dis.key.json"), meps=True),
        Run("disassoc-meps-info", ("info", "meps-dis.json", "--json"), meps=True),
        Run("disassoc-meps-check-km-key", ("check", "km", "meps-dis.json", "-k", "3", "-m", "2",
                                           "--key", "meps-dis.key.json", "--original", M, "--json"), meps=True),
        Run("disassoc-meps-attack-aba", ("attack", "disassoc", "meps-dis.json", "--key", "meps-dis.key.json",
                                         "--original", M, "--method", "aba", "--seed", "1", "--json",
                                         "-o", "meps-aba.txt"),
            files=("meps-aba.txt",), meps=True),
        Run("disassoc-meps-attack-nba", ("attack", "disassoc", "meps-dis.json", "--key", "meps-dis.key.json",
                                         "--original", M, "--method", "nba", "--background", MB, "--seed", "1",
                                         "--summary-only", "--json"), meps=True),
        Run("disassoc-meps-cover-strong", ("cover", "meps-dis.json", "--attacker", "strong", "--key",
                                           "meps-dis.key.json", "--original", M, "--seed", "1", "--json"), meps=True),
        Run("disassoc-meps-assess", ("assess", "meps-dis.json", "--key", "meps-dis.key.json", "--original", M,
                                     "--background", MB, "--json", "--no-alternatives"), meps=True),
    ),
    # a tiny experiment: one cell of each family on the slice
    _chain(
        Run("experiment-meps", ("experiment", "run", "grid.toml", "-o", "RESULTS.jsonl"),
            files=("RESULTS.jsonl",), meps=True),
    ),
)

RUNS: tuple[Run, ...] = tuple(r for chain in CHAINS for r in chain)


# --------------------------------------------------------------------------- the work folder
def prepare(work: Path, samples: Path, shared_data: Path | None) -> None:
    """The inputs of every run in ``work``: the samples, and with ``shared_data`` the MEPS
    slice (the first SLICE transactions), its background (the next SLICE) and the spec."""
    for name in SAMPLE_FILES:
        shutil.copyfile(samples / name, work / name)
    if shared_data is None:
        return
    with open(shared_data / MEPS_FILE) as f:
        head = list(islice(f, 2 * SLICE))
    (work / M).write_text("".join(head[:SLICE]))
    (work / MB).write_text("".join(head[SLICE:]))
    (work / "grid.toml").write_text(SPEC)


# --------------------------------------------------------------------------- normalising
# timings (``seconds``, ``time_seconds``, ``seconds_horpart``, an experiment cell's ``times``/``check_s``),
# semtui's own version, dates
VOLATILE_KEYS = frozenset({"semtui_version", "times", "date", "created", "started", "finished"})
_VOLATILE_KEY = re.compile(r"(^|_)seconds($|_)|_s$")
_VERSION = re.compile(r"(semtui-[a-z0-9-]+)/\d+")
_DURATION = re.compile(r"\b\d+(\.\d+)? s\b")  # "0.8 s" in a text summary


def normalise(doc, work: Path):
    """``doc`` without what may differ between two runs of the same code, or that issue 36
    changes on purpose (interval shape, format versions)."""
    prefix = str(work.resolve()) + "/"
    raw_prefix = str(work) + "/"

    def walk(v):
        if isinstance(v, dict):
            keys = set(v)
            if {"low", "high"} <= keys <= {"low", "high", "level", "resamples"}:
                return [walk(v["low"]), walk(v["high"])]  # an interval: one shape
            return {k: walk(x) for k, x in v.items() if k not in VOLATILE_KEYS and not _VOLATILE_KEY.search(k)}
        if isinstance(v, list):
            return [walk(x) for x in v]
        if isinstance(v, str):
            return _VERSION.sub(r"\1", v.replace(prefix, "").replace(raw_prefix, ""))
        return v

    return walk(doc)


def normalise_text(data: bytes) -> bytes:
    """A text output's bytes, its format version suffixes stripped (``@semtui-km-release/1``)."""
    return re.sub(rb"(semtui-[a-z0-9-]+)/\d+", rb"\1", data)


def _load(text: str):
    """A file or stdout as JSON: one document, JSON Lines (a list), or None if it is neither."""
    try:
        return json.loads(text)
    except ValueError:
        pass
    lines = [ln for ln in text.splitlines() if ln.strip()]
    try:
        return {"jsonl": [json.loads(ln) for ln in lines]} if lines else None
    except ValueError:
        return None


# --------------------------------------------------------------------------- running
@dataclass
class Outcome:
    """What one run gave, normalised: exit code, stdout, the files it wrote."""

    run: Run
    rc: int
    stdout: object
    stderr: str
    json_files: dict = field(default_factory=dict)   # name -> normalised document
    text_files: dict = field(default_factory=dict)   # name -> normalised bytes

    def document(self) -> dict:
        """The golden document of this run (text files are kept beside it, by name)."""
        return {"args": list(self.run.args), "rc": self.rc, "stdout": self.stdout, "files": self.json_files,
                "text_files": sorted(self.text_files)}


def execute(run: Run, work: Path, runner: Callable, env: dict) -> Outcome:
    """``semtui ARGS`` in ``work`` through ``runner`` (conftest.run_cli), normalised."""
    proc = runner(*run.args, cwd=work, env=env, timeout=300)
    out = proc.stdout
    doc = _load(out)
    stdout = normalise(doc, work) if doc is not None else _DURATION.sub("N s", normalise(out, work))
    outcome = Outcome(run, proc.returncode, stdout, proc.stderr)
    for name in run.files:
        p = work / name
        if not p.exists():
            outcome.json_files[name] = None
            continue
        data = p.read_bytes()
        parsed = None if name.endswith(".txt") else _load(data.decode("utf-8"))
        if parsed is not None:
            outcome.json_files[name] = normalise(parsed, work)
        else:
            outcome.text_files[name] = normalise_text(data)
    return outcome


def execute_all(work: Path, runner: Callable, env: dict, *, meps: bool, workers: int = 2) -> dict[str, Outcome]:
    """Every run (the MEPS runs only with ``meps``), chains side by side on ``workers`` processes."""
    def chain(runs):
        return [execute(r, work, runner, env) for r in runs if meps or not r.meps]

    with ThreadPoolExecutor(workers) as pool:
        done = list(pool.map(chain, CHAINS))
    return {o.run.name: o for outcomes in done for o in outcomes}


# --------------------------------------------------------------------------- goldens
def golden_path(name: str) -> Path:
    return RUNS_DIR / f"{name}.json"


def text_path(name: str) -> Path:
    return FILES_DIR / name


def dump(doc) -> str:
    """``doc`` as JSON for review: one value a line, but a list or object that fits in 100
    characters on one line (a table row, an interval, a small record)."""
    def fmt(v, indent: str) -> str:
        flat = json.dumps(v, ensure_ascii=False)
        if not isinstance(v, (dict, list)) or len(flat) + len(indent) <= 100:
            return flat
        inner = indent + " "
        if isinstance(v, dict):
            body = ",\n".join(f"{inner}{json.dumps(k, ensure_ascii=False)}: {fmt(x, inner)}" for k, x in v.items())
            return "{\n" + body + "\n" + indent + "}"
        return "[\n" + ",\n".join(inner + fmt(x, inner) for x in v) + "\n" + indent + "]"

    return fmt(doc, "") + "\n"


def write_golden(outcome: Outcome) -> None:
    """The run's golden document and text files (only regenerate.py calls this)."""
    RUNS_DIR.mkdir(exist_ok=True)
    FILES_DIR.mkdir(exist_ok=True)
    golden_path(outcome.run.name).write_text(dump(outcome.document()))
    for name, data in outcome.text_files.items():
        text_path(name).write_bytes(data)


# --------------------------------------------------------------------------- comparing
def _short(v) -> str:
    s = json.dumps(v, ensure_ascii=False)
    return s if len(s) <= 160 else s[:157] + "..."


def differences(golden, got, path: str = "$", out: list | None = None, limit: int = 20) -> list[str]:
    """The first ``limit`` places where ``got`` differs from ``golden``, one line each."""
    out = [] if out is None else out
    if len(out) >= limit:
        return out
    if isinstance(golden, dict) and isinstance(got, dict):
        for k in golden:
            if k not in got:
                out.append(f"{path}.{k}: missing (golden {_short(golden[k])})")
            else:
                differences(golden[k], got[k], f"{path}.{k}", out, limit)
            if len(out) >= limit:
                return out
        for k in got:
            if k not in golden:
                out.append(f"{path}.{k}: new (got {_short(got[k])})")
                if len(out) >= limit:
                    return out
    elif isinstance(golden, list) and isinstance(got, list):
        for i, (a, b) in enumerate(zip(golden, got)):
            differences(a, b, f"{path}[{i}]", out, limit)
            if len(out) >= limit:
                return out
        if len(golden) != len(got):
            out.append(f"{path}: {len(got)} elements, golden {len(golden)}")
    elif isinstance(golden, str) and isinstance(got, str) and golden != got:
        i = next((j for j, (a, b) in enumerate(zip(golden, got)) if a != b), min(len(golden), len(got)))
        start = max(0, i - 40)
        out.append(f"{path}: from character {i}: got {_short(got[start:])}, golden {_short(golden[start:])}")
    elif type(golden) is not type(got) or golden != got:
        out.append(f"{path}: got {_short(got)}, golden {_short(golden)}")
    return out


def text_differences(golden: bytes, got: bytes, limit: int = 10) -> list[str]:
    """The first ``limit`` lines where a text output differs."""
    a, b = golden.decode("utf-8", "replace").splitlines(), got.decode("utf-8", "replace").splitlines()
    out = []
    for i in range(max(len(a), len(b))):
        x = a[i] if i < len(a) else "<none>"
        y = b[i] if i < len(b) else "<none>"
        if x != y:
            out.append(f"line {i + 1}: got {_short(y)}, golden {_short(x)}")
            if len(out) >= limit:
                break
    if not out and golden != got:
        out.append("the bytes differ (line ends or a final newline)")
    return out


def compare(outcome: Outcome) -> list[str]:
    """Every difference between ``outcome`` and its golden, readable; [] when identical."""
    golden = json.loads(golden_path(outcome.run.name).read_text())
    got = json.loads(dump(outcome.document()))  # through JSON, as the golden was
    problems = differences(golden, got)
    for name in golden.get("text_files", []):
        if name in outcome.text_files:
            exp = text_path(name).read_bytes()
            if exp != outcome.text_files[name]:
                problems += [f"{name}: {d}" for d in text_differences(exp, outcome.text_files[name])]
    return problems
