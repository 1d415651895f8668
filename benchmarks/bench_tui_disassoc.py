"""TUI speed on a disassociated release (issue 15): time to first paint, and how fast key
presses are answered while a re-association or a cover run works in the worker thread.

The release is opened in a fresh process (interpreter start-up included), headless at
120x40 through Textual's test driver.  "First paint" is the moment the clusters pane and
the first cluster's chunks have been drawn once.  Then the attack is started as the form
would start it, and ``j``/``k`` are pressed while it runs, each timed until answered (the
cursor moved and the chunk view refilled for the new cluster); then escape cancels it and
the time until the worker has stopped is recorded.

Run: python benchmarks/bench_tui_disassoc.py RELEASE [--key KEY --original ORIG]
     [--attack cover|aba] [--measure embedding] [--presses 60]
e.g. python benchmarks/bench_tui_disassoc.py /tmp/wv2.json --key /tmp/wv2.key.json
     --original ../shared/data/bms-webview-2.dat --attack aba
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

from _util import machine

REPO = Path(__file__).resolve().parents[1]

CHILD = r'''
import asyncio, json, resource, sys, time
# the parent's wall clock when it started this process: first paint includes start-up
t_start = time.perf_counter() - (time.time() - float(sys.argv[1]))
from pathlib import Path
from textual import events
from semtui.tui.app import SemtuiApp
from semtui.tui.session import load_session

data, key, original, attack, measure, presses = sys.argv[2:8]
presses = int(presses)

async def main():
    session = load_session(Path(data), key=Path(key) if key else None, original=Path(original) if original else None)
    app = SemtuiApp(session)
    out = {}
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        out["first_paint_s"] = time.perf_counter() - t_start
        out["rss_mb_at_paint"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        out["clusters"] = app.screen.list_pane.row_count
        screen = app.screen
        screen.detail.cluster_view = "subrecords"
        if attack == "cover":
            params = {"attacker": "strong", "knowledge": None, "seed": 0}
            kind = "cover"
        else:
            params = {"method": attack, "measure": measure, "k": None, "seed": 0, "ties": "first", "vectors": None,
                      "jobs": 1}
            kind = "reassociation"
        t0 = time.perf_counter()
        screen.start_job_for(kind, params)
        lst, detail = screen.list_pane, screen.detail
        times = []
        for i in range(presses):
            if not screen.progress.running:
                break
            # Pilot.press waits for idle, never reached while the worker posts progress: send
            # the key to the driver and poll until it is answered (cursor moved, chunks refilled)
            press = "j" if i % 2 == 0 else "k"
            want = lst.cursor_row + (1 if press == "j" else -1)
            event = events.Key(press, press)
            event.set_sender(app)
            t = time.perf_counter()
            app._driver.send_message(event)
            while lst.cursor_row != want or detail.showing != lst.current:
                await asyncio.sleep(0.0005)
            times.append((time.perf_counter() - t) * 1000)
            await asyncio.sleep(0.02)
        out["presses_while_running"] = len(times)
        if times:
            s = sorted(times)
            out["key_ms"] = {"median": s[len(s) // 2], "p95": s[min(len(s) - 1, int(len(s) * 0.95))], "max": s[-1]}
        if screen.progress.running:
            t = time.perf_counter()
            await pilot.press("escape")
            await app.workers.wait_for_complete()
            out["cancel_ms"] = (time.perf_counter() - t) * 1000
        else:
            out["attack_s"] = time.perf_counter() - t0
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(out))

asyncio.run(main())
'''


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("release", type=Path)
    ap.add_argument("--key", type=Path)
    ap.add_argument("--original", type=Path)
    ap.add_argument("--attack", default="cover", help="cover, or a re-association method (aba, rga, mra, assign, ra)")
    ap.add_argument("--measure", default="embedding")
    ap.add_argument("--presses", type=int, default=60)
    args = ap.parse_args()
    print(machine())
    import os

    env = {**os.environ, "PYTHONPATH": str(REPO)}
    cmd = [sys.executable, "-c", CHILD, str(time.time()), str(args.release), str(args.key or ""),
           str(args.original or ""), args.attack, args.measure, str(args.presses)]
    done = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, env=env)
    if done.returncode:
        sys.exit(done.stderr)
    print(done.stdout.strip().splitlines()[-1])


if __name__ == "__main__":
    main()
