"""Running a spec's grid into RESULTS.jsonl: one whole line per finished cell, appended as it
finishes (``fileio.append_line``), so a run stopped at any moment leaves only whole lines and
the next run skips every cell already there (docs/experiment.md).

With a Dask scheduler (``--scheduler``, :mod:`semtui.runtime.scheduler`) each cell still to
measure is one task on the cluster: the context (the original, the background, the files the
cells name, as read here) travels once to every worker, each worker opens the measures from
their specs, and the lines are appended here in cell order (docs/distributed.md)."""

from __future__ import annotations

import dataclasses
import threading
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from semtui.errors import InputError
from semtui.experiment.cells import (
    FORMAT,
    FORMATS,
    Context,
    cell_digests,
    cell_files,
    measure_cell,
    run_cell,
    write_kept_files,
)
from semtui.experiment.spec import Spec
from semtui.runtime import ProgressCallback, no_progress


@dataclass
class Results:
    """What a RESULTS file holds: its whole lines (parsed), and a torn last line dropped."""

    cells: list[dict] = field(default_factory=list)
    torn: str | None = None  # the warning about a dropped last line
    lines: list[str] = field(default_factory=list)  # the whole lines, as written
    numbers: list[int] = field(default_factory=list)  # each cell's line number in the file


#: how every line semtui experiment writes begins (orjson, compact), whatever its version
_MARK = '{"format":"' + FORMAT.rsplit("/", 1)[0] + "/"


def read_results(path: str | Path, *, missing_ok: bool = True) -> Results:
    """Every cell of a RESULTS file.  A last line without its newline, or one that is not JSON,
    is what an older crash left: it is dropped (``torn`` says so).  Any other bad line is an
    error naming its line."""
    from semtui.fileio import decode_text, parse_json, read_bytes

    p = Path(path)
    if not p.exists() and missing_ok:
        return Results()
    text = decode_text(read_bytes(p), p, allow_empty=True)
    out = Results()
    raw = text.split("\n")  # the last piece is "" when the file ends with its newline
    numbered = [(i + 1, line) for i, line in enumerate(raw) if line.strip()]
    for n, (lineno, line) in enumerate(numbered):
        # a torn line is the start of one of ours (what run_experiment writes begins so); anything
        # else is not a RESULTS file and is never rewritten
        last = n == len(numbered) - 1 and (line.startswith(_MARK) or _MARK.startswith(line))
        if last and lineno == len(raw) and not text.endswith("\n"):
            out.torn = f"{p}:{lineno}: dropped a torn last line (no newline: a write an older run did not finish)"
            break
        try:
            doc = parse_json(line, p, lineno)
        except InputError:
            if last:
                out.torn = f"{p}:{lineno}: dropped a torn last line (not JSON: a write an older run did not finish)"
                break
            raise
        # a file a run began before the formats' one interval shape holds /1 lines, a resumed run adds
        # /2 lines: each line is read as its own version says (docs/experiment.md)
        if not isinstance(doc, dict) or doc.get("format") not in FORMATS or not isinstance(doc.get("id"), str):
            raise InputError(f"not a {FORMAT} line (a RESULTS file of semtui experiment?)", p, lineno)
        out.cells.append(doc)
        out.lines.append(line)
        out.numbers.append(lineno)
    return out


@dataclass
class RunSummary:
    total: int = 0
    skipped: int = 0
    done: int = 0
    warnings: list[str] = field(default_factory=list)
    results: Path | None = None


def run_experiment(spec: Spec, results: str | Path, *, jobs: int = 1, cache: bool = True,
                   progress: ProgressCallback | None = None, on_cell=None,
                   scheduler: str | None = None) -> RunSummary:
    """Every cell of ``spec`` not yet in ``results``, each appended as one line when it ends.
    ``on_cell(cell_doc)`` is called after each line is written.  ``scheduler`` (``local:N``,
    ``tcp://HOST:PORT``): each cell is one task on that Dask cluster (``jobs`` is then unused:
    a cell runs in one worker), the lines appended in cell order."""
    from semtui.fileio import held_for_appending
    from semtui.runtime.cluster import check_scheduler

    progress = progress or no_progress
    scheduler = check_scheduler(scheduler)
    results = Path(results)
    # one run appends to a RESULTS file at a time: a second is refused, never writes its cells twice
    with held_for_appending(results):
        return _run_held(spec, results, jobs=jobs, cache=cache, progress=progress, on_cell=on_cell,
                         scheduler=scheduler)


def _run_held(spec: Spec, results: Path, *, jobs: int, cache: bool, progress: ProgressCallback, on_cell,
              scheduler: str | None) -> RunSummary:
    from semtui import formats
    from semtui.fileio import append_line, rehold, write_together

    # a device or a FIFO (-o /dev/null, a pipe) holds nothing to resume: never read before writing
    have = read_results(results) if not results.exists() or results.is_file() else Results()
    summary = RunSummary(results=results)
    if have.torn:
        summary.warnings.append(have.torn)
        # the whole lines only, so the next line does not continue the torn one
        text = "".join(line + "\n" for line in have.lines)
        write_together([(results, lambda fh: fh.write(text), True)])
        rehold(results)
    want = spec.inputs()
    for doc in have.cells:
        got = doc.get("inputs")
        if got is not None and _norm(got) != _norm(want):
            raise InputError(f"holds cells measured with other inputs ({_differs(got, want)}): give another "
                             "-o, or the spec those cells came from", results)
    by_table = spec.cells_by_table()
    cells = [c for c, _ in by_table]
    # the inputs by content: a line measured on other bytes at the same path is never mixed in
    shared, files = input_digests(spec, cells)
    probe = Context(original=None, original_path=str(spec.original), digests=shared, file_digests=files)
    now_of = {c.id: cell_digests(c, probe) for c in cells}
    for doc, lineno in zip(have.cells, have.numbers):
        got = (doc.get("inputs") or {}).get("digests")
        if isinstance(got, dict):
            _same_content(got, now_of.get(doc["id"], shared), doc, spec, results, lineno)
    done_ids = {doc["id"] for doc in have.cells}
    summary.total = len(cells)
    todo = [c for c in cells if c.id not in done_ids]
    summary.skipped = len(cells) - len(todo)
    if not todo:
        return summary
    # every file a cell still to run names read before the first runs (a missing one named with the spec's line)
    table_of = {c.id: ti for c, ti in by_table}
    _check_files(spec, todo, table_of, probe)
    if spec.keep_releases is not None and not spec.keep_releases.is_dir():
        if spec.keep_releases.exists():
            raise InputError("keep_releases names a file, not a folder", spec.keep_releases)
        if not spec.keep_releases.parent.is_dir():
            raise InputError("keep_releases: its parent folder does not exist", spec.keep_releases)
        spec.keep_releases.mkdir()
    progress(0, len(todo), "reading the original")
    original = formats.read_transactions(spec.original)
    if original.n_generalised:
        raise InputError("the original must be plain transactions, not a release", spec.original)
    ctx = Context(original=original, original_path=str(spec.original), background=spec.background,
                  corpus=None if spec.corpus is None else str(spec.corpus), measures=spec.measures,
                  jobs=1 if scheduler else jobs, cache=cache, keep_dir=spec.keep_releases, only=spec.attacks,
                  digests=shared, file_digests=files)
    ctx._files, ctx._hierarchies = probe._files, probe._hierarchies  # read once, above
    if scheduler is not None:
        _run_on_cluster(scheduler, ctx, todo, results, summary, progress, on_cell)
        return summary
    from semtui.runtime.executor import capped_jobs

    if capped_jobs(jobs) > 1 and len(todo) > 1:
        _run_here_in_parallel(ctx, todo, results, summary, progress, on_cell, capped_jobs(jobs))
        return summary
    # every measure and the background opened before the first cell: a bad one is refused at once
    ai = ctx.inputs("-")
    for m in ai.measure_list():
        ctx.opened.measure(m, cache)
    if spec.background:
        progress(0, len(todo), "reading the background")
        ctx.opened.load_background(spec.background)
    for n, cell in enumerate(todo):
        def inner(d, t, message="", _n=n, _label=cell.label):
            progress(_n, len(todo), f"[{_n + 1}/{len(todo)}] {_label}: {message}".rstrip(": "))

        inner(0, 0, "starting")
        doc = run_cell(cell, ctx, inner)
        append_line(results, dumps_line(doc), private=True)
        summary.done += 1
        progress(n + 1, len(todo), f"[{n + 1}/{len(todo)}] {cell.label}: done")
        if on_cell is not None:
            on_cell(doc)
    return summary


def _run_on_cluster(scheduler: str, ctx: Context, todo: list, results: Path, summary: RunSummary,
                    progress: ProgressCallback, on_cell) -> None:
    """The cells of ``todo`` as one task each on the cluster; each line appended (with its kept
    release written first) as soon as every earlier cell's is."""
    from semtui.runtime.scheduler import run_in_order

    n = len(todo)
    _read_for_workers(ctx, todo, progress)

    line = _line_writer(results, summary, on_cell)

    def said(done: int, total: int, message: str = "") -> None:
        progress(done, total, f"{done}/{total} cells finished on {scheduler}, {summary.done} written"
                 + (f"; next: {todo[summary.done].label}" if summary.done < total else ""))

    progress(0, n, f"connecting to {scheduler}" if "://" in scheduler else f"starting {scheduler}")
    run_in_order(measure_on_worker, (uuid.uuid4().hex, ctx), todo, line, spec=scheduler, progress=said)


def _line_writer(results: Path, summary: RunSummary, on_cell):
    """``line(i, (doc, files))``: a cell measured on a worker written by the driver -- its kept
    release's files first, then its line appended to RESULTS."""
    from semtui.fileio import append_line

    def line(i: int, got: tuple[dict, list]) -> None:
        doc, files = got
        write_kept_files(files)
        append_line(results, dumps_line(doc), private=True)
        summary.done += 1
        if on_cell is not None:
            on_cell(doc)

    return line


def _read_for_workers(ctx: Context, todo: list, progress: ProgressCallback) -> None:
    """What travels to the workers, read here: the files the cells name and the background (a
    wordfreq: list is a language, not a file: each worker loads it); a measure is only checked (its
    file readable), never opened here: each worker opens it from its spec."""
    from semtui.fileio import check_readable
    from semtui.measures import measure_files

    n = len(todo)
    progress(0, n, "reading the files the cells name")
    ctx.read_files(todo)
    for m in ctx.inputs("-").measure_list():
        for f in measure_files(m):
            check_readable(f)
    if ctx.background and not ctx.background.startswith("wordfreq:"):
        progress(0, n, "reading the background")
        ctx.opened.load_background(ctx.background)


def _run_here_in_parallel(ctx: Context, todo: list, results: Path, summary: RunSummary,
                          progress: ProgressCallback, on_cell, jobs: int) -> None:
    """The cells of ``todo`` as units of the one executor, ``jobs`` at a time on this machine (each
    cell's attacks on one core: the same line, figure for figure, as one cell at a time); each line
    appended (its kept release written first) as soon as every earlier cell's is, so a run stopped
    part-way leaves whole lines in order and the next run resumes after them."""
    from semtui.runtime.executor import run_local

    n = len(todo)
    _read_for_workers(ctx, todo, progress)
    waiting: dict[int, tuple[dict, list]] = {}
    written = [0]

    line = _line_writer(results, summary, on_cell)

    def arrived(i: int, got: tuple[dict, list]) -> None:
        waiting[i] = got
        while written[0] in waiting:
            line(written[0], waiting.pop(written[0]))
            written[0] += 1
            progress(written[0], n, f"{written[0]}/{n} cells written, {jobs} at a time")

    def said(done: int, total: int, message: str = "") -> None:
        progress(written[0], n, f"{done}/{n} cells finished, {written[0]} written, {jobs} at a time"
                 + (f"; next: {todo[written[0]].label}" if written[0] < n else ""))

    shipped = (uuid.uuid4().hex, dataclasses.replace(ctx, jobs=1))
    run_local(measure_on_worker, shipped, todo, jobs=jobs, progress=said, on_result=arrived)


#: a worker's measures (and a background it loads itself: wordfreq:), opened from their specs
#: once per run and thread (a measure's cache connection stays in the thread that opened it); a
#: new run starts afresh
_worker_state: dict = {"run": None, "opened": {}}
_worker_lock = threading.Lock()


def measure_on_worker(shipped: tuple[str, Context], cell) -> tuple[dict, list]:
    """One cell on a Dask worker or a worker of the one executor (:func:`measure_cell`): the kept
    release's files come back with the line, for the driver to write."""
    from semtui.assess import Opened

    run, ctx = shipped
    with _worker_lock:
        if _worker_state["run"] != run:
            _worker_state.update(run=run, opened={})
        opened = _worker_state["opened"].setdefault(threading.get_ident(), Opened())
    opened.backgrounds.update(ctx.opened.backgrounds)  # as loaded on the driver
    return measure_cell(cell, dataclasses.replace(ctx, opened=opened), write_kept=False)


def file_digest(path: str | Path) -> str | None:
    """``sha256:HEX`` of a file's bytes, read in blocks; None for what is not a regular file (a
    stream is read once, by the run)."""
    import hashlib

    p = Path(path)
    if not p.is_file():
        return None
    h = hashlib.sha256()
    try:
        with open(p, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", p) from None
    return "sha256:" + h.hexdigest()


def input_digests(spec: Spec, cells) -> tuple[dict, dict[str, str]]:
    """The content of what the cells read: ``(shared, files)``.  ``shared``: the original, the
    background (a file, or counts:FILE), the corpus and each measure's file (a list, None for a
    measure that reads none), by their names in a line's ``inputs``; ``files``: each file the
    cells' parameters name, by path."""
    from semtui.measures import measure_files

    shared: dict = {"original": file_digest(spec.original)}
    bg = spec.background
    if bg is not None and not bg.startswith("wordfreq:"):
        shared["background"] = file_digest(bg[len("counts:"):] if bg.startswith("counts:") else bg)
    if spec.corpus is not None:
        shared["corpus"] = file_digest(spec.corpus)
    if spec.measures:
        shared["measures"] = [next((file_digest(f) for f in measure_files(m)), None) for m in spec.measures]
    shared = {k: v for k, v in shared.items() if v is not None}
    files = {path: d for c in cells for path in cell_files(c).values() if (d := file_digest(path)) is not None}
    return shared, files


def _same_content(got: dict, now: dict, doc: dict, spec: Spec, results: Path, lineno: int) -> None:
    """Refuse, in one line naming the RESULTS line, a cell measured on other bytes than the
    inputs hold now (the same path, changed since: its cells and new ones would be mixed)."""
    for key, then in got.items():
        if key not in now or now[key] == then:
            continue
        if key == "measures":
            what = "a measure's file"
        elif key in ("original", "background", "corpus"):
            what = f"the {key} {doc.get('inputs', {}).get(key) or ''}".rstrip()
        else:
            what = f"the file its {key!r} names"

        def short(d) -> str:
            return str(d).removeprefix("sha256:")[:12] + "…" if isinstance(d, str) else str(d)

        raise InputError(f"holds a cell ({doc.get('label', doc['id'])}) measured on other content of {what} "
                         f"(sha256 {short(then)} then, {short(now[key])} now): the file changed since; give "
                         "another -o, or put back the input those cells were measured on", results, lineno)


def _check_files(spec: Spec, todo, table_of: dict, sources: Context) -> None:
    """Read every file the cells still to run name (privacy and utility constraints, a
    hierarchy) before the first runs; a file that cannot be read is named with the spec's line
    of the parameter that names it (an error inside the file names its own line)."""
    from semtui.families import family_of

    for cell in todo:
        try:
            family_of(cell.family).read_files(dict(cell.params), sources)
        except InputError as exc:
            if exc.line is not None or exc.path is None:
                raise
            key = next((k for k, v in cell_files(cell).items() if Path(v) == Path(exc.path)), "")
            raise spec.error(f"{key!r} ({exc.path}): {exc.message}" if key else str(exc), key,
                             table_of.get(cell.id)) from None


def dumps_line(doc: dict) -> str:
    """One cell as one line of JSON (orjson, no indent)."""
    import orjson

    from semtui.reports import _default

    return orjson.dumps(doc, default=_default).decode()


def _norm(inputs: dict) -> dict:
    """Inputs compared by what they name: a file by its absolute path (the spec may be run from
    another folder), measures as a list."""
    out = {}
    for k in ("original", "background", "corpus"):
        v = inputs.get(k)
        if isinstance(v, str) and not v.startswith(("wordfreq:", "counts:")):
            v = str(Path(v).resolve())
        elif isinstance(v, str) and v.startswith("counts:"):
            v = "counts:" + str(Path(v[len("counts:"):]).resolve())
        out[k] = v
    out["measures"] = list(inputs.get("measures") or [])
    out["attacks"] = list(inputs["attacks"]) if inputs.get("attacks") is not None else None
    return out


def _differs(got: dict, want: dict) -> str:
    got, want = _norm(got), _norm(want)
    bits = [f"{k} {got.get(k)!r} here, {want.get(k)!r} in the spec" for k in want if got.get(k) != want.get(k)]
    return "; ".join(bits[:2])
