"""``--scheduler`` (issue 26): the units of an attack, an assessment and VPA on a Dask cluster give
the report a serial run gives, also when a worker dies mid-run; a bad scheduler is one line, exit 2.

One module-scoped ``LocalCluster`` of 2 worker processes serves every test here (commands
connect to it with ``tcp://…``, as they would to a real cluster); ``local:N`` (a cluster
started by the command itself) is exercised once through the CLI."""

from __future__ import annotations

import json
import os
import signal
from itertools import pairwise

import pytest
from conftest import SAMPLES

pytest.importorskip("distributed", reason="the dask extra is not installed (pip install 'semtui[dask]')")

from semtui import formats
from semtui.attacks.reassociation import ReassociationOptions, run_reassociation
from semtui.attacks.setgen import AttackOptions, run_setgen_attack
from semtui.errors import InputError
from semtui.runtime.cluster import check_scheduler, session

#: fields that say how or how long a run went, not what it found
VOLATILE = {"seconds", "elapsed", "elapsed_s", "time", "times", "jobs", "scheduler", "started", "finished"}


def _stable(doc):
    if isinstance(doc, dict):
        return {k: _stable(v) for k, v in doc.items() if k not in VOLATILE and not k.endswith("_seconds")}
    if isinstance(doc, list):
        return [_stable(v) for v in doc]
    return doc


@pytest.fixture(scope="module")
def cluster():
    import logging

    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                      silence_logs=logging.ERROR) as lc, Client(lc) as client:
        yield lc.scheduler_address, client


@pytest.fixture
def own_cluster():
    """A cluster of its own for a test that kills one of its workers: Dask replaces the worker
    (its nanny starts another), but the other tests must not wait for that (in a long session
    the replacement was seen not to come within 240 s, once the whole suite had run before)."""
    import logging

    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                      silence_logs=logging.ERROR) as lc, Client(lc) as client:
        yield lc.scheduler_address, client


@pytest.fixture
def meps400():
    return (formats.read_transactions(SAMPLES / "meps400-setgen.txt"),
            formats.read_transactions(SAMPLES / "meps400-original.txt"))


@pytest.mark.slow
def test_setgen_attack_on_the_cluster_equals_the_serial_run(cluster, meps400):
    address, _ = cluster
    release, original = meps400
    for method in ("rba", "tba", "ra"):
        serial = run_setgen_attack(release, original, AttackOptions(method=method, seed=1 if method == "ra" else None))
        dist = run_setgen_attack(release, original, AttackOptions(method=method, scheduler=address,
                                                                  seed=1 if method == "ra" else None))
        assert serial.summary["eliminations"] > 0
        assert _stable(dist.to_json()) == _stable(serial.to_json()), method


@pytest.mark.slow
def test_reassociation_on_the_cluster_equals_the_serial_run(cluster):
    from semtui.formats.disassociated import read_key

    address, _ = cluster
    release = formats.read(SAMPLES / "disassociated.json")
    key = read_key(SAMPLES / "disassociated.key.json")
    original = formats.read_transactions(SAMPLES / "disassociated-original.txt")
    for method in ("aba", "ra"):
        serial = run_reassociation(release, key, original, ReassociationOptions(method=method))
        dist = run_reassociation(release, key, original, ReassociationOptions(method=method, scheduler=address))
        assert serial.report.to_json()["metrics"]
        assert _stable(dist.report.to_json()) == _stable(serial.report.to_json()), method


@pytest.mark.slow
def test_a_worker_killed_mid_run_is_replaced_and_the_report_is_unchanged(own_cluster, meps400):
    address, client = own_cluster
    release, original = meps400
    serial = run_setgen_attack(release, original, AttackOptions(method="rba"))
    killed = []

    def kill_one(done, total, message=""):
        # the first call after the batches were submitted: kill a worker that holds some of them
        if message == "attacking" and not killed:
            workers = client.scheduler_info()["workers"]
            pid = next(iter(workers.values()))["pid"] if "pid" in next(iter(workers.values())) else None
            if pid is None:
                pid = next(iter(client.run(os.getpid).values()))
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)

    dist = run_setgen_attack(release, original, AttackOptions(method="rba", scheduler=address), progress=kill_one)
    assert killed
    assert _stable(dist.to_json()) == _stable(serial.to_json())


def test_vpa_on_the_cluster_equals_the_serial_run(cluster, tmp_path):
    from semtui.anonymize.hierarchy import generalise_km
    from semtui.model.hierarchy import balanced

    address, _ = cluster
    data = formats.read_transactions(SAMPLES / "meps400-original.txt")
    h = balanced(sorted(data.vocab.items), 4)
    serial = generalise_km(data, h, 3, 2, "vpa", parts=3)
    dist = generalise_km(data, h, 3, 2, "vpa", parts=3, scheduler=address)
    assert serial.cut and dist.cut == serial.cut
    assert (dist.data.tokens == serial.data.tokens).all()
    assert _stable(dist.to_json()) == _stable(serial.to_json())


def test_one_session_serves_nested_runs(cluster):
    address, _ = cluster
    with session(address) as outer, session(address) as inner:
        assert outer is inner


@pytest.mark.slow
def test_the_driver_keeps_no_copy_of_what_it_submitted(cluster):
    """Dask keeps the last 1,000 messages a client sent its scheduler (a debugging log): each
    submission with its data, held after it ran -- the driver of ``attack disassoc`` on MEPS x 16
    grew by 300 MB that way.  semtui's clients keep none, to a remote scheduler as to local:N."""
    from semtui.runtime.scheduler import map_ordered

    def double(shared, part):  # defined here: cloudpickle ships it by value to the workers
        return shared * len(part)

    address, _ = cluster
    for spec in (address, "local:1"):
        with session(spec) as client:
            got = list(map_ordered(double, 2, (b"x" * (1000 + i) for i in range(20)), spec=spec, in_flight=2))
            assert got == [2 * (1000 + i) for i in range(20)]
            assert len(client.scheduler_comm.recent_message_log) == 0


@pytest.mark.slow
def test_assess_cli_on_the_cluster_equals_the_serial_run(cluster, semtui, tmp_path):
    """The whole assessment, its alternatives included (each re-anonymised and attacked on the
    cluster), on the first 120 MEPS patients: the alternatives cost the same whatever the size,
    and 120 keep every attack and alternative scoring rows."""
    from conftest import write_head

    address, _ = cluster
    original = write_head(SAMPLES / "meps400-original.txt", 120, tmp_path / "o.txt")
    made = semtui("anonymize", "setgen", original, "-k", 3, "--random-privacy", 10, "--seed", 1,
                  "-o", tmp_path / "r.txt")
    assert made.rc == 0, made.err
    args = ["assess", tmp_path / "r.txt", "--original", original, "--json"]
    serial = semtui(*args)
    dist = semtui(*args, "--scheduler", address)
    assert serial.rc == dist.rc == 0, dist.err
    doc = json.loads(serial.out)
    assert len(doc["alternatives"]) > 1 and doc["attacks"], doc["alternatives_note"]
    assert _stable(json.loads(dist.out)) == _stable(doc)


@pytest.mark.slow
def test_local_scheduler_from_the_cli(semtui):
    args = ["attack", "setgen", SAMPLES / "meps400-setgen.txt", "--original", SAMPLES / "meps400-original.txt",
            "--json"]
    serial = semtui(*args)
    dist = semtui(*args, "--scheduler", "local:2")
    assert dist.rc == 0, dist.err
    assert _stable(json.loads(dist.out)) == _stable(json.loads(serial.out))


@pytest.mark.slow
def test_a_local_cluster_schedules_from_a_process_of_its_own_that_ends_with_the_session():
    """``local:N``'s scheduler is not a task of the driver's loop (its memory is not the
    driver's: docs/distributed.md), and nothing of the cluster outlives the session."""
    from procs import descendants, wait_gone

    before = descendants(os.getpid())
    with session("local:1") as client:
        pid = client.run_on_scheduler(os.getpid)
        assert pid != os.getpid()
        assert pid in descendants(os.getpid())
        assert client.submit(sum, [1, 2, 3]).result() == 6
        cluster = {p: v for p, v in descendants(os.getpid()).items() if p not in before}
    assert pid in cluster and len(cluster) >= 2  # the scheduler and a worker (and a fork server, if new)
    servers = {p for p, v in cluster.items() if v[0] == os.getpid()}  # the fork server stays for the next run
    assert wait_gone({p: v for p, v in cluster.items() if p not in servers}, 10.0) == []


@pytest.mark.slow
def test_a_driver_killed_outright_takes_its_local_cluster_with_it():
    """SIGKILL leaves the driver no chance to close its cluster: the scheduler's process reads
    end-of-file on its lifeline and goes, and the workers with it."""
    import subprocess
    import sys

    from procs import descendants, wait_gone

    code = ("import os, sys, time\n"
            "from semtui.runtime.cluster import session\n"
            "with session('local:1') as client:\n"
            "    print(client.run_on_scheduler(os.getpid), flush=True)\n"
            "    time.sleep(600)\n")
    env = dict(os.environ, PYTHONPATH=str(SAMPLES.parent))
    driver = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, env=env)
    try:
        scheduler_pid = int(driver.stdout.readline())
        tree = descendants(driver.pid)
        assert scheduler_pid in tree
        driver.kill()
        driver.wait(10)
        assert wait_gone(tree, 20.0) == []
    finally:
        if driver.poll() is None:
            driver.kill()
        driver.stdout.close()


@pytest.mark.parametrize("spec", ["local:0", "local", "http://x:1", "tcp://host", "2"])
def test_a_bad_scheduler_is_refused(spec, semtui):
    with pytest.raises(InputError):
        check_scheduler(spec)
    r = semtui("attack", "setgen", SAMPLES / "meps400-setgen.txt", "--scheduler", spec)
    assert r.rc == 2
    r.one_error_line("--scheduler")


@pytest.mark.slow
def test_an_unreachable_scheduler_is_one_line(semtui, monkeypatch):
    import semtui.runtime.cluster as cluster

    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT", 2)
    r = semtui("attack", "setgen", SAMPLES / "meps400-setgen.txt", "--scheduler", "tcp://127.0.0.1:9")
    assert r.rc == 2
    r.one_error_line("--scheduler", "127.0.0.1:9")


# ------------------------------------------------------------------ semtui experiment --scheduler
#: the fields of a RESULTS line that say how long it took (docs/experiment.md, docs/distributed.md):
#: the cell's ``times`` and each attack's ``seconds``; everything else is equal serial or distributed
CELL_TIMINGS = ("times",)
ATTACK_TIMINGS = ("seconds",)

EXPERIMENT = """original = "orig.txt"
background = "bg.txt"
keep_releases = "kept"

[[release]]
family = "setgen"
k = [2, 3]
random_privacy = 10

[[release]]
family = "disassoc"
k = [2]
m = [2]
max_cluster_size = [20]
"""


def _modulo_timings(line: str) -> dict:
    doc = json.loads(line)
    for k in CELL_TIMINGS:
        doc.pop(k)
    for a in doc["attacks"]:
        for k in ATTACK_TIMINGS:
            a.pop(k)
    return doc


@pytest.fixture(scope="module")
def experiment(tmp_path_factory):
    """The 3-cell spec on a slice of the MEPS sample (150 patients, the attacker knowing 100
    others), run serially once: (folder, spec, its RESULTS lines, its kept files by name)."""
    from semtui.experiment import read_spec, run_experiment

    d = tmp_path_factory.mktemp("expsched")
    lines = (SAMPLES / "meps400-original.txt").read_text().splitlines(keepends=True)
    (d / "orig.txt").write_text("".join(lines[:150]))
    (d / "bg.txt").write_text("".join(lines[300:400]))
    spec = d / "grid.toml"
    spec.write_text(EXPERIMENT)
    run_experiment(read_spec(spec), d / "serial.jsonl")
    kept = {p.name: p.read_bytes() for p in (d / "kept").iterdir()}
    (d / "kept").rename(d / "kept-serial")
    return d, spec, (d / "serial.jsonl").read_text().splitlines(), kept


@pytest.mark.slow
def test_experiment_on_the_cluster_equals_the_serial_run(cluster, experiment, semtui):
    """One task per cell on the cluster: the same lines as the serial run but for the timings,
    in cell order, and the kept releases (written by the driver) the same."""
    address, _ = cluster
    d, spec, serial, kept = experiment
    out = d / "dist.jsonl"
    r = semtui("experiment", spec, "-o", out, "--scheduler", address)
    assert r.rc == 0, r.err
    assert "3 measured now, 0 already there" in r.out
    dist = out.read_text().splitlines()
    assert [json.loads(x)["id"] for x in dist] == [json.loads(x)["id"] for x in serial]
    assert [_modulo_timings(x) for x in dist] == [_modulo_timings(x) for x in serial]
    assert all(json.loads(x)["attacks"] and json.loads(x)["privacy"]["risk"] is not None for x in dist)
    # the releases and keys byte for byte; the anonymiser's sidecars but for their own timings
    got = {p.name: p.read_bytes() for p in (d / "kept").iterdir()}
    assert sorted(got) == sorted(kept) and len(got) >= 3
    for name, data in got.items():
        if name.endswith(".txt.json"):
            assert _stable(json.loads(data)) == _stable(json.loads(kept[name])), name
        else:
            assert data == kept[name], name
    assert os.stat(out).st_mode & 0o777 == 0o600
    # a second run finds every cell there: nothing is sent to the cluster
    r = semtui("experiment", spec, "-o", out, "--scheduler", address)
    assert r.rc == 0 and "0 measured now, 3 already there" in r.out
    assert out.read_text().splitlines() == dist


@pytest.mark.slow
def test_a_run_stopped_part_way_resumes_on_the_cluster_without_redoing_a_cell(own_cluster, experiment):
    """RESULTS holding the first cell's line (a run stopped after it): the distributed run
    measures the two others only, appended after it in cell order -- also when a worker is
    killed while it measures a cell (Dask runs that cell again on another)."""
    from semtui.experiment import read_spec, run_experiment

    address, client = own_cluster
    d, spec, serial, _ = experiment
    out = d / "resumed.jsonl"
    out.write_text(serial[0] + "\n")
    measured = []
    killed = []

    def kill_a_busy_worker(done, total, message=""):
        if killed or "cells finished" not in message:
            return
        busy = [w for w, tasks in client.processing().items() if tasks]
        if busy:
            pid = client.scheduler_info()["workers"][busy[0]].get("pid")
            if pid is None:
                pid = client.run(os.getpid, workers=[busy[0]])[busy[0]]
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)

    summary = run_experiment(read_spec(spec), out, scheduler=address, progress=kill_a_busy_worker,
                             on_cell=lambda doc: measured.append(doc["id"]))
    assert killed
    assert (summary.skipped, summary.done) == (1, 2)
    assert measured == [json.loads(x)["id"] for x in serial[1:]]
    got = out.read_text().splitlines()
    assert got[0] == serial[0]  # untouched: the first cell was not measured again
    assert [_modulo_timings(x) for x in got] == [_modulo_timings(x) for x in serial]


@pytest.mark.slow
def test_batches_start_in_the_order_they_were_planned():
    """The batches are planned largest first so that the last ones to run are small (a worker
    left waiting then waits little): Dask must start them in that order, and a worker must not
    hold the next batch back while the other is free for it (Dask's default lets each worker
    hold one task besides the one it runs: the second worker, done first, then ran the fourth
    batch while the third waited behind the first; MEPS' RBA attack lost 1-2 s of 15 that way)."""
    from semtui.runtime import run_units
    from semtui.runtime.executor import batches

    def stamp(shared, unit):  # defined here: cloudpickle ships it by value to the workers
        import time

        started = time.monotonic()  # one clock for every process of this machine
        time.sleep(shared * unit)
        return started

    costs = [float(c) for c in range(24, 0, -1)]  # unit i sleeps in proportion to its cost
    planned = batches(costs, 2, 4)
    assert len(planned) >= 6
    started = run_units(stamp, 0.02, costs, costs=costs, scheduler="local:2")
    firsts = [min(started[i] for i in b) for b in planned]
    # a batch may start a hand-off (a few ms; more on a loaded machine) after the next one; held
    # back behind another worker's batch, it started 0.15 s or more after it (batches of 0.6-1.4 s)
    assert all(a <= b + 0.05 for a, b in pairwise(firsts)), [round(f - firsts[0], 3) for f in firsts]


@pytest.mark.slow
def test_cells_start_in_their_order():
    """One task per item (the cells of an experiment): a free worker takes the next item, so
    item 2 starts before item 3 (submitted at once, the second worker, done first with item 1,
    ran item 3 -- assigned to it with item 1 -- while item 2 waited behind item 0)."""
    from semtui.runtime.scheduler import run_in_order

    def stamp(shared, seconds):  # defined here: cloudpickle ships it by value to the workers
        import time

        started = time.monotonic()
        time.sleep(seconds)
        return started

    got: list = []
    run_in_order(stamp, None, [0.9, 0.3, 0.6, 0.6, 0.3, 0.3], lambda i, r: got.append(r), spec="local:2")
    assert len(got) == 6
    assert all(a <= b + 0.05 for a, b in pairwise(got)), [round(g - got[0], 3) for g in got]


@pytest.mark.slow
def test_results_come_back_in_order_however_the_tasks_finish(cluster):
    """A task that ends early waits for every earlier one; a failed task raises in its turn,
    after the ones before it were handed on (as a serial run would have written them)."""
    from semtui.runtime.scheduler import run_in_order

    address, _ = cluster

    def nap(shared, seconds):  # defined here: cloudpickle ships it by value to the workers
        import time

        if seconds < 0:
            raise InputError("a bad cell", "spec.toml", 3)
        time.sleep(seconds)
        return shared + seconds

    handed: list = []
    run_in_order(nap, 10, [0.8, 0.0, 0.3, 0.0], lambda i, r: handed.append((i, r)), spec=address)
    assert handed == [(0, 10.8), (1, 10.0), (2, 10.3), (3, 10.0)]
    handed.clear()
    with pytest.raises(InputError, match=r"spec\.toml:3: a bad cell"):
        run_in_order(nap, 0, [0.5, -1, 0.0], lambda i, r: handed.append(i), spec=address)
    assert handed == [0]


@pytest.mark.parametrize("spec", ["local:0", "tcp://host", "2"])
@pytest.mark.slow
def test_experiment_refuses_a_bad_scheduler_in_one_line(spec, experiment, semtui):
    d, grid, _, _ = experiment
    r = semtui("experiment", grid, "-o", d / "never.jsonl", "--scheduler", spec)
    assert r.rc == 2
    r.one_error_line("--scheduler")
    assert not (d / "never.jsonl").exists()


@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
@pytest.mark.slow
def test_an_interrupted_distributed_experiment_leaves_whole_lines(cluster, tmp_path, sig, code):
    """A real process on the cluster, stopped once a first line is written and a cell is still to
    write (the test hook stops the driver there): its tasks are cancelled, RESULTS holds whole
    lines only (in cell order), the exit code is the serial one."""
    import subprocess
    import sys

    from conftest import REPO, paused_at, wait_paused

    address, _ = cluster
    ks = [2, 3, 4, 5]
    spec = tmp_path / "grid.toml"
    spec.write_text(f'original = "{SAMPLES / "meps400-original.txt"}"\n[[release]]\nfamily = "setgen"\n'
                    f'k = {ks}\nrandom_privacy = 10\n')
    results = tmp_path / "R.jsonl"
    marker = tmp_path / "paused"
    env = dict(os.environ, PYTHONPATH=str(REPO), SEMTUI_CACHE_DIR=str(tmp_path / "cache"))
    proc = subprocess.Popen([sys.executable, "-m", "semtui", "experiment", str(spec), "-o", str(results),
                             "--scheduler", address], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=paused_at(r"[1-9]\d* written; next", marker, env))
    wait_paused(proc, marker)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == code, err
    assert err == ("semtui: interrupted\n" if sig == signal.SIGINT else "semtui: terminated\n"), err
    text = results.read_text()
    assert text.endswith("\n") and 1 <= text.count("\n") < len(ks)
    assert [json.loads(x)["cell"]["k"] for x in text.splitlines()] == ks[: text.count("\n")]
    assert os.stat(results).st_mode & 0o777 == 0o600


@pytest.fixture(scope="module")
def joint_release():
    """A real release with joint clusters: MEPS' first 400 patients disassociated (k = 3, m = 2,
    clusters of at most 10, joint clusters of at most 40 records), its key and the original."""
    from semtui.anonymize.disassociation import disassociate

    original = formats.read_transactions(SAMPLES / "meps400-original.txt")
    r = disassociate(original, 3, 2, 10, joint_max_size=40)
    assert len(r.data.joint_clusters) >= 3
    return r.data, r.key, original


@pytest.mark.parametrize("span", [None, 0], ids=["joint clusters on the workers", "joint clusters on the driver"])
@pytest.mark.slow
def test_reassociation_streamed_in_batches_cut_inside_joint_clusters_equals_the_serial_run(cluster, joint_release,
                                                                                           monkeypatch, span):
    """Batches of ~7 transactions: many batch boundaries would fall between two members of one
    joint cluster.  By default a batch is stretched to hold them all and its worker runs the
    joint cluster (the driver runs none); with JOINT_SPAN 0 the batches cut inside them and the
    driver runs each when its last member has arrived.  Either way the report and the
    reconstruction are those of the serial run, with and without --summary-only."""
    import semtui.attacks.reassociation.attack as attack_module
    import semtui.attacks.reassociation.joint as joint_module
    from semtui.attacks.reassociation.attack import stream_costs

    on_driver = []
    real = joint_module.joint_output
    monkeypatch.setattr(joint_module, "joint_output", lambda *a, **kw: on_driver.append(a[1]) or real(*a, **kw))
    if span is not None:
        monkeypatch.setattr(attack_module, "JOINT_SPAN", span)
    address, _ = cluster
    data, key, original = joint_release
    groups = stream_costs([float(c.size) for c in data.clusters], 7)
    batch_of = {ci: g for g, b in enumerate(groups) for ci in b}
    index_of = {c.id: ci for ci, c in enumerate(data.clusters)}
    assert any(len({batch_of[index_of[x]] for x in j.clusters}) > 1 for j in data.joint_clusters)
    for summary_only in (False, True):
        opts = ReassociationOptions(summary_only=summary_only, seed=2)
        serial = run_reassociation(data, key, original, opts)
        on_driver.clear()
        dist = run_reassociation(data, key, original, opts.replace(scheduler=address), batch_cost=7)
        # the attack and the informed reference of every joint cluster: all on the driver, or none
        assert sorted(on_driver) == ([] if span is None else sorted(2 * list(range(len(data.joint_clusters)))))
        assert serial.report.to_json()["metrics"]["shared_chunks"]["placements"] > 0
        assert serial.report.to_json()["metrics"]["informed_reference"]["placements"] > 0
        assert _stable(dist.report.to_json()) == _stable(serial.report.to_json()), summary_only
        assert dist.transactions == serial.transactions
        if summary_only:
            assert dist.transactions == [] and {frozenset(c) for c in dist.report.to_json()["clusters"]} == {
                frozenset({"id", "size", "metrics"})}
        else:
            full = serial.report.to_json()
    assert _stable(full["metrics"]) == _stable(dist.report.to_json()["metrics"])  # --summary-only: the same metrics


@pytest.mark.slow
def test_attack_disassoc_cli_summary_only_on_the_cluster_equals_the_serial_run(cluster, joint_release, semtui,
                                                                             tmp_path):
    from semtui.formats.disassociated import disassociated_to_json, key_to_json

    address, _ = cluster
    data, key, _ = joint_release
    rel, kf = tmp_path / "rel.json", tmp_path / "rel.key.json"
    rel.write_text(json.dumps(disassociated_to_json(data)))
    kf.write_text(json.dumps(key_to_json(key)))
    args = ["attack", "disassoc", rel, "--key", kf, "--original", SAMPLES / "meps400-original.txt",
            "--summary-only", "--method", "ra", "--json"]
    serial = semtui(*args)
    dist = semtui(*args, "--scheduler", address)
    assert serial.rc == dist.rc == 0, dist.err
    a, b = json.loads(serial.out), json.loads(dist.out)
    assert a["summary"]["joint_clusters"] >= 3 and a["metrics"]["placements"] > 0
    assert _stable(b) == _stable(a)


def _as_semtui_writes(data, key, folder):
    """The release and its key written as semtui writes them (a cluster a line): the layout the
    driver reads into spools."""
    from semtui.formats.disassociated import dump_disassociated, dump_key

    rel, kf = folder / "rel.json", folder / "rel.key.json"
    with open(rel, "w") as fh:
        dump_disassociated(data, fh)
    with open(kf, "w") as fh:
        dump_key(key, fh)
    return rel, kf


@pytest.mark.slow
def test_a_release_kept_on_disk_streams_to_the_cluster_and_gives_the_serial_report(cluster, joint_release, semtui,
                                                                                 tmp_path):
    """On --scheduler the driver keeps the release's and the key's clusters on disk, and the
    report's per-cluster part too (written an item at a time): the report, on stdout and in a
    file, is the serial run's, with and without --summary-only."""
    from semtui.fileio import Spool
    from semtui.formats.disassociated import read_disassociated, read_key
    from semtui.reports import dump

    address, _ = cluster
    data, key, original = joint_release
    rel, kf = _as_semtui_writes(data, key, tmp_path)
    # in the engine: the clusters, the key's and the report's entries are spools
    spooled, spooled_key = read_disassociated(rel, spool=True), read_key(kf, spool=True)
    opts = ReassociationOptions(summary_only=True, seed=2, method="ra")
    got = run_reassociation(spooled, spooled_key, original, opts.replace(scheduler=address), batch_cost=7)
    assert isinstance(spooled.clusters, Spool) and isinstance(got.report.clusters, Spool)
    written = tmp_path / "written.json"
    with open(written, "w") as fh:
        dump(got.report, fh)
    serial = run_reassociation(data, key, original, opts)
    assert _stable(json.loads(written.read_text())) == _stable(serial.report.to_json())
    # through the CLI, to a file and to stdout
    for extra in (["--summary-only"], []):
        args = ["attack", "disassoc", rel, "--key", kf, "--original", SAMPLES / "meps400-original.txt",
                "--method", "ra", "--json", *extra]
        a = semtui(*args, "--report", tmp_path / "serial.json")
        b = semtui(*args, "--report", tmp_path / "dist.json", "--scheduler", address)
        assert a.rc == b.rc == 0, b.err
        assert json.loads(a.out)["metrics"]["placements"] > 0 and json.loads(a.out)["summary"]["joint_clusters"] >= 3
        assert _stable(json.loads(b.out)) == _stable(json.loads(a.out))
        assert _stable(json.loads((tmp_path / "dist.json").read_text())) == _stable(
            json.loads((tmp_path / "serial.json").read_text()))


def test_an_original_that_does_not_belong_is_refused_alike_on_the_cluster(cluster, joint_release, semtui, tmp_path):
    """On --scheduler the original is read straight into its matrix over the release's terms:
    one that does not belong (shuffled; set-generalised) is refused in the same one line as
    serially, naming the file and the line.  Dask's loggers, silenced while the failed run's
    session closed, log as before once it has (this process goes on)."""
    import logging

    levels = {n: logging.getLogger(n).level for n in ("distributed", "distributed.client", "tornado.application")}
    address, _ = cluster
    data, key, _ = joint_release
    rel, kf = _as_semtui_writes(data, key, tmp_path)
    lines = (SAMPLES / "meps400-original.txt").read_text().splitlines()
    shuffled = tmp_path / "shuffled.txt"
    shuffled.write_text("\n".join(lines[1:] + lines[:1]) + "\n")
    generalised = tmp_path / "generalised.txt"
    generalised.write_text("\n".join([f"({lines[0]}, x)"] + lines[1:]) + "\n")
    for bad in (shuffled, generalised):
        args = ["attack", "disassoc", rel, "--key", kf, "--original", bad, "--method", "ra", "--summary-only"]
        a, b = semtui(*args), semtui(*args, "--scheduler", address)
        assert a.rc == b.rc == 2 and a.err == b.err, (a.err, b.err)
        b.one_error_line(str(bad))
    assert {n: logging.getLogger(n).level for n in levels} == levels


@pytest.fixture(scope="module")
def meps_release(tmp_path_factory):
    """The bundled MEPS sample disassociated by the CLI (k = 3, m = 2, clusters of at most 30,
    with joint clusters)."""
    from conftest import run_cli

    orig = SAMPLES / "meps400-original.txt"
    folder = tmp_path_factory.mktemp("meps")
    rel, key = folder / "d.json", folder / "d.key.json"
    r = run_cli("anonymize", "disassoc", orig, "-k", "3", "-m", "2", "--max-cluster-size", "30", "-o", rel,
                "--key", key)
    assert r.returncode == 0, r.stderr
    return rel, key, orig


@pytest.mark.parametrize("to_group", [False, True], ids=["driver", "group"])
@pytest.mark.parametrize(("sig", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
@pytest.mark.slow
def test_a_local_cluster_stopped_mid_run_leaves_nothing_in_tmpdir(meps_release, tmp_path, short_tmpdir, sig, code,
                                                                  to_group):
    """``--scheduler local:2`` stopped once its workers are up and the release's first batches are
    sent (the test hook stops the driver there), the driver alone or its whole
    process group (a terminal's Ctrl-C, `timeout`'s or a job scheduler's SIGTERM): one line, the
    signal's exit code, no report, no traceback from Dask torn down under the run, and nothing
    left in $TMPDIR -- not Dask's own ``dask-scratch-space``, which outlived every run before,
    nor multiprocessing's ``pymp-*`` folder (removed before the process leaves with os._exit),
    nor a spool (unnamed), nor the session's scratch folder (``semtui-dask-*``: a worker still
    starting as the signal landed wrote into it after its removal, about 1 run in 8, until the
    stopped driver killed its helpers before removing it the last time; that sweep's own test is
    test_executor's, this signal lands after the workers are up).

    The group's SIGTERM killed the cluster's scheduler with the driver: closing the cluster
    waited 30 s for it, and Dask's logs of the lost connection came out as tracebacks."""
    import subprocess
    import sys
    import time

    from conftest import REPO, paused_at, wait_paused

    rel, kf, orig = meps_release
    tmp = short_tmpdir
    report = tmp_path / "report.json"
    marker = tmp_path / "paused"
    env = dict(os.environ, PYTHONPATH=str(REPO), TMPDIR=str(tmp), SEMTUI_CACHE_DIR=str(tmp_path / "cache"))
    proc = subprocess.Popen([sys.executable, "-m", "semtui", "attack", "disassoc", str(rel), "--key", str(kf),
                             "--original", str(orig), "--summary-only",
                             "--scheduler", "local:2", "--report", str(report)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=paused_at("re-associating", marker, env), start_new_session=True)
    try:
        wait_paused(proc, marker, timeout=120)  # the driver's client has sent the shared data to the workers
        assert len(list(tmp.rglob("worker-*.dirlock"))) == 2, "the local cluster has not its two workers"
        (os.killpg if to_group else os.kill)(proc.pid, sig)
        t0 = time.monotonic()
        _, err = proc.communicate(timeout=120)
        took = time.monotonic() - t0
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == code, err
    assert err.splitlines()[-1] == ("semtui: interrupted" if sig == signal.SIGINT else "semtui: terminated"), err
    assert "Traceback" not in err and "Exception ignored" not in err, err
    assert took < 15, f"{took:.1f} s from the signal to the exit"
    assert not report.exists()
    assert list(tmp.rglob("*")) == []


@pytest.mark.slow
def test_a_release_piped_to_a_local_cluster_run_is_read_whole(joint_release, tmp_path):
    """``cat REL | semtui attack disassoc - --scheduler local:2``: the local cluster starts in a
    thread while the driver reads standard input; starting its fork server pointed the
    process's standard streams at /dev/null for a moment, and the driver read the release as
    empty or cut short. The report is the one read from the file."""
    import shlex
    import subprocess
    import sys

    from conftest import REPO, run_cli

    data, key, _ = joint_release
    rel, kf = _as_semtui_writes(data, key, tmp_path)
    # the same release, each line padded with blanks to ~4 MB: a pipe then delivers it over many
    # reads while the cluster starts (as a large release would)
    rel.write_text("".join(line.rstrip("\n") + " " * 8000 + "\n" for line in rel.read_text().splitlines()))
    args = ["attack", "disassoc", "--key", str(kf), "--original", str(SAMPLES / "meps400-original.txt"),
            "--method", "ra", "--summary-only", "--json", "--scheduler", "local:2"]
    env = {"SEMTUI_CACHE_DIR": str(tmp_path / "cache")}
    from_file = run_cli(args[0], args[1], str(rel), *args[2:], env=env)
    command = " ".join(shlex.quote(str(a)) for a in [sys.executable, "-m", "semtui", args[0], args[1], "-", *args[2:]])
    for _ in range(3):
        piped = subprocess.run(f"cat {shlex.quote(str(rel))} | {command}", shell=True, capture_output=True, text=True,
                               timeout=120, env=dict(os.environ, PYTHONPATH=str(REPO), **env))
        assert from_file.returncode == piped.returncode == 0, piped.stderr
        assert _stable(json.loads(piped.stdout)) == {**_stable(json.loads(from_file.stdout)), "data": "-"}
