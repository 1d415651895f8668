"""semtui's own import graph: no circle among its modules, no import from a lower layer to a higher one.

The graph is read from the source with `ast` (nothing is imported), so it sees every import a module can make:
the ones at the top, the ones inside functions and methods (a deferred import is still a dependency), and the
ones under ``if TYPE_CHECKING:``.

TYPE_CHECKING imports count. A type a module names in its annotations is part of what the module knows about:
a lower layer that annotates with a higher layer's type depends on that layer as surely as one that calls it,
and moving an import under ``if TYPE_CHECKING:`` (or into a function) is the usual way to hide a circle rather
than to break it. import-linter's graph (grimp) counts them too, so this test and `lint-imports` agree.

How an import statement becomes edges of the graph:

* ``import semtui.a.b`` -> ``semtui.a.b``; ``from semtui.a import b`` -> ``semtui.a.b`` when that is a module,
  else ``semtui.a`` (b is a name defined in semtui.a); relative imports are resolved against the importer's
  package the way Python does (``from . import x`` in a package's ``__init__`` is relative to that package).
* A package stands for its ``__init__.py``: importing ``semtui.attacks`` is an edge to ``semtui.attacks``, the
  node whose code is ``semtui/attacks/__init__.py``.
* The parent packages Python also runs on the way to a module (``semtui``, ``semtui.a`` for ``semtui.a.b``) are
  not edges: counting them would make every package that re-exports its own submodules a circle with each of
  them, which is how packages are meant to be built.

The layer order is read from the one place it is written: the ``layers`` contract in pyproject.toml's
``[tool.importlinter]`` (which `lint-imports`, run by test_architecture.py, checks with indirect imports too).
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

from conftest import REPO

PACKAGE = REPO / "semtui"

# Circles that remain on purpose, each owned by someone removing it. A circle is a set of modules that import each
# other round (a strongly connected part of the graph), written as its sorted modules. The test fails on a circle
# not listed here, AND on a listed one that no longer exists exactly so (its owner then deletes the entry: the list
# cannot go stale).
# None is left (issue 36): the last, model/belongs <-> model/sidecar, went with semtui/release.py.
ALLOWED_CIRCLES: dict[frozenset[str], str] = {}
#: at most this many of a circle's chains are printed (a large circle has very many)
MAX_CHAINS = 50


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _resolve(importer: str, is_package: bool, level: int, module: str | None) -> str:
    """The absolute name a (possibly relative) ``from`` import names."""
    if level == 0:
        return module or ""
    base = importer.split(".")
    if not is_package:
        base = base[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join(base + ([module] if module else []))


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """The semtui modules `name` imports anywhere in its code (top level, functions, TYPE_CHECKING blocks)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    is_package = path.name == "__init__.py"
    found: set[str] = set()

    def nearest_module(dotted: str) -> str | None:
        # `import semtui.a.b` names a module; an unknown tail (a missing module) falls back to its nearest parent
        while dotted and dotted not in known:
            dotted = dotted.rpartition(".")[0]
        return dotted or None

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "semtui" or alias.name.startswith("semtui."):
                    found.add(nearest_module(alias.name))
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(name, is_package, node.level, node.module)
            if not (base == "semtui" or base.startswith("semtui.")):
                continue
            for alias in node.names:
                candidate = f"{base}.{alias.name}"
                found.add(candidate if candidate in known else nearest_module(base))
    found.discard(None)
    found.discard(name)
    return found


def import_graph() -> dict[str, set[str]]:
    mods = modules()
    known = set(mods)
    return {name: imports_of(name, path, known) for name, path in mods.items()}


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components with more than one module (iterative: no recursion limit)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(sorted(component))
    return components


def chains(graph: dict[str, set[str]], component: list[str], limit: int = MAX_CHAINS) -> list[tuple[str, ...]]:
    """The elementary circles within ``component``, each once, as the chain that starts from its smallest module
    (at most ``limit`` of them)."""
    members = set(component)
    found: list[tuple[str, ...]] = []
    for start in sorted(component):
        # circles whose smallest module is ``start``: walk only through larger modules of the component
        allowed = {m for m in members if m > start}
        path = [start]
        stack = [iter(sorted(graph[start]))]
        while stack and len(found) < limit:
            child = next(stack[-1], None)
            if child is None:
                stack.pop()
                path.pop()
            elif child == start:
                found.append(tuple(path))
            elif child in allowed and child not in path:
                path.append(child)
                stack.append(iter(sorted(graph[child])))
    return sorted(found)


def circles(graph: dict[str, set[str]]) -> dict[frozenset[str], list[tuple[str, ...]]]:
    """Every circle of the graph (a strongly connected part of more than one module) with its chains."""
    return {frozenset(c): chains(graph, c) for c in strongly_connected(graph)}


def chain(cycle: tuple[str, ...]) -> str:
    return " -> ".join(cycle + cycle[:1])


def layers_contract() -> dict:
    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]
    contracts = [c for c in config["contracts"] if c["type"] == "layers"]
    assert len(contracts) == 1, "one layers contract in [tool.importlinter] holds the order"
    return contracts[0]


def layer_order() -> list[tuple[set[str], bool]]:
    """The layers, highest first: each the set of its modules' full names and whether they are independent."""
    contract = layers_contract()
    (container,) = contract["containers"]
    order = []
    for line in contract["layers"]:
        separator = "|" if "|" in line else ":"
        tails = [t.strip().strip("()") for t in line.split(separator)]
        order.append(({f"{container}.{t}" for t in tails}, separator == "|"))
    return order


def layer_of(module: str, order: list[tuple[set[str], bool]]) -> tuple[int, str] | None:
    for rank, (names, _) in enumerate(order):
        for name in names:
            if module == name or module.startswith(name + "."):
                return rank, name
    return None


def test_graph_sees_every_kind_of_import(tmp_path):
    """Imports at the top, in functions, under TYPE_CHECKING, relative ones; a submodule named by ``from``."""
    known = set(import_graph()) | {"semtui.model._probe"}
    assert "semtui.cli.main" in known and "semtui.attacks" in known   # a package is its __init__
    probe = tmp_path / "semtui" / "model" / "_probe.py"
    probe.parent.mkdir(parents=True)
    probe.write_text("from __future__ import annotations\nfrom typing import TYPE_CHECKING\n"
                     "from semtui.model import transactions, TransactionData\nfrom . import disassociated\n"
                     "from .. import errors\nimport semtui.runtime.progress\nimport numpy\n"
                     "if TYPE_CHECKING:\n    from semtui.formats.fimi import read_fimi\n"
                     "def late():\n    from semtui.measures import base\n"
                     "class Later:\n    def method(self):\n        import semtui.metrics.intervals as iv\n")
    assert imports_of("semtui.model._probe", probe, known) == {
        "semtui.model.transactions", "semtui.model", "semtui.model.disassociated", "semtui.errors",
        "semtui.runtime.progress", "semtui.formats.fimi", "semtui.measures.base", "semtui.metrics.intervals"}
    init = tmp_path / "semtui" / "model" / "__init__.py"   # in a package's __init__, "." is the package itself
    init.write_text("from . import hierarchy\nfrom .sidecar import KM_SIDECAR\n")
    assert imports_of("semtui.model", init, known) == {"semtui.model.hierarchy", "semtui.model.sidecar"}


def test_circles_and_layers_are_found_on_a_small_graph():
    graph = {"a": {"b"}, "b": {"c", "a"}, "c": {"a"}, "d": {"d", "e"}, "e": set()}
    assert circles(graph) == {frozenset("abc"): [("a", "b"), ("a", "b", "c")]}
    assert chain(("a", "b", "c")) == "a -> b -> c -> a"
    order = [({"semtui.x"}, False), ({"semtui.y", "semtui.z"}, True), ({"semtui.w"}, False)]
    assert upward_imports({"semtui.w.low": {"semtui.y.mid", "semtui.w"}, "semtui.y": {"semtui.z.q", "semtui.w.low"},
                           "semtui.x": {"semtui.y"}, "semtui": {"semtui.x"}}, order) == [
        "  semtui.w.low (w) -> semtui.y.mid (y)", "  semtui.y (y) -> semtui.z.q (z)"]


def test_no_import_circle():
    graph = import_graph()
    found = circles(graph)
    unexpected = {c: found[c] for c in found if c not in ALLOWED_CIRCLES}
    stale = [c for c in ALLOWED_CIRCLES if c not in found]
    lines = [f"{len(found)} import circle(s) in semtui, {len(unexpected)} not allowed:"]
    for circle, listed in sorted(found.items(), key=lambda kv: sorted(kv[0])):
        lines.append(f"  {'allowed' if circle in ALLOWED_CIRCLES else 'NOT ALLOWED'}: {len(circle)} modules "
                     f"({ALLOWED_CIRCLES.get(circle, 'no owner')})")
        lines += [f"    {chain(c)}" for c in listed]
        if len(listed) == MAX_CHAINS:
            lines.append(f"    (the first {MAX_CHAINS} chains)")
    lines.append(f"{len(stale)} allowlisted circle(s) no longer exist as listed; delete or update their entries:")
    lines += [f"  {sorted(c)} ({ALLOWED_CIRCLES[c]})" for c in stale]
    report = "\n".join(lines)
    print(report)
    assert not unexpected and not stale, report


def test_layers_contract_places_every_top_level_module():
    """Every module and package directly under semtui/ has a place in the order (the contract is exhaustive)."""
    contract = layers_contract()
    assert contract.get("exhaustive") is True and contract["containers"] == ["semtui"]
    top = {name for name in modules() if name.count(".") == 1}
    placed = {name for names, _ in layer_order() for name in names}
    assert top - placed == set(), "add them to the layers contract in pyproject.toml"


def upward_imports(graph: dict[str, set[str]], order: list[tuple[set[str], bool]]) -> list[str]:
    """Imports of a higher layer, or of an independent sibling in the same layer, as readable lines."""
    bad = []
    for importer, imported in sorted((a, b) for a, targets in graph.items() for b in targets):
        here, there = layer_of(importer, order), layer_of(imported, order)
        if here is None or there is None or here[1] == there[1]:
            continue
        if there[0] < here[0] or (there[0] == here[0] and order[here[0]][1]):
            bad.append(f"  {importer} ({here[1].removeprefix('semtui.')}) -> {imported} "
                       f"({there[1].removeprefix('semtui.')})")
    return bad


def test_no_upward_import():
    """No module imports one of a higher layer, nor an independent sibling of its own layer (direct imports;
    lint-imports, run by test_architecture.py, follows the indirect ones too)."""
    bad = upward_imports(import_graph(), layer_order())
    report = f"{len(bad)} upward import(s) in semtui:\n" + "\n".join(bad)
    print(report)
    assert not bad, report
