"""The experiment's two figures, for reports and the docs (matplotlib, the ``semtui[plot]``
extra): on the left the strongest attack's precision and recall (set generalisation, k^m) or
accuracy (disassociation) against k, one line per family and its other parameters; on the right
risk against utility, one point per candidate release, the Pareto frontier (no other release
both less at risk and more useful) drawn through its points, the chosen alternative starred.

They read RESULTS.jsonl (``semtui experiment``) or an assessment document (its
``alternatives``): both hold the same cells (docs/experiment.md).
"""

from __future__ import annotations

from pathlib import Path

from semtui.errors import InputError
from semtui.families import FAMILIES

#: the figure's size in pixels, and its resolution, unless told
WIDTH, HEIGHT, DPI = 1200, 500, 100
FORMATS = ("svg", "png")


def load_cells(path: str | Path) -> tuple[list[dict], str]:
    """The cells of RESULTS.jsonl or of an assessment document's alternatives, and which it was;
    every cell checked to hold what the figures read (one InputError naming the file and line)."""
    from semtui.fileio import parse_json, read_text

    p = Path(path)
    text = read_text(p)
    head = text.lstrip()[:200]
    if head.startswith("{") and '"semtui-assessment/' in text[:400]:
        doc = parse_json(text, p)
        if not isinstance(doc, dict) or not str(doc.get("format", "")).startswith("semtui-assessment/"):
            raise InputError(f"not an assessment document (format {doc.get('format') if isinstance(doc, dict) else None!r})", p)
        cells = doc.get("alternatives") or []
        if not isinstance(cells, list):
            raise InputError(f"'alternatives' must be a list of cells, got {type(cells).__name__}", p)
        if not cells:
            raise InputError("the assessment holds no alternatives (assess with --original, without "
                             "--no-alternatives)", p)
        for i, c in enumerate(cells):
            _check_cell(c, p, None, f"alternatives[{i}]")
        return cells, "assessment"
    from semtui.experiment.run import read_results

    res = read_results(p, missing_ok=False)
    if not res.cells:
        raise InputError("no cell to plot", p)
    for c, line in zip(res.cells, res.numbers):
        _check_cell(c, p, line, "the cell")
    return res.cells, "experiment"


def _number(v) -> bool:
    import math

    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _check_cell(c, path: Path, line: int | None, where: str) -> None:
    """What the figures read of a cell, checked: a malformed document is refused in one line, never
    drawn as something it does not say (or a crash)."""
    def bad(what: str):
        raise InputError(f"{where}: {what}", path, line)

    if not isinstance(c, dict):
        bad(f"must be an object, got {type(c).__name__}")
    for part in ("cell", "privacy", "utility"):
        if c.get(part) is not None and not isinstance(c[part], dict):
            bad(f"'{part}' must be an object, got {type(c[part]).__name__}")
    k = (c.get("cell") or {}).get("k")
    if k is not None and (not isinstance(k, int) or isinstance(k, bool) or k < 1):
        bad(f"cell.k must be a whole number of at least 1, got {k!r}")
    risk = (c.get("privacy") or {}).get("risk")
    if risk is not None and (not _number(risk) or not 0 <= risk <= 1):
        bad(f"privacy.risk must be a share between 0 and 1, got {risk!r}")
    figures = (c.get("privacy") or {}).get("figures")
    if figures is not None and not isinstance(figures, dict):
        bad(f"privacy.figures must be an object, got {type(figures).__name__}")
    for name, v in (figures or {}).items():
        if name in ("precision", "recall", "accuracy") and v is not None and (not _number(v) or not 0 <= v <= 1):
            bad(f"privacy.figures.{name} must be a share between 0 and 1, got {v!r}")
    score = (c.get("utility") or {}).get("score")
    if score is not None and not _number(score):
        bad(f"utility.score must be a number, got {score!r}")
    for name in ("label", "id"):
        if c.get(name) is not None and not isinstance(c[name], str):
            bad(f"'{name}' must be a string, got {type(c[name]).__name__}")


def pareto(points: list[tuple[float, float]]) -> list[int]:
    """The indices of the points no other point dominates (risk no higher and utility no lower,
    one of them strictly), by increasing risk."""
    out = []
    for i, (r, u) in enumerate(points):
        if not any((r2 <= r and u2 >= u and (r2 < r or u2 > u)) for j, (r2, u2) in enumerate(points) if j != i):
            out.append(i)
    return sorted(out, key=lambda i: (points[i][0], -points[i][1]))


def _series_key(cell: dict) -> str:
    c = cell.get("cell") or {}
    rest = [f"{k}={v}" for k, v in c.items() if k not in ("family", "k")]
    return c.get("family", "?") + (" " + " ".join(rest) if rest else "")


def figure(cells: list[dict], *, title: str = "", width: int = WIDTH, height: int = HEIGHT, dpi: int = DPI):
    """The matplotlib Figure with both panels."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise InputError("plots need matplotlib: pip install 'semtui[plot]'") from None
    fig = Figure(figsize=(width / dpi, height / dpi), dpi=dpi, layout="constrained")
    left, right = fig.subplots(1, 2)
    # left: the strongest attack's figures against k
    series: dict[str, list[dict]] = {}
    for c in cells:
        if (c.get("cell") or {}).get("k") is None:
            continue
        series.setdefault(_series_key(c), []).append(c)
    colours = {}
    for n, (key, group) in enumerate(sorted(series.items())):
        group.sort(key=lambda c: c["cell"]["k"])
        colour = f"C{n % 10}"
        colours[key] = colour
        ks = [c["cell"]["k"] for c in group]
        family = FAMILIES.get(group[0]["cell"].get("family")) or FAMILIES["setgen"]
        figs = [(c.get("privacy") or {}).get("figures") or {} for c in group]
        for name, style in zip(family.plotted, ("o-", "s--")):
            left.plot(ks, [f.get(name) for f in figs], style, color=colour, label=f"{key}: {name}")
    from matplotlib.ticker import MaxNLocator

    left.xaxis.set_major_locator(MaxNLocator(integer=True))
    left.set_xlabel("k")
    left.set_ylabel("the strongest attack's figure")
    left.set_ylim(0, 1.02)
    left.set_title("strongest attack against k")
    left.grid(alpha=0.3)
    if series:
        left.legend(fontsize="x-small", loc="best")
    # right: risk against utility, the frontier, the chosen one
    pts, idx = [], []
    for i, c in enumerate(cells):
        r = (c.get("privacy") or {}).get("risk")
        u = (c.get("utility") or {}).get("score")
        if r is not None and u is not None:
            pts.append((float(r), float(u)))
            idx.append(i)
    for (r, u), i in zip(pts, idx):
        c = cells[i]
        colour = colours.get(_series_key(c), "C0")
        marker = "*" if c.get("chosen") else ("D" if c.get("label") == "this release" else "o")
        right.scatter([u], [r], s=160 if c.get("chosen") else 40, marker=marker, color=colour, zorder=3,
                      edgecolors="black" if c.get("chosen") else "none")
        right.annotate(c.get("label", c.get("id", "")), (u, r), fontsize="x-small", xytext=(4, 4),
                       textcoords="offset points")
    front = pareto(pts)
    if front:
        fu = [pts[j][1] for j in front]
        fr = [pts[j][0] for j in front]
        right.plot(fu, fr, "-", color="black", alpha=0.6, label="Pareto frontier", zorder=2)
        right.legend(fontsize="x-small", loc="best")
    right.set_xlabel("utility score (higher keeps more)")
    right.set_ylabel("risk: the strongest attack's take")
    right.set_title("risk against utility")
    right.grid(alpha=0.3)
    if title:
        fig.suptitle(title, fontsize="small")
    return fig


def render(cells: list[dict], fmt: str, *, title: str = "", width: int = WIDTH, height: int = HEIGHT,
           dpi: int = DPI):
    """A function that writes the figure in ``fmt`` (svg or png) to a binary file handle."""
    if fmt not in FORMATS:
        raise InputError(f"unknown figure format {fmt!r} (choose from {', '.join(FORMATS)})")
    fig = figure(cells, title=title, width=width, height=height, dpi=dpi)

    def write(fh) -> None:
        import matplotlib

        # the same figure gives the same bytes (SVG ids from a fixed salt, no date)
        with matplotlib.rc_context({"svg.hashsalt": "semtui"}):
            fig.savefig(fh, format=fmt, dpi=dpi, metadata={"Date": None} if fmt == "svg" else {"Software": None})

    return write
