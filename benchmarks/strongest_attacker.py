"""The strongest attacker on set-generalised releases (issue 20): background knowledge beside
the papers' semantic attack, on MEPS, MED and a k^m release, and its speed.

* **MEPS**: the first 13,367 patients of ../shared/data/meps2005-conditions.txt released by
  `semtui anonymize setgen` (COAT-style, 300 random 3-6-item constraints, seed 1, utility all)
  at k = 3 and 4; the attacker's background = the other 13,368 patients (as transactions, and as
  the NGD index of the papers' attack).
* **MED**: the even abstracts as transactions of their content words (as
  benchmarks/_data.py's med_transactions builds them), 200 random 2-4-item constraints, k = 3; the
  background = the odd abstracts' words (transactions) and, separately, `wordfreq:en` (a public
  frequency list: the prior an attacker has without any similar corpus).
* **k^m**: the first MEPS half generalised by AA (k = 5, m = 2) over a balanced fanout-5
  hierarchy of its conditions: no condition stays plain.

For each release and background: `run_setgen_attack` with the background, PBA and TBA each, every
knowledge variant side by side (prior, semantics = NGD alone, background,
combined) with 95 % bootstrap intervals over equivalence groups, the popularity attacker and the
budget-matched random one; then the default (``auto``: PBA and TBA both run, the one that takes
back more reported) on MEPS k = 3 and MED, with its time.  Speed: `semtui attack setgen` on the MEPS k = 3 release, NGD alone
(today's attack) and with `--background`, measured in one run as real processes.

Run: nice python benchmarks/strongest_attacker.py WORK_DIR [--speed-only | --default-only] > report.md
(~10 minutes; --default-only: the default on MEPS k = 3 and MED, and the speed, ~6 minutes)
"""

from __future__ import annotations

import datetime
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _util import SHARED_DATA, env_for, machine, meps_halves, run_measured
from _util import semtui as run_semtui

from semtui import formats
from semtui.attacks.background import load_background
from semtui.attacks.setgen import AttackOptions, run_setgen_attack
from semtui.corpus import build_index
from semtui.measures import open_measure
from semtui.model import TransactionBuilder

DATA = SHARED_DATA if SHARED_DATA.exists() else Path("/work/shared/data")
MEPS = DATA / "meps2005-conditions.txt"
MED = DATA / "med-medline-abstracts.all"
REPO = Path(__file__).resolve().parents[1]


def semtui(*args: str) -> subprocess.CompletedProcess:
    return run_semtui(*args, env=env_for())


def fmt(x, digits: int = 3) -> str:
    return "–" if x is None else f"{x:.{digits}f}"


def ci(m: dict, key: str) -> str:
    iv = (m.get("intervals") or {}).get(key)
    return fmt(m.get(key)) + (f" [{iv['low']:.3f}, {iv['high']:.3f}]" if iv else "")


HEADER = ("| release | background | method | knowledge | AUC within [95 % CI] | precision [95 % CI] | "
          "recall (all added) [95 % CI] | error ratio vs random | random same budget: P | "
          "popularity same budget: P / R / error ratio |")
RULE = "|---|---|---|---|---|---|---|---:|---:|---|"


def attack_rows(release: str, data, original, measure, background, bg_name: str, methods=("pba", "tba")) -> list:
    rows = []
    for method in methods:
        t0 = time.perf_counter()
        rep = run_setgen_attack(data, original, AttackOptions(method=method, measure=measure.name,
                                                              background=bg_name, cache=False),
                                measure=measure, background=background)
        secs = time.perf_counter() - t0
        m = rep.metrics
        for v, f in m["knowledge"].items():
            base = f.get("baseline") or {}
            pop = f.get("popularity") or {}
            print(f"| {release} | {bg_name} | {f['method'].upper()} | {v} | {ci(f, 'auc_within_table')} | "
                  f"{ci(f, 'precision')} | {ci(f, 'recall')} | {fmt(base.get('error_ratio'), 2)} | "
                  f"{fmt(base.get('precision'))} | {fmt(pop.get('precision'))} / {fmt(pop.get('recall'))} / "
                  f"{fmt(pop.get('error_ratio'), 2)} |", flush=True)
            rows.append({"release": release, "background": bg_name, "method": f["method"], "knowledge": v,
                         "seconds": secs, **{k: f.get(k) for k in ("auc_within_table", "precision", "recall",
                                                                     "f1", "baseline", "popularity",
                                                                     "intervals")}})
        print(f"|  |  |  | *{'; '.join(m['carried_by'][-1:])}* |  |  |  |  |  |  |", flush=True)
    return rows


DEFAULT_HEADER = ("| release | background | default reports | candidate | precision [95 % CI] | recall (all added) "
                  "[95 % CI] | error ratio vs random | seconds (whole default attack, in process) |")
DEFAULT_RULE = "|---|---|---|---|---|---|---:|---:|"


def default_rows(release: str, data, original, measure, background, bg_name: str) -> list:
    """The default attack with a background (``auto``: PBA and TBA both run, the stronger reported)."""
    t0 = time.perf_counter()
    rep = run_setgen_attack(data, original, AttackOptions(measure=measure.name, background=bg_name, cache=False),
                            measure=measure, background=background)
    secs = time.perf_counter() - t0
    choice = rep.method_choice
    rows = []
    for m, h in choice["candidates"].items():
        print(f"| {release} | {bg_name} | {choice['chosen'].upper()} | {m.upper()} | {ci(h, 'precision')} | "
              f"{ci(h, 'recall')} | {fmt(h.get('error_ratio'), 2)} | {secs:.1f} |", flush=True)
        rows.append({"release": release, "background": bg_name, "default": choice["chosen"], "candidate": m,
                     "seconds": secs, **h})
    print(f"|  |  |  | *{choice['line']}* |  |  |  |  |", flush=True)
    return rows


def split_meps(work: Path):
    first, second = meps_halves(work)
    index = work / "meps-half2.sqlite"
    if not index.exists():
        build_index([second], index, kind="transactions")
    return first, second, index


def med(work: Path):
    text = MED.read_text(encoding="utf-8", errors="replace")
    docs = []
    for block in re.split(r"^\.I\s+", text, flags=re.M)[1:]:
        number, _, rest = block.partition("\n")
        docs.append((int(number.strip()), " ".join(rest.split(".W", 1)[-1].split())))
    words = [sorted(set(re.findall(r"[a-z][a-z\-]{3,}", body.lower()))) for _, body in docs]
    df: dict[str, int] = {}
    for ws in words:
        for w in ws:
            df[w] = df.get(w, 0) + 1
    keep = {w for w, c in df.items() if 5 <= c <= 0.3 * len(docs)}
    even, odd, odd_lines = TransactionBuilder(), TransactionBuilder(), []
    for (number, body), ws in zip(docs, words):
        if number % 2 == 0:
            even.add([w for w in ws if w in keep])
        else:
            odd.add(ws)
            odd_lines.append(body)
    original, background = work / "med-even.txt", work / "med-odd-words.txt"
    formats.write(even.build(), original)
    formats.write(odd.build(), background)
    corpus, index = work / "med-odd.txt", work / "med-odd.sqlite"
    corpus.write_text("\n".join(odd_lines) + "\n", encoding="utf-8")
    if not index.exists():
        build_index([corpus], index, kind="lines")
    return original, background, index


def med_release_k3(work: Path):
    med_orig, med_bg_path, med_index = med(work)
    med_data = formats.read_transactions(med_orig)
    from semtui.anonymize.setgen import anonymize, random_privacy

    rel = work / "med-even-k3.txt"
    formats.write(anonymize(med_data, random_privacy(med_data, 200, (2, 4), seed=1), 3).data, rel)
    return formats.read_transactions(rel), med_data, open_measure(f"ngd:{med_index}", cache=False), med_bg_path


def main() -> int:
    work = Path(sys.argv[1])
    work.mkdir(parents=True, exist_ok=True)
    print(f"# The strongest attacker — {datetime.date.today()} — {machine()} — load {os.getloadavg()}\n")
    results = []
    first, second, index = split_meps(work)
    if "--speed-only" in sys.argv:
        speed(work, first, second, index)
        return 0
    meps_bg = load_background(str(second))
    ngd = open_measure(f"ngd:{index}", cache=False)
    original = formats.read_transactions(first)
    if "--default-only" in sys.argv:  # the default with a background on MEPS k=3 and MED, then the speed
        rel = work / "meps-half1-k3.txt"
        if not rel.exists():
            semtui("anonymize", "setgen", str(first), "-k", "3", "-o", str(rel), "--random-privacy", "300",
                   "--seed", "1", "--sizes", "3-6", "--utility", "all")
        print(DEFAULT_HEADER)
        print(DEFAULT_RULE)
        results = default_rows("MEPS half, COAT k=3", formats.read_transactions(rel), original, ngd, meps_bg,
                               str(second))
        med_release, med_data, med_ngd, med_bg_path = med_release_k3(work)
        results += default_rows("MED even, COAT k=3", med_release, med_data, med_ngd,
                                load_background(str(med_bg_path)), str(med_bg_path))
        results += default_rows("MED even, COAT k=3", med_release, med_data, med_ngd,
                                load_background("wordfreq:en"), "wordfreq:en")
        speed(work, first, second, index, results, name="strongest_attacker_default.json")
        return 0
    print(HEADER)
    print(RULE)
    for k in (3, 4):
        rel = work / f"meps-half1-k{k}.txt"
        semtui("anonymize", "setgen", str(first), "-k", str(k), "-o", str(rel), "--random-privacy", "300",
               "--seed", "1", "--sizes", "3-6", "--utility", "all")
        results += attack_rows(f"MEPS half, COAT k={k}", formats.read_transactions(rel), original, ngd, meps_bg,
                               str(second))

    # k^m: AA, k=5, m=2, balanced fanout-5 hierarchy over the first half's conditions
    from semtui.anonymize.hierarchy import generalise_km
    from semtui.formats.text import write_setgen
    from semtui.model.hierarchy import balanced

    hb = balanced(sorted(original.vocab.items), 5)
    km = generalise_km(original, hb, 5, 2, "aa")
    km_path = work / "meps-half1-km-k5-m2-bal5.txt"
    write_setgen(km.data, km_path)
    km_data = formats.read_transactions(km_path)
    plain = int((km_data.tokens >= 0).sum())
    print(f"|  |  |  | *k^m release: NCP {km.ncp:.1%}, {len(km.cut)} rules, {plain} plain items* |  |  |  |  |  |  |")
    results += attack_rows("MEPS half, k^m k=5 m=2 fanout 5", km_data, original, ngd, meps_bg, str(second),
                           methods=("pba", "tba"))
    nothing = json.loads(semtui("attack", "setgen", str(km_path), "--original", str(first), "--measure",
                                f"ngd:{index}", "--no-cache", "--json").stdout)
    print(f"|  |  |  | *without --background: {nothing['summary']['knowledge']}* |  |  |  |  |  |  |")

    med_release, med_data, med_ngd, med_bg_path = med_release_k3(work)
    results += attack_rows("MED even, COAT k=3", med_release, med_data, med_ngd, load_background(str(med_bg_path)),
                           str(med_bg_path))
    results += attack_rows("MED even, COAT k=3", med_release, med_data, med_ngd, load_background("wordfreq:en"),
                           "wordfreq:en")

    print("\n" + DEFAULT_HEADER)
    print(DEFAULT_RULE)
    results += default_rows("MEPS half, COAT k=3", formats.read_transactions(work / "meps-half1-k3.txt"), original,
                            ngd, meps_bg, str(second))
    results += default_rows("MED even, COAT k=3", med_release, med_data, med_ngd, load_background(str(med_bg_path)),
                            str(med_bg_path))
    speed(work, first, second, index, results)
    return 0


def speed(work: Path, first: Path, second: Path, index: Path, results: list | None = None,
          name: str = "strongest_attacker.json") -> None:
    """Today's NGD attack and the same with --background, as real processes, in one run."""
    rel3 = work / "meps-half1-k3.txt"
    if not rel3.exists():
        semtui("anonymize", "setgen", str(first), "-k", "3", "-o", str(rel3), "--random-privacy", "300",
               "--seed", "1", "--sizes", "3-6", "--utility", "all")
    base = ["attack", "setgen", str(rel3), "--original", str(first), "--measure", f"ngd:{index}", "--no-cache",
            "--json"]
    print("\n| command | best of 3 (s) | peak RSS (MB) |\n|---|---:|---:|")
    timing = {}
    for name, args in (("NGD attack, today's default (RBA)", base),
                       ("NGD attack, TBA", [*base, "--method", "tba"]),
                       ("--background --method pba (the default before auto)",
                        [*base, "--background", str(second), "--method", "pba"]),
                       ("--background (the default: auto, PBA and TBA, every variant)",
                        [*base, "--background", str(second)])):
        secs, rss = run_measured(args)
        timing[name] = secs
        print(f"| `semtui {' '.join(a if '/' not in a else Path(a).name for a in args)}` | {secs:.2f} | {rss:.0f} |",
              flush=True)
    if results is not None:
        (work / name).write_text(json.dumps({"rows": results, "speed": timing}, indent=1,
                                                                 default=str))
    print(f"\nload after: {os.getloadavg()}")


if __name__ == "__main__":
    sys.exit(main())
