"""Regenerate docs/experiments.md's tables from the specs in benchmarks/specs/ (issue 22).

    nice python benchmarks/experiment_tables.py WORK [SPEC_NAME ...] [--jobs N]

Prepares the data in WORK (MEPS, its halves, the first 6,000 patients, the NGD index of the
second half; BMS-WebView-1/2 and their halves; MED as content words and through `semtui extract`
with their NGD indexes; the k^m section's ICD-9 and balanced hierarchies), copies each spec there, runs `semtui experiment WORK/NAME.toml -o WORK/NAME.jsonl`
(resumable: run it again after an interruption and only the missing cells are measured) and
prints each table rendered by benchmarks/render_tables.py.  SPEC_NAME: a spec of
benchmarks/specs/ without .toml (default: all; TABLE below lists them).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _data import bms_halves, med_extract, med_words, names_hierarchy
from _util import REPO, SHARED_DATA, env_for, meps_halves
from _util import semtui as run_semtui

SPECS = REPO / "benchmarks" / "specs"
#: each spec, the tables render_tables.py prints from it (a table of several datasets is printed
#: once all its specs have run: MULTI)
TABLE = {"strongest_meps": ["strongest"], "strongest_med": ["strongest"], "strongest_med_wordfreq": ["strongest"], "structure_meps": [], "structure_meps_half1": [], "meps_embedding": ["methods"], "meps_ngd": ["methods"],
         "disassoc_meps": ["disassoc"], "grid_6k": [],
         "cover_bms1": [], "cover_bms2": [], "refine_cover_meps": [], "cover_refine_bms1": [], "cover_refine_bms2": [],
         "refine_cover_bms1": [], "refine_cover_bms2": [],
         "refine_bms1": [], "refine_bms2": [], "refine_meps": [],
         "knowledge_med": [], "knowledge_meps": [], "knowledge_bms2": [],
         "unmarked": ["unmarked"], "unmarked_recovery": ["recovery"],
         "med_extract": ["med", "med_knowledge", "med_disassoc"], "km_meps": ["km"]}
#: the release and background names the strongest table prints for a spec (default: MEPS half)
LABELS = {"strongest_med": ("MED even", "med-odd-words.txt"), "strongest_med_wordfreq": ("MED even", "wordfreq:en")}
#: tables over several specs' results: (kind, [(dataset name, spec), ...])
MULTI = [("cover", [("BMS-WebView-1", "cover_bms1"), ("BMS-WebView-2", "cover_bms2"),
                    ("BMS-WebView-1", "cover_refine_bms1"), ("BMS-WebView-2", "cover_refine_bms2")]),
         ("refine", [("BMS-WebView-1", "refine_bms1"), ("BMS-WebView-2", "refine_bms2"), ("MEPS", "refine_meps")]),
         ("refine_cover", [("BMS-WebView-1", "cover_bms1"), ("BMS-WebView-1", "refine_cover_bms1"),
                           ("BMS-WebView-2", "cover_bms2"), ("BMS-WebView-2", "refine_cover_bms2"),
                           ("MEPS", "refine_cover_meps")]),
         ("knowledge", [("MED words", "knowledge_med"), ("MEPS", "knowledge_meps"),
                        ("BMS-WebView-2", "knowledge_bms2")]),
         ("structure", [("full MEPS", "structure_meps"), ("first half", "structure_meps_half1")])]


def semtui(*args: str) -> None:
    r = run_semtui(*args, env=env_for(), check=False)
    if r.returncode != 0:
        raise SystemExit(r.stderr)
    sys.stderr.write(r.stdout)


def prepare(work: Path) -> None:
    meps = work / "meps.txt"
    if not meps.exists():
        shutil.copyfile(SHARED_DATA / "meps2005-conditions.txt", meps)
    if not (work / "meps-half2.txt").exists():
        meps_halves(work)
    lines = meps.read_text(encoding="utf-8").splitlines(keepends=True)
    if not (work / "meps6k.txt").exists():
        (work / "meps6k.txt").write_text("".join(lines[:6000]), encoding="utf-8")
        (work / "meps6k-bg.txt").write_text("".join(lines[6000:12000]), encoding="utf-8")
    if not (work / "meps-half2.sqlite").exists():
        semtui("corpus", "build", str(work / "meps-half2.txt"), "--transactions", "-o", str(work / "meps-half2.sqlite"))
    # BMS-WebView-1/2, whole and split in halves by line (the release's sessions, the attacker's)
    for n in (1, 2):
        bms_halves(work, n)
    # MED as content words (the construction before issue 25, benchmarks/_data.py med_transactions):
    # the even abstracts' words found in 5-30 % of the abstracts, the odd abstracts' words of
    # >= 4 letters (the background) and their text (the NGD index, one abstract a line)
    med_words(work)
    # the k^m section's hierarchies (benchmarks/_data.py names_hierarchy): the shipped ICD-9 one, its
    # code leaves renamed to the condition names, and a balanced fanout-5 one over the conditions
    # MEPS holds, in ICD-9 order
    if not (work / "meps-bal5.hierarchy.txt").exists():
        from semtui import formats
        from semtui.formats.hierarchy import write_hierarchy
        from semtui.model.hierarchy import balanced

        h = names_hierarchy()
        write_hierarchy(h, work / "meps-icd9.hierarchy.txt")
        vocab = formats.read_transactions(work / "meps.txt").vocab
        write_hierarchy(balanced([h.labels[v] for v in h.leaf_order if h.labels[v] in vocab], 5),
                        work / "meps-bal5.hierarchy.txt")
    # MED through `semtui extract` (issue 25), benchmarks/_data.py med_extract
    med = work / "med-extract"
    if not (med / "med-odd.sqlite").exists():
        import contextlib

        med.mkdir(exist_ok=True)
        with contextlib.redirect_stdout(sys.stderr):
            med_extract(med)


def main() -> None:
    args = [a for a in sys.argv[1:]]
    jobs = "2"
    if "--jobs" in args:
        i = args.index("--jobs")
        jobs = args[i + 1]
        del args[i:i + 2]
    work = Path(args[0] if args else "/tmp/experiment-tables")
    names = args[1:] or list(TABLE)
    work.mkdir(parents=True, exist_ok=True)
    prepare(work)
    for name in names:
        spec = work / f"{name}.toml"
        shutil.copyfile(SPECS / f"{name}.toml", spec)
        results = work / f"{name}.jsonl"
        semtui("experiment", str(spec), "-o", str(results), "--jobs", jobs)
        for kind in TABLE[name]:
            print(f"\n### {name} ({kind})\n", flush=True)
            label = LABELS.get(name)
            extra = ["--name", label[0], "--background", label[1]] if label else []
            subprocess.run([sys.executable, str(REPO / "benchmarks" / "render_tables.py"), kind, str(results),
                            *extra], check=True)
    for kind, parts in MULTI:
        have = [f"{label}={work / (spec + '.jsonl')}" for label, spec in parts if (work / f"{spec}.jsonl").exists()]
        if any(spec in names for _, spec in parts) and have:
            print(f"\n### {kind}\n", flush=True)
            subprocess.run([sys.executable, str(REPO / "benchmarks" / "render_tables.py"), kind, *have], check=True)


if __name__ == "__main__":
    main()
