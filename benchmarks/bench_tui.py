"""TUI speed: time to first paint and memory on big set-generalised datasets, and how fast
key presses are answered while an attack runs in the worker thread.

Datasets:
  * a synthetic release with --groups equivalence groups (default 100,000; two
    transactions each), attacked with a ``scores:`` measure written beside it;
  * the set-generalised MEPS release with k=2 (made by benchmarks/meps_releases.py into
    --meps-dir if it is not there yet; skipped when ../shared/data is absent), attacked with
    the default ``embedding`` measure.

Each dataset is opened in a fresh process (interpreter start-up included, as a user sees
it), headless at 80x24 through Textual's test driver.  "First paint" is the moment the main
screen has been laid out and drawn once.  Then an attack is started through the form's
worker and ``j``/``k`` are pressed while it runs; each press is timed until it is answered
(the cursor moved and the pane beside it refilled for the new group); then the attack is
cancelled with escape and the time until the worker has stopped is recorded.

Run: python benchmarks/bench_tui.py [--groups 100000] [--meps-dir /tmp/semtui-meps]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from itertools import combinations
from pathlib import Path

from _util import SHARED_DATA, machine

REPO = Path(__file__).resolve().parents[1]

CHILD = r'''
import asyncio, json, resource, sys, time
t_start = float(sys.argv[1])
from pathlib import Path
from textual import events
from semtui.tui.app import SemtuiApp
from semtui.tui.session import load_session

data, measure = Path(sys.argv[2]), sys.argv[3]
presses = int(sys.argv[4])
original = Path(sys.argv[5]) if len(sys.argv) > 5 and sys.argv[5] else None
report = Path(sys.argv[6]) if len(sys.argv) > 6 and sys.argv[6] else None

async def replay_phase(app, pilot, out):
    """With a report: the biggest group's weighted view replays in a worker; time j meanwhile."""
    screen = app.screen
    lst, view = screen.list_pane, screen.distances
    sizes = lst.source.sizes
    lst.move_to(int(sizes.argmax()))
    await pilot.pause()
    await pilot.press("enter")
    table = view.table
    t = time.perf_counter()
    view.toggle_weighted()
    out["w_ms"] = (time.perf_counter() - t) * 1000
    out["replay_rows"] = table.row_count
    lat = []
    while view.replay_pending and len(lat) < presses and table.cursor_row < table.row_count - 1:
        want = table.cursor_row + 1
        event = events.Key("j", "j")
        event.set_sender(app)
        t = time.perf_counter()
        app._driver.send_message(event)
        while table.cursor_row != want:
            await asyncio.sleep(0.0005)
        lat.append((time.perf_counter() - t) * 1000)
    t = time.perf_counter()
    await app.workers.wait_for_complete()
    out["replay_left_s"] = time.perf_counter() - t
    lat.sort()
    if lat:
        out["replay_key_ms"] = (lat[len(lat) // 2], lat[int(len(lat) * 0.95)], lat[-1], len(lat))

async def main():
    session = load_session(data, original=original, report=report)
    app = SemtuiApp(session, attack_defaults={"measure": measure})
    out = {}
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        out["first_paint_s"] = time.time() - t_start
        out["rss_mb_at_paint"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        screen = app.screen
        out["groups"] = screen.list_pane.row_count
        await pilot.press("a", "ctrl+s")
        t_attack = time.perf_counter()
        lst, detail = screen.list_pane, screen.detail

        def answered():
            """The pane beside the list shows the highlighted group (detail or distances)."""
            if screen.switcher.current == "detail":
                return detail.showing == lst.current
            attack = screen.distances.attack
            return attack is not None and attack.group.get("id") == lst.current
        lat = []
        # Pilot.press waits for the process to go idle, which it never does while the
        # worker computes; so send the key to the driver and poll until it is answered:
        # the cursor moved and the pane beside it shows the newly highlighted group.
        while screen.progress.running and len(lat) < presses:
            for key, step in (("j", 1), ("k", -1)):
                want = lst.cursor_row + step
                event = events.Key(key, key)
                event.set_sender(app)
                t = time.perf_counter()
                app._driver.send_message(event)
                while not (lst.cursor_row == want and answered()):
                    await asyncio.sleep(0.0005)
                lat.append((time.perf_counter() - t) * 1000)
        out["presses_during_attack"] = len(lat)
        out["attack_s"] = None
        if screen.progress.running:  # cancel what is left, and time the cancel
            t = time.perf_counter()
            await pilot.press("escape")
            await app.workers.wait_for_complete()
            out["cancel_ms"] = (time.perf_counter() - t) * 1000
        else:
            out["attack_s"] = time.perf_counter() - t_attack
        out["results"] = len(session.results)
        if report is not None:
            await pilot.pause()
            await replay_phase(app, pilot, out)
        lat.sort()
        if lat:
            out["key_ms_median"] = lat[len(lat) // 2]
            out["key_ms_p95"] = lat[int(len(lat) * 0.95)]
            out["key_ms_max"] = lat[-1]
        out["rss_mb_peak"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(out))

asyncio.run(main())
'''


def synthetic(folder: Path, groups: int) -> tuple[Path, str]:
    """``groups`` distinct generalised items (3 of 120 items), two transactions each."""
    items = [f"item{i}" for i in range(120)]
    ctx = [f"ctx{i}" for i in range(40)]
    data = folder / f"synthetic-{groups}.txt"
    with open(data, "w", encoding="utf-8") as fh:
        for g, combo in zip(range(groups), combinations(items, 3)):
            gen = ", ".join(combo)
            fh.write(f"{ctx[g % 40]}, {ctx[(g * 7) % 40]}, ({gen})\n{ctx[(g + 3) % 40]}, ({gen})\n")
    scores = folder / "synthetic-scores.csv"
    with open(scores, "w", encoding="utf-8") as fh:
        fh.write("a,b,distance\n")
        fh.writelines(f"{a},{b},{((i * 7 + j * 3) % 11) / 10 + 0.05}\n"
                      for i, a in enumerate(items) for j, b in enumerate(ctx))
    return data, f"scores:{scores}"


def meps_release(folder: Path) -> Path | None:
    release = folder / "meps-k2.txt"
    if release.exists():
        return release
    if not (SHARED_DATA / "meps2005-conditions.txt").exists():
        return None
    subprocess.run([sys.executable, str(REPO / "benchmarks" / "meps_releases.py"), str(folder), "--ks", "2"],
                   check=True, capture_output=True)
    return release


def measure(data: Path, spec: str, presses: int, original: Path | None = None, report: Path | None = None) -> dict:
    t0 = time.time()
    out = subprocess.run([sys.executable, "-c", CHILD, str(t0), str(data), spec, str(presses),
                          str(original or ""), str(report or "")],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--groups", type=int, default=100_000)
    ap.add_argument("--meps-dir", type=Path, default=Path(tempfile.gettempdir()) / "semtui-meps")
    ap.add_argument("--presses", type=int, default=60)
    ap.add_argument("--release", type=Path, help="also open this release (e.g. MEPS k=3) ...")
    ap.add_argument("--original", type=Path, help="... with its original ...")
    ap.add_argument("--report", type=Path, help="... and a report of it: times the weighted replay of its "
                    "biggest group too")
    ap.add_argument("--skip-synthetic", action="store_true")
    args = ap.parse_args()
    print(f"machine: {machine()}; date: {time.strftime('%Y-%m-%d')}")
    print("| dataset | groups | first paint (s) | RSS at paint (MB) | keys pressed during the attack "
          "| key median / p95 / max (ms) | cancel (ms) | peak RSS (MB) |")
    print("|---|---:|---:|---:|---:|---|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        runs = []
        if not args.skip_synthetic:
            runs.append((f"synthetic, {args.groups:,} groups", *synthetic(Path(tmp), args.groups), None, None))
            args.meps_dir.mkdir(parents=True, exist_ok=True)
            meps = meps_release(args.meps_dir)
            if meps is not None:
                runs.append(("MEPS set-generalised k=2", meps, "embedding", None, None))
        if args.release is not None:
            extra = " + original" if args.original else ""
            runs.append((f"{args.release.name}{extra}", args.release, "embedding", args.original, args.report))
        replays = []
        for name, data, spec, original, report in runs:
            r = measure(data, spec, args.presses, original, report)
            if "replay_key_ms" in r:
                replays.append((name, r))
            keys = (f"{r['key_ms_median']:.0f} / {r['key_ms_p95']:.0f} / {r['key_ms_max']:.0f}"
                    if "key_ms_median" in r else "attack ended first")
            cancel = f"{r['cancel_ms']:.0f}" if "cancel_ms" in r else f"(ended after {r['attack_s']:.1f} s)"
            print(f"| {name} | {r['groups']:,} | {r['first_paint_s']:.2f} | {r['rss_mb_at_paint']:.0f} "
                  f"| {r['presses_during_attack']} | {keys} | {cancel} | {r['rss_mb_peak']:.0f} |")
        for name, r in replays:
            med, p95, mx, n = r["replay_key_ms"]
            print(f"\nweighted view of the biggest group of {name} ({r['replay_rows']:,} rows): `w` answered in "
                  f"{r['w_ms']:.0f} ms; {n} keys pressed while the replay ran in its worker: median / p95 / max "
                  f"{med:.0f} / {p95:.0f} / {mx:.0f} ms; replay finished {r['replay_left_s']:.1f} s after the last key")


if __name__ == "__main__":
    main()
