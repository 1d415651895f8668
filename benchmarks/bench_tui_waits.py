"""Where a TUI user waits (issue 39, items 3 and 4), each in fresh processes, in interleaved rounds:

* **first paint** of the releases the issue names, with their companions: set-generalised MEPS
  (k = 3, 300 random 3-6 constraints, seed 1) + its original; disassociated BMS-WebView-2 (k = 5,
  m = 2, clusters <= 30) + key + original; k^m BMS-WebView-2 (shipped hierarchy) and k^m MEPS
  (support-ordered fanout-5 hierarchy), k = 5, m = 2, + their reports.  From the interpreter's
  start to the main screen drawn once (headless, 120x40), split into imports, opening the release
  with its companions (``load_session``: reading, the belonging check) and the paint itself;
* **an attack with a background**, the TUI's against the CLI's: ``attack setgen`` (the default,
  PBA on the combined table) of the k^m MEPS-half release (k = 5, m = 2) with the other half as
  the background, from the form to its result on screen, and ``semtui attack setgen`` of the same;
* **``r`` (records at risk)** on disassociated MEPS (k = 3, m = 2, clusters <= 30) with its key,
  original and the strong attacker's cover report: the time to open the view, to its rows, and how
  long a cancel takes to stop the worker.

Run: python benchmarks/bench_tui_waits.py [--rounds 3] [--work /tmp/semtui-tui-waits]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from _data import first_paint_releases as releases
from _data import meps_disassociated
from _util import SHARED_DATA, bytecode, env_for, machine, meps_halves, run_once, semtui

PAINT = r'''
import sys, time
t0 = float(sys.argv[1])
import asyncio, json
from pathlib import Path
from semtui.tui.app import SemtuiApp
from semtui.tui.screens.base import BaseScreen
from semtui.tui.session import load_session
kw = {k: Path(v) for k, v in (a.split("=", 1) for a in sys.argv[3:])}
drawn = {}
mounted = BaseScreen.on_mount
def on_mount(self):   # the main screen's first refresh: what the user first sees
    mounted(self)
    self.call_after_refresh(lambda: drawn.setdefault("at", time.time()))
BaseScreen.on_mount = on_mount
async def main():
    t1 = time.time()
    s = load_session(Path(sys.argv[2]), defer=True, **kw)   # as `semtui open` in a terminal
    t2 = time.time()
    app = SemtuiApp(s)
    app.animation_level = "none"
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        while s.companions is not None:   # a disassociated release's key and original, read after
            await pilot.pause(0.02)
        t4 = time.time()
    t3 = drawn["at"]
    print(json.dumps({"imports": t1 - t0, "open": t2 - t1, "paint": t3 - t2, "total": t3 - t0,
                      "companions": t4 - t0}))
asyncio.run(main())
'''

ATTACK = r'''
import asyncio, json, sys, time
from pathlib import Path
from semtui.tui.app import SemtuiApp
from semtui.tui.session import load_session
async def main():
    app = SemtuiApp(load_session(Path(sys.argv[1]), original=Path(sys.argv[2])))
    app.animation_level = "none"
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("a")
        app.screen.query_one("#background").value = sys.argv[3]
        t = time.perf_counter()
        await pilot.press("ctrl+s")
        while [w for w in app.workers if not w.is_finished] or app.session.result is None:
            await asyncio.sleep(0.05)
        print(json.dumps({"attack": time.perf_counter() - t}))
asyncio.run(main())
'''

RECORDS = r'''
import asyncio, json, sys, time
from pathlib import Path
from semtui.tui.app import SemtuiApp
from semtui.tui.session import load_session
from semtui.tui.components.records import RecordsScreen
async def main():
    s = load_session(Path(sys.argv[1]), key=Path(sys.argv[2]), original=Path(sys.argv[3]), report=Path(sys.argv[4]))
    out = {}
    for cancel in (False, True):
        app = SemtuiApp(s)
        app.animation_level = "none"
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            s.records_found = None  # the rows found afresh in each app
            # the key's own action, timed to the view mounted (Pilot's press waits for the whole
            # app to be idle, which a running worker's progress keeps it from being)
            t = time.perf_counter()
            app.screen.action_records()
            view = app.screen
            assert isinstance(view, RecordsScreen)
            while not view.is_mounted:
                await asyncio.sleep(0.001)
            opened = time.perf_counter() - t
            if cancel:
                await asyncio.sleep(1.0)
                t = time.perf_counter()
                view.action_close()  # escape's action
                while [w for w in app.workers if not w.is_finished]:
                    await asyncio.sleep(0.01)
                out["cancel"] = time.perf_counter() - t
            else:
                while view.rows is None:
                    await asyncio.sleep(0.02)
                out.update(opened=opened, rows=time.perf_counter() - t, n_rows=len(view.rows))
    print(json.dumps(out))
asyncio.run(main())
'''


def child(code: str, *args: object) -> dict:
    r = subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True, text=True,
                       env=env_for(), check=True, timeout=1800)
    return json.loads(r.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--work", type=Path, default=Path("/tmp/semtui-tui-waits"))
    ap.add_argument("--only", choices=("paint",), help="the first paints only")
    a = ap.parse_args()
    bytecode()   # timed as installed: the modules compiled once
    if not SHARED_DATA.is_dir():
        sys.exit("needs ../shared/data")
    a.work.mkdir(parents=True, exist_ok=True)
    print(f"# {machine()}; {time.strftime('%Y-%m-%d %H:%M')}; load {os.getloadavg()[0]:.2f}")
    paints = releases(a.work)
    half1, half2 = meps_halves(a.work)
    km_half = a.work / "meps-half-km.txt"
    if not km_half.exists():
        semtui("hierarchy", "build", half1, "--fanout", 5, "--order", "support", "-o", a.work / "half-h.txt")
        semtui("anonymize", "km", half1, "--hierarchy", a.work / "half-h.txt", "-k", 5, "-m", 2, "-o", km_half)
    meps = SHARED_DATA / "meps2005-conditions.txt"
    dis, key = meps_disassociated(a.work, "meps-dis")
    cover = a.work / "meps-dis.cover.json"
    if not cover.exists():
        r = semtui("cover", dis, "--key", key, "--original", meps, "--json", check=False)
        cover.write_text(r.stdout)
    for rnd in range(1, a.rounds + 1):
        for name, args in paints.items():
            p = child(PAINT, time.time(), *args)
            print(f"round {rnd} first paint {name}: {p['total']:.2f} s (imports {p['imports']:.2f}, "
                  f"open {p['open']:.2f}, paint {p['paint']:.2f}; every companion in at {p['companions']:.2f} s); "
                  f"load {os.getloadavg()[0]:.2f}", flush=True)
        if a.only == "paint":
            continue
        tui = child(ATTACK, km_half, half1, half2)["attack"]
        cli = run_once("attack", "setgen", km_half, "--original", half1, "--background", half2).wall
        print(f"round {rnd} attack with a background: TUI {tui:.2f} s, CLI {cli:.2f} s (start-up included); "
              f"load {os.getloadavg()[0]:.2f}", flush=True)
        rec = child(RECORDS, dis, key, meps, cover)
        print(f"round {rnd} r on disassociated MEPS: view open {rec['opened'] * 1000:.0f} ms, "
              f"{rec['n_rows']:,} rows after {rec['rows']:.2f} s, cancel {rec['cancel'] * 1000:.0f} ms; "
              f"load {os.getloadavg()[0]:.2f}", flush=True)


if __name__ == "__main__":
    main()
