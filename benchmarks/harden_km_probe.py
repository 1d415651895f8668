"""The k^m releases `semtui harden` makes on BMS-WebView-2's first half, attacked as its proof attacks
them but with figures only (issue 37; docs/anonymize.md, *Hardening measured on MED words and
BMS-WebView-2*).

`semtui harden --family km` on the BMS-WebView-2 half passes 4 GB in its proof's first attack
(bench_harden.py --data bms2): the attack's write-up (every group's table, rows and eliminations as
Python lists) grows past 4 GB, where the figures alone fit in about 1-1.6 GB.  This probe makes the
same releases with ``semtui.harden.make`` (the hardened and the plain one, as harden makes them,
written as leaf lists as the proof publishes them), then runs the proof's attack on each -- the
default of ``attack setgen --background`` (``auto``, PBA and TBA on the combined table) with the
background and with the original's own statistics -- with ``write_up=False`` (as ``assess``
attacks its alternatives: the same figures, no per-group entries), each in its own process
(started only below --max-load; its time and peak memory printed).  Not a harden run: no harden
command ran to the end here, and the probe's time is that of one attack, not of the command.

    nice python benchmarks/harden_km_probe.py [--work DIR] [--hierarchy shipped|built] [--max-load L]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import DATA, bms_halves
from _util import harden_table, interval_text, machine

SHIPPED = DATA / "bms-webview-2.hierarchy.txt"


def make(original_path: Path, knowledge: str, output: Path, hierarchy: str) -> None:
    """The hardened and the plain k^m release (k = 5, m = 2, AA), as harden makes them."""
    from semtui import formats
    from semtui.families import FAMILIES
    from semtui.harden import load_knowledge
    from semtui.harden import make as harden_make
    from semtui.harden.proof import _plain_name

    orig = formats.read_transactions(original_path)
    params: dict = {"k": 5, "m": 2, "algorithm": "aa"}
    given = None
    if hierarchy == "shipped":
        from semtui.formats.hierarchy import read_hierarchy

        params["hierarchy"], given = SHIPPED, read_hierarchy(SHIPPED)
    bg = load_knowledge(knowledge, orig, original_path)
    out = harden_make(orig, family="km", params=params, bg=bg, knowledge=knowledge, original_path=original_path,
                      output=output, hierarchy=given)
    fam = FAMILIES["km"]
    texts = []
    for m, name in ((out.made, str(output)), (out.plain, _plain_name(output))):
        text = fam.publish(m, name).text
        Path(name).write_text(text, encoding="utf-8")
        texts.append(text)
    print(f"  {output.name}: hardened {'==' if texts[0] == texts[1] else '!='} plain; method {out.method['name']}")


def attack(release: Path, original_path: Path, knowledge: str) -> None:
    """The proof's attack on one release, figures only; one JSON line."""
    from semtui import formats
    from semtui.attacks.setgen import AttackOptions, run_setgen_attack
    from semtui.families import FAMILIES
    from semtui.harden import load_knowledge

    t0 = time.perf_counter()
    rel, orig = formats.read(release), formats.read(original_path)
    bg = load_knowledge(knowledge, orig, original_path)
    spec = str(original_path) if knowledge == "self" else knowledge
    rep = run_setgen_attack(rel, orig, AttackOptions(background=spec, k=5), background=bg, write_up=False)
    m, u = rep.metrics, FAMILIES["km"].utility(orig, rel)
    iv = m.get("intervals") or {}
    print(json.dumps({"method": rep.options.method, "auc_within_table": m.get("auc_within_table"),
                      "auc_iv": iv.get("auc_within_table"), "error_ratio": (m.get("baseline") or {}).get("error_ratio"),
                      "recall": m.get("recall"), "recall_iv": iv.get("recall"), "precision": m.get("precision"),
                      "pair_support_error": u.get("pair_support_error"),
                      "item_support_error": u.get("item_support_error"), "ncp": u.get("ncp"),
                      "seconds": time.perf_counter() - t0,
                      "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] in ("make", "attack"):  # a child: one step in its own process
        step, *rest = sys.argv[1:]
        if step == "make":
            make(Path(rest[0]), rest[1], Path(rest[2]), rest[3])
        else:
            attack(Path(rest[0]), Path(rest[1]), rest[2])
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", type=Path, default=Path("/tmp/harden-km-probe"))
    ap.add_argument("--hierarchy", choices=("shipped", "built"), default="shipped")
    ap.add_argument("--max-load", type=float, default=2.5)
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    _, half1, half2 = bms_halves(args.work, 2)
    print(f"{datetime.date.today()}, {machine()}; BMS-WebView-2 half, k^m k = 5, m = 2, hierarchy {args.hierarchy}")

    def child(*a: object) -> str:
        while os.getloadavg()[0] >= args.max_load:
            time.sleep(30)
        load = os.getloadavg()[0]
        started = datetime.datetime.now(datetime.UTC).strftime("%H:%M:%S UTC")
        out = subprocess.run([sys.executable, __file__, *map(str, a)], check=True, capture_output=True,
                             text=True).stdout
        print(f"  {a[0]} {' '.join(Path(str(x)).name for x in a[1:])}: started {started}, load {load:.2f} -> "
              f"{os.getloadavg()[0]:.2f}")
        return out

    runs = [("background", str(half2))] if args.hierarchy == "shipped" else [("background", str(half2)),
                                                                             ("self", "self")]
    rows = []
    for hardened_against, kn in runs:
        out = args.work / f"km-{args.hierarchy}-{'bg' if kn != 'self' else 'self'}.txt"
        print(child("make", half1, kn, out, args.hierarchy), end="")
        plain = out.with_name(out.stem + ".plain.txt")
        # over the shipped hierarchy the plain release is the hardened one (make prints the check)
        sides = [("hardened", out)] + ([("plain", plain)] if kn != "self" and args.hierarchy == "built" else [])
        for side, release in sides:
            for attack_kn in ([str(half2), "self"] if kn != "self" else ["self", str(half2)]):
                f = json.loads(child("attack", release, half1, attack_kn).strip().splitlines()[-1])
                rows.append(
                    f"| km k=5 m=2 ({args.hierarchy} hierarchy) | {hardened_against if side == 'hardened' else ''} "
                    f"| {side} | {'self' if attack_kn == 'self' else 'background'} | {f['method'].upper()} "
                    f"| {f['auc_within_table']:.3f}{interval_text(f['auc_iv'])} | {f['error_ratio']:.2f} "
                    f"| {f['recall']:.3f}{interval_text(f['recall_iv'])} | {f['precision']:.3f} "
                    f"| {f['pair_support_error']:.3f} | {f['item_support_error']:.3f} | – "
                    f"| probe: {f['seconds']:.0f} s, {f['peak_mb']:,.0f} MB |")
                print(rows[-1], flush=True)
    harden_table(rows, "attack alone (figures only): time, peak memory")


if __name__ == "__main__":
    main()
