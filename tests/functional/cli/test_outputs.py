"""Every output of every command goes through the one writer (semtui.fileio; issue 19): each
command that writes a file is walked through the rules of docs/cli.md (Output): devices and
FIFOs written in place, a full device one line and exit 2 with the other outputs untouched,
symbolic links followed, modes kept, private new files 0600, 255-byte names, ``-`` as
standard output, and SIGINT/SIGTERM leaving no temporary file and no half-committed pair.
Then every command that prints: a reader that goes away gives 141.

The helpers (the in-process runner, our own device nodes, process spawning) are
test_faults.py's.
"""

from __future__ import annotations

import itertools
import json
import os
import random
import select
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import SAMPLES, write_fig4_scores
from test_faults import _env, devices, finish, leftovers, spawn  # noqa: F401  (fixtures)

MEDICAL = SAMPLES / "medical-original.txt"
MEDICAL_SETGEN = SAMPLES / "medical-setgen.txt"
MEPS = SAMPLES / "meps400-original.txt"
MEPS_SETGEN = SAMPLES / "meps400-setgen.txt"
DIS = SAMPLES / "disassociated.json"
DIS_KEY = SAMPLES / "disassociated.key.json"
DIS_ORIGINAL = SAMPLES / "disassociated-original.txt"


# --------------------------------------------------------------------------- the commands
@dataclass
class Command:
    """A command that writes files: its arguments and, per output option, whether a new file
    holds original (private) data.  The first option is the command's main output."""

    args: list
    outputs: dict[str, bool]
    binary: bool = False  # an SQLite index: not text

    def argv(self, paths: dict[str, str | Path]) -> list[str]:
        return [*map(str, self.args), *(a for opt, p in paths.items() for a in (opt, str(p)))]


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> dict[str, Path]:
    """The small inputs the commands need: a hierarchy over the medical sample's items, the
    Fig. 4 scores, and scores for every pair of the disassociated sample's items."""
    from semtui import formats
    from semtui.formats.hierarchy import write_hierarchy
    from semtui.model.hierarchy import balanced

    d = tmp_path_factory.mktemp("inputs")
    h = d / "h.txt"
    write_hierarchy(balanced(sorted(formats.read_transactions(MEDICAL).vocab.items), 3), h)
    items = sorted({x.strip() for line in DIS_ORIGINAL.read_text().splitlines() for x in line.split(",")})
    pairs = d / "pairs.csv"
    pairs.write_text("a,b,distance\n" + "".join(f"{a},{b},{0.1 + (i * 7 % 10) / 10}\n"
                                               for i, (a, b) in enumerate(itertools.combinations(items, 2))))
    results = d / "R.jsonl"  # two cells as semtui experiment writes them (what the plot reads of them)
    results.write_text("".join(json.dumps({
        "format": "semtui-experiment/1", "id": f"setgen:k={k}", "cell": {"family": "setgen", "k": k},
        "label": f"setgen k={k}", "privacy": {"risk": r, "figures": {"precision": 0.9, "recall": r}},
        "utility": {"score": u}}) + "\n" for k, r, u in ((2, 0.6, 0.99), (4, 0.7, 0.97))))
    return {"hierarchy": h, "fig4": write_fig4_scores(d / "fig4.csv"), "pairs": pairs, "results": results}


def commands(inputs: dict[str, Path]) -> dict[str, Command]:
    return {
        "anonymize setgen": Command(["anonymize", "setgen", MEDICAL, "-k", 2, "--random-privacy", 3, "--sizes", "2-3"],
                                    {"-o": False, "--sidecar": True}),
        "anonymize km": Command(["anonymize", "km", MEDICAL, "--hierarchy", inputs["hierarchy"], "-k", 2, "-m", 2],
                                {"-o": False, "--report": False}),
        "anonymize disassoc": Command(["anonymize", "disassoc", DIS_ORIGINAL, "-k", 2, "-m", 2,
                                       "--max-cluster-size", 4], {"-o": False, "--key": True}),
        "attack setgen": Command(["attack", "setgen", MEDICAL_SETGEN, "--original", MEDICAL, "--measure",
                                  f"scores:{inputs['fig4']}", "--no-cache"], {"-o": False, "--report": True}),
        "attack disassoc": Command(["attack", "disassoc", DIS, "--key", DIS_KEY, "--original", DIS_ORIGINAL,
                                    "--measure", f"scores:{inputs['pairs']}", "--no-cache"],
                                   {"-o": False, "--report": True}),
        "assess": Command(["assess", MEDICAL_SETGEN, "--original", MEDICAL, "--measure", f"scores:{inputs['fig4']}",
                           "--no-cache", "--no-alternatives"], {"--report": True}),
        "experiment plot": Command(["experiment", "plot", inputs["results"], "--format", "svg"], {"-o": False}),
        "corpus build": Command(["corpus", "build", MEDICAL, "--transactions"], {"-o": True}, binary=True),
        "corpus count": Command(["corpus", "count", MEDICAL, "--transactions", "--terms-of", MEDICAL], {"-o": True}),
        "hierarchy build": Command(["hierarchy", "build", MEDICAL, "--fanout", 3], {"-o": False}),
        "extract": Command(["extract", MEDICAL, "--lines"], {"-o": True, "--sidecar": True}),
        "harden": Command(["harden", MEDICAL, "--family", "setgen", "-k", 2, "--random-privacy", 3, "--sizes", "2-3"],
                          {"-o": False, "--sidecar": True}),
    }


NAMES = ["anonymize setgen", "anonymize km", "anonymize disassoc", "attack setgen", "attack disassoc", "assess",
         "corpus build", "corpus count", "hierarchy build", "extract", "experiment plot", "harden"]
#: outputs that grow a whole line at a time (fileio.append_line) rather than being replaced:
#: tests/functional/cli/test_experiment_cli.py walks their rules (whole lines, resumed, 0600)
APPENDED = {"experiment run"}
SUFFIX = {"-o": ".out", "--sidecar": ".side.json", "--report": ".report.json", "--key": ".key.json"}


#: options of those names that are inputs
READ = {"open": {"--report", "--key"}, "check km": {"--key"}, "attack disassoc": {"--key"}, "assess": {"--key"},
        "cover": {"--key"}}


def test_every_command_with_an_output_is_walked():
    """NAMES is every command with an output option (a new one must join the walk)."""
    from semtui.cli.main import whole_command

    found = []

    def walk(cmd, path):
        for name, sub in getattr(cmd, "commands", {}).items():
            walk(sub, [*path, name])
        opts = {o for p in getattr(cmd, "params", []) for o in getattr(p, "opts", [])}
        if " ".join(path) in APPENDED:
            return
        if opts & {"-o", "--output", "--report", "--key", "--sidecar"} - READ.get(" ".join(path), set()):
            found.append(" ".join(path))

    walk(whole_command(), [])
    assert sorted(found) == sorted(NAMES)


def _normal(text: str):
    """An output's content, comparable across runs: JSON without its timings and with the
    names of the outputs (``-`` or a path) as one word."""
    try:
        doc = json.loads(text)
    except ValueError:
        # a k^m release names its hierarchy relative to its own folder; on standard output,
        # which has none, by its absolute path (docs/formats.md)
        return "\n".join(ln for ln in text.split("\n") if not ln.startswith("@hierarchy "))

    def drop(o):
        if isinstance(o, dict):
            return {k: drop(v) for k, v in o.items() if "seconds" not in k and k != "built"}
        if isinstance(o, list):
            return [drop(v) for v in o]
        if isinstance(o, str) and (o == "-" or o.endswith(tuple(SUFFIX.values()))):
            return "<output>"
        return o

    return drop(doc)


def _mode(p: Path) -> int:
    return stat.S_IMODE(p.stat().st_mode)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.slow
def test_outputs_follow_the_rules(name, semtui, inputs, tmp_path, devices, monkeypatch):  # noqa: F811
    cmd = commands(inputs)[name]
    null, full = devices
    spool = tmp_path / "spool"  # where the copy for standard output is made
    spool.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(spool))
    os.umask(0o022)

    # new files, 250-byte names: created; private ones 0600, the others 0644
    ref = tmp_path / "ref"
    ref.mkdir()
    paths = {opt: ref / (opt.strip("-")[0] * (250 - len(SUFFIX[opt])) + SUFFIX[opt]) for opt in cmd.outputs}
    assert all(len(p.name.encode()) == 250 for p in paths.values())
    r = semtui(*cmd.argv(paths))
    assert r.rc == 0, r.err
    for opt, p in paths.items():
        assert _mode(p) == (0o600 if cmd.outputs[opt] else 0o644), opt
    assert not leftovers(ref, spool)
    content = {opt: p.read_bytes() for opt, p in paths.items()}

    # existing outputs behind symbolic links, mode 0640: links followed, modes kept
    links = tmp_path / "links"
    links.mkdir()
    linked = {}
    for opt in cmd.outputs:
        real = links / f"real{SUFFIX[opt]}"
        real.write_text("old\n")
        os.chmod(real, 0o640)
        linked[opt] = links / f"link{SUFFIX[opt]}"
        linked[opt].symlink_to(real.name)
    r = semtui(*cmd.argv(linked))
    assert r.rc == 0, r.err
    for opt, link in linked.items():
        real = links / f"real{SUFFIX[opt]}"
        assert link.is_symlink() and _mode(real) == 0o640 and real.read_text(errors="replace") != "old\n", opt
    assert not leftovers(links, spool)

    for opt in cmd.outputs:
        work = tmp_path / f"w{opt.strip('-')}"
        work.mkdir()
        others = {o: work / f"x{SUFFIX[o]}" for o in cmd.outputs if o != opt}

        def fresh(others=others):
            for p in others.values():
                p.write_text("old\n")

        # a device: written in place (or, for a database, refused), never replaced
        fresh()
        r = semtui(*cmd.argv({**others, opt: null}))
        assert stat.S_ISCHR(null.stat().st_mode)
        if cmd.binary:
            assert r.rc == 2
            r.one_error_line(str(null), "regular file")
        else:
            assert r.rc == 0, (opt, r.err)
            assert all(p.read_text() != "old\n" for p in others.values())
        # a full device: one line naming it, exit 2, no other output committed
        fresh()
        r = semtui(*cmd.argv({**others, opt: full}))
        assert r.rc == 2, (opt, r.rc, r.err)
        r.one_error_line(str(full))
        assert cmd.binary or "No space left on device" in r.err
        assert all(p.read_text() == "old\n" for p in others.values()), opt
        assert stat.S_ISCHR(full.stat().st_mode) and not leftovers(work, spool)
        # a FIFO receives the data
        fifo = work / "fifo"
        os.mkfifo(fifo)
        got: list[bytes] = []
        reader = threading.Thread(target=lambda got=got, fifo=fifo: got.append(Path(fifo).read_bytes()), daemon=True)
        if not cmd.binary:
            reader.start()
        r = semtui(*cmd.argv({**others, opt: fifo}))
        if cmd.binary:
            assert r.rc == 2
            r.one_error_line(str(fifo), "regular file")
        else:
            reader.join(30)
            assert r.rc == 0, (opt, r.err)
            assert _normal(got[0].decode()) == _normal(content[opt].decode()), opt
        assert stat.S_ISFIFO(fifo.stat().st_mode)
        # '-' is standard output; the summary then goes to stderr
        if not cmd.binary:  # an index is checked in a process of its own (binary stdout)
            r = semtui(*cmd.argv({**others, opt: "-"}))
            assert r.rc == 0, (opt, r.err)
            assert _normal(r.out) == _normal(content[opt].decode()), opt
            assert not (Path.cwd() / "-").exists() and not leftovers(work, spool)

    # two outputs on standard output, or one beside --json: refused up front, one line
    if len(cmd.outputs) > 1:
        r = semtui(*cmd.argv(dict.fromkeys(cmd.outputs, "-")))
        assert r.rc == 2
        r.one_error_line(" and ".join(cmd.outputs), "standard output")
    main = next(iter(cmd.outputs))  # every command with an output has --json
    r = semtui(*cmd.argv({**{o: tmp_path / f"j{SUFFIX[o]}" for o in cmd.outputs}, main: "-"}), "--json")
    assert r.rc == 2
    r.one_error_line(f"{main} - writes to standard output", "--json")
    assert not leftovers(tmp_path, spool)


def test_a_default_name_needs_a_file(semtui, inputs, tmp_path):
    """OUT.json, the default of a second output, cannot be made from '-'."""
    for name, option in (("anonymize setgen", "--sidecar"), ("anonymize km", "--report")):
        cmd = commands(inputs)[name]
        r = semtui(*cmd.argv({"-o": "-"}))
        assert r.rc == 2
        r.one_error_line(option, "file name")


def test_a_default_name_needs_a_regular_file(semtui, inputs, tmp_path):
    """-o /dev/null (or a FIFO): its default second output, /dev/null.json, would be a real file
    made in /dev (a new user found one there); refused with the option to give, and with it given
    the device is written and the named file made."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    for name, option in (("anonymize setgen", "--sidecar"), ("anonymize km", "--report")):
        cmd = commands(inputs)[name]
        for special in ("/dev/null", str(fifo)):
            r = semtui(*cmd.argv({"-o": special}))
            assert r.rc == 2
            r.one_error_line(special, "not a regular file", option)
        assert not Path("/dev/null.json").exists() and not (tmp_path / "pipe.json").exists()
        side = tmp_path / f"{name.replace(' ', '-')}.json"
        ok = semtui(*cmd.argv({"-o": "/dev/null"}), option, side)
        assert ok.rc == 0, ok.err
        assert side.is_file()


@pytest.mark.slow
def test_an_index_goes_to_standard_output(tmp_path):
    from semtui.measures.corpus import CorpusIndex

    p = spawn(tmp_path, "corpus", "build", MEPS, "--lines", "-o", "-")
    r = p.communicate(timeout=120)
    assert p.returncode == 0, r[1]
    (tmp_path / "got.sqlite").write_bytes(r[0])
    idx = CorpusIndex(tmp_path / "got.sqlite")
    assert idx.n_documents == 400
    idx.close()
    assert "indexed 400 documents into -" in r[1].decode() and not leftovers(tmp_path)


# --------------------------------------------------------------------------- signals
@pytest.mark.slow
def test_sigint_and_sigterm_leave_no_temporary_file_and_no_half_pair(inputs, tmp_path):
    """Every command with outputs, signalled at a random moment of its run: its outputs are all
    old or all new, no temporary file is left, and an interrupt that came after the commit
    says what was written."""
    rng = random.Random(19)
    cmds = commands(inputs)
    handled = after = 0
    # how long each command takes when all run at once on this machine (an unsignalled batch),
    # so that the signals land inside the runs whatever the machine's speed or load.  The batch
    # also fills cold caches (numba's, the score cache: a fresh checkout's first run is seconds
    # slower), so its times are upper bounds: the delays are drawn from a wider range below
    took: dict[str, float] = {}
    batches = ((None, 0, ""), (signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated"))
    for batch, (sig, code, word) in enumerate(batches):
        runs = []
        for name in NAMES:
            work = tmp_path / f"{name.replace(' ', '-')}-{batch}"
            work.mkdir()
            outs = {o: work / f"x{SUFFIX[o]}" for o in cmds[name].outputs}
            for p in outs.values():
                p.write_text("old\n")
            env = _env(work)
            env["TMPDIR"] = str(work)
            proc = subprocess.Popen([sys.executable, "-m", "semtui", *cmds[name].argv(outs)], cwd=work,
                                    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                    env=env)
            runs.append((rng.uniform(0.1, 0.9) * took.get(name, 0.0), name, work, outs, proc, time.monotonic()))
        if sig is None:
            took.clear()
            deadline = time.monotonic() + 120
            while len(took) < len(runs) and time.monotonic() < deadline:
                for _, name, _, _, proc, start in runs:
                    if name not in took and proc.poll() is not None:
                        took[name] = time.monotonic() - start
                        assert proc.returncode == 0, (name, proc.stderr.read())
                time.sleep(0.02)
            assert len(took) == len(runs), "a command did not finish"
            continue
        for delay, _name, _work, _outs, proc, start in sorted(runs, key=lambda r: r[0]):
            time.sleep(max(0.0, start + delay - time.monotonic()))
            proc.send_signal(sig)
        for _delay, name, work, outs, proc, _start in runs:
            err = proc.communicate(timeout=120)[1].decode()
            new = [p.read_bytes() != b"old\n" for p in outs.values()]
            assert len(set(new)) == 1, (name, "outputs of one command are committed together")
            assert not leftovers(work), name
            assert "Traceback" not in err or proc.returncode == -sig, (name, err)
            if proc.returncode in (0, -sig):
                continue  # finished before the signal, or Python was still starting
            assert proc.returncode == code, (name, proc.returncode, err)
            assert err.endswith("\n") and err.strip().split("\n")[-1].startswith(f"semtui: {word}"), (name, err)
            assert ("after writing" in err) == new[0], (name, err)
            handled += 1
            after += new[0]
    assert handled >= 2, "no signal landed during a run"


@pytest.mark.slow
def test_an_interrupt_after_the_commit_says_what_was_written(tmp_path):
    """The release goes to standard output after the key is committed; a reader that takes
    nothing holds the command there, and Ctrl-C then says the key was already written."""
    big = tmp_path / "big.txt"
    big.write_bytes(MEPS.read_bytes() * 10)  # a release far larger than a pipe holds
    key = tmp_path / "k.json"
    env = _env(tmp_path)
    env["TMPDIR"] = str(tmp_path)
    p = subprocess.Popen([sys.executable, "-m", "semtui", "anonymize", "disassoc", str(big), "-k", "3", "-m", "2",
                          "--max-cluster-size", "10", "-o", "-", "--key", str(key)],
                         cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    deadline = time.monotonic() + 120
    while not key.exists() or not select.select([p.stdout], [], [], 0)[0]:
        assert p.poll() is None and time.monotonic() < deadline, p.stderr.read()
        time.sleep(0.05)
    time.sleep(0.2)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 130, err
    assert err.decode() == f"semtui: interrupted (after writing {key})\n"
    from semtui.formats.disassociated import read_key

    assert read_key(key).clusters and stat.S_IMODE(key.stat().st_mode) == 0o600
    assert not leftovers(tmp_path)


# --------------------------------------------------------------------------- closed pipes
PRINTERS = [  # every command that prints on stdout, as a table or lines and as JSON (test_faults.py
    # walks --help, --version, info, table eliminate, check privacy and measures the same way)
    ["anonymize", "--help"], ["measures", "--json"],
    ["score", "scores:{fig4}", "blood pressure", "heart disease", "--no-cache"],
    ["score", "scores:{fig4}", "blood pressure", "heart disease", "--no-cache", "--json"],
    ["table", "eliminate", SAMPLES / "fig4-distance-table.csv", "--json"],
    ["check", "km", MEDICAL, "-k", 2, "-m", 2], ["check", "km", MEDICAL, "-k", 2, "-m", 2, "--json"],
    ["cover", DIS], ["cover", DIS, "--json"],
    ["attack", "setgen", MEDICAL_SETGEN, "--measure", "scores:{fig4}", "--no-cache"],
    ["attack", "setgen", MEDICAL_SETGEN, "--measure", "scores:{fig4}", "--no-cache", "--json"],
    ["attack", "disassoc", DIS, "--measure", "scores:{pairs}", "--no-cache"],
    ["attack", "disassoc", DIS, "--measure", "scores:{pairs}", "--no-cache", "--json"],
    ["anonymize", "setgen", MEDICAL, "-k", 2, "--random-privacy", 2, "--sizes", "2-3", "-o", "{tmp}/a.txt"],
    ["anonymize", "km", MEDICAL, "--hierarchy", "{hierarchy}", "-k", 2, "-m", 2, "-o", "{tmp}/b.txt", "--json"],
    ["anonymize", "disassoc", DIS_ORIGINAL, "-k", 2, "-m", 2, "--max-cluster-size", 4, "-o", "{tmp}/c.json"],
    ["corpus", "info", "{index}"], ["corpus", "info", "{index}", "--json"],
    ["corpus", "build", MEDICAL, "--lines", "-o", "{tmp}/d.sqlite", "--json"],
    ["cache", "info"], ["cache", "info", "--json"], ["cache", "clear", "--json"],
    ["hierarchy", "info", "{hierarchy}"], ["hierarchy", "info", "{hierarchy}", "--json"],
    ["hierarchy", "build", MEDICAL, "--fanout", 3, "-o", "{tmp}/e.txt"],
    ["extract", MEDICAL, "--lines", "-o", "{tmp}/f.txt", "--json"],
    ["corpus", "count", MEDICAL, "--transactions", "--terms-of", MEDICAL, "-o", "{tmp}/g.csv", "--json"],
]


def _fill(args, inputs, tmp_path, index) -> list[str]:
    values = {**{k: str(v) for k, v in inputs.items()}, "tmp": str(tmp_path), "index": str(index)}
    return [str(a).format(**values) for a in args]


@pytest.fixture(scope="module")
def index(tmp_path_factory) -> Path:
    from semtui.corpus import build_index

    idx = tmp_path_factory.mktemp("index") / "meps.sqlite"
    build_index([MEPS], idx, kind="lines")
    return idx


@pytest.mark.slow
def test_a_reader_gone_before_the_first_byte_is_141_everywhere(inputs, tmp_path, index):
    procs = []
    for args in PRINTERS:
        r_fd, w_fd = os.pipe()
        os.close(r_fd)  # the reader is gone before semtui writes a byte
        procs.append((args, spawn(tmp_path, *_fill(args, inputs, tmp_path, index), stdout=w_fd)))
        os.close(w_fd)
    for args, p in procs:
        r = finish(p)
        assert r.rc == 141, (args, r.rc, r.err)
        assert all(line.startswith("semtui: ") for line in r.err.splitlines()), (args, r.err)  # warnings only


BIG = [  # commands whose stdout can be far larger than a pipe holds (64 KiB); the others print a
    # few lines at most (cover and check km list the first 20 findings)
    ["score", "scores:{terms}", *[f"w{i}" for i in range(120)], "--no-cache"],
    ["score", "scores:{terms}", *[f"w{i}" for i in range(120)], "--no-cache", "--json"],
    ["table", "eliminate", "{bigtable}"],
    ["table", "eliminate", "{bigtable}", "--json"],
    ["attack", "setgen", MEPS_SETGEN, "--measure", "ngd:{index}", "--no-cache", "--json"],
    ["anonymize", "disassoc", "{big}", "-k", 3, "-m", 2, "--max-cluster-size", 10, "-o", "-"],
    ["anonymize", "setgen", "{big}", "-k", 2, "--random-privacy", 5, "-o", "-", "--sidecar", "{tmp}/s.json"],
    ["corpus", "build", "{big}", "--lines", "-o", "-"],
]


@pytest.mark.parametrize("unbuffered", [True, False], ids=["PYTHONUNBUFFERED", "buffered"])
@pytest.mark.slow
def test_a_reader_that_goes_away_mid_output_is_141(inputs, tmp_path, index, unbuffered):
    """``semtui … | head -c 10`` on an output far larger than a pipe: exit 141 (issue 19: the
    score table exited 0 when Python's stdout was unbuffered)."""
    big = tmp_path / "big.txt"
    big.write_bytes(MEPS.read_bytes() * 5)
    table = tmp_path / "big.csv"
    cols = [f"c{j}" for j in range(40)]
    table.write_text("corner," + ",".join(cols) + "\n" + "".join(
        f"r{i}," + ",".join(f"{(i * 31 + j * 17) % 97 / 10:.2f}" for j in range(40)) + "\n" for i in range(400)))
    env = _env(tmp_path)
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
    else:
        env.pop("PYTHONUNBUFFERED", None)
    terms = tmp_path / "terms.csv"
    terms.write_text("a,b,distance\n" + "".join(f"w{i},w{j},{(i * j) % 89 / 10}\n"
                                               for i, j in itertools.combinations(range(120), 2)))
    values = {"big": big, "bigtable": table, "terms": terms, "index": index}
    procs = []
    for args in BIG:
        argv = [str(a).format(**{**{k: str(v) for k, v in values.items()}, **{k: str(v) for k, v in inputs.items()},
                                 "tmp": str(tmp_path)}) for a in args]
        shell = " ".join(f"'{a}'" for a in [sys.executable, "-m", "semtui", *argv])
        procs.append((args[:2], subprocess.Popen(
            ["bash", "-c", f"{shell} 2>{tmp_path}/err-{len(procs)} | head -c 10 >/dev/null; "
                           "echo ${PIPESTATUS[0]}"], stdout=subprocess.PIPE, env=env, cwd=tmp_path)))
    for n, (args, p) in enumerate(procs):
        rc = int(p.communicate(timeout=300)[0])
        err = (tmp_path / f"err-{n}").read_text()
        assert rc == 141, (args, rc, err)
        assert "Traceback" not in err and "Broken pipe" not in err, (args, err)
    assert not leftovers(tmp_path)
