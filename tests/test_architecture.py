"""The import boundaries of ``docs/architecture.md``, read from the doc and checked on the source.

Every module of every declared package is parsed (not imported); every ``import`` counts,
those inside functions included. The rows of the doc's table are the rules, so the doc and the
code cannot drift; a few rules are also written here by hand, as the guard of last resort.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from support.modules import ROOT, product_modules

DOC = ROOT / "docs" / "architecture.md"
MODULES = product_modules()
PURE = ("mesa.core", "mesa.engine", "mesa.games", "mesa.tournament", "mesa.events", "mesa.protocol",
        "mesa.errors", "mesa.validation", "mesa.metrics")


@dataclass(frozen=True)
class Import:
    source: str  # the importing module
    target: str  # the imported module (``from a import b`` is ``a.b`` when that is a module)
    line: int
    top_level: bool  # runs when the module is imported (not in a function, not TYPE_CHECKING)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _resolve(module: str, path: Path, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    parts = package.split(".")
    base = parts[: len(parts) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def _walk(module: str, path: Path, body: list[ast.stmt], top: bool) -> list[Import]:
    found: list[Import] = []
    for node in body:
        if isinstance(node, ast.Import):
            found += [Import(module, a.name, node.lineno, top) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(module, path, node)
            for a in node.names:
                full = f"{base}.{a.name}"
                found.append(Import(module, full if full in MODULES else base, node.lineno, top))
        elif isinstance(node, ast.If) and _is_type_checking(node.test):
            found += _walk(module, path, node.body, False) + _walk(module, path, node.orelse, top)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found += _walk(module, path, _children(node), False)
        else:
            found += _walk(module, path, _children(node), top)
    return found


def _children(node: ast.AST) -> list[ast.stmt]:
    """Every statement nested directly in ``node`` (bodies, handlers, match cases, …)."""
    out: list[ast.stmt] = []
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.stmt):
            out.append(child)
        elif not isinstance(child, ast.expr):  # excepthandler, match_case, …
            out += _children(child)
    return out


def mesa_imports() -> list[Import]:
    """Every import of a ``mesa`` module by a product module."""
    out: list[Import] = []
    for name, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        out += [i for i in _walk(name, path, tree.body, True)
                if i.target == "mesa" or i.target.startswith("mesa.")]
    return out


IMPORTS = mesa_imports()


def allowed_imports() -> dict[str, set[str]]:
    """The doc's table: row → the rows it may import."""
    text = DOC.read_text(encoding="utf-8")
    section = text.split("## What may import what", 1)[1].split("\n## ", 1)[0]
    rules: dict[str, set[str]] = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 2 or not cells[0].startswith("`"):
            continue
        (row,) = re.findall(r"`([\w.]+)`", cells[0])
        assert row not in rules, f"{row} has two rows in docs/architecture.md"
        rules[row] = set(re.findall(r"`(mesa(?:\.\w+)*)`", cells[1]))
    return rules


RULES = allowed_imports()


def row_of(module: str) -> str:
    """The rule that governs ``module``: the longest row name that is a prefix of it."""
    rows = [r for r in RULES if module == r or module.startswith(r + ".")]
    assert rows, f"{module} is in no row of docs/architecture.md"
    return max(rows, key=len)


def where(i: Import) -> str:
    return f"{MODULES[i.source].relative_to(ROOT)}:{i.line} imports {i.target}"


# ── the rules of the brief, written out ────────────────────────────────────────────────────


def test_the_controller_never_imports_the_hub() -> None:
    bad = [where(i) for i in IMPORTS if i.source.startswith("mesa.controller")
           and i.target.startswith("mesa.hub")]
    assert bad == []


def test_the_pure_packages_import_neither_controller_nor_hub() -> None:
    bad = [where(i) for i in IMPORTS if i.source.startswith(PURE)
           and i.target.startswith(("mesa.controller", "mesa.hub"))]
    assert bad == []


# ── the doc's table ────────────────────────────────────────────────────────────────────────


def test_the_doc_table_is_well_formed() -> None:
    assert len(RULES) > 10, "docs/architecture.md lost its table of allowed imports"
    for row, allowed in RULES.items():
        assert row in MODULES, f"docs/architecture.md names {row}, which is no module"
        assert allowed <= set(RULES), f"{row} may import {allowed - set(RULES)}: no such row"
        assert row not in allowed


def test_every_module_has_a_row_of_its_own() -> None:
    """Only ``mesa/__init__.py`` falls under the ``mesa`` row: a new package needs its row."""
    loose = [m for m in MODULES if row_of(m) == "mesa" and m != "mesa"]
    assert loose == []


@pytest.mark.parametrize("row", sorted(RULES))
def test_imports_follow_the_doc(row: str) -> None:
    bad = [where(i) for i in IMPORTS if row_of(i.source) == row
           and row_of(i.target) != row and row_of(i.target) not in RULES[row]]
    assert bad == [], f"not allowed by docs/architecture.md's row for {row}"


def test_the_checker_sees_imports_inside_functions() -> None:
    """``mesa.games.cli`` imports ``mesa.docgen`` only when ``mesa docs`` runs."""
    docgen = [i for i in IMPORTS if i.source == "mesa.games.cli" and i.target == "mesa.docgen"]
    assert docgen and not any(i.top_level for i in docgen)


# ── no cycles at import time ───────────────────────────────────────────────────────────────


def import_time_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for i in IMPORTS:
        if i.top_level and i.target in MODULES and i.target != i.source:
            graph[i.source].add(i.target)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` as a path that ends where it starts, or None.

    >>> find_cycle({"a": {"b"}, "b": {"a"}})
    ['a', 'b', 'a']
    >>> find_cycle({"a": {"b"}, "b": set()}) is None
    True
    """
    done: set[str] = set()
    for start in sorted(graph):
        if start in done:
            continue
        path: list[str] = []
        on_path: set[str] = set()
        stack: list[tuple[str, list[str]]] = [(start, sorted(graph[start]))]
        path.append(start)
        on_path.add(start)
        while stack:
            node, todo = stack[-1]
            if not todo:
                stack.pop()
                path.pop()
                on_path.discard(node)
                done.add(node)
                continue
            nxt = todo.pop(0)
            if nxt in on_path:
                return [*path[path.index(nxt):], nxt]
            if nxt not in done:
                stack.append((nxt, sorted(graph.get(nxt, ()))))
                path.append(nxt)
                on_path.add(nxt)
    return None


def test_no_import_cycles_at_import_time() -> None:
    assert find_cycle(import_time_graph()) is None


def test_the_cycle_finder_finds_a_cycle_in_the_real_graph_with_one_edge_added() -> None:
    graph = import_time_graph()
    graph["mesa.errors"].add("mesa.games.backgammon.machine")  # machine imports errors at the top
    cycle = find_cycle(graph)
    assert cycle is not None and "mesa.errors" in cycle and "mesa.games.backgammon.machine" in cycle


# ── the desk and the web see the hub through its ports ─────────────────────────────────────

# The ports: the ingest's (what the web uses) and the desk's own (what the desk uses; the
# desk never imports the ingest, and the real hub satisfies both, checked by mypy).
PORTS = ("mesa.hub.ingest.ports", "mesa.hub.desk.ports")
PACKAGES_OF_PORTS = tuple(p.rpartition(".")[0] for p in PORTS)
THROUGH_PORTS = ("mesa.hub.desk", "mesa.hub.web")


def _port_names(tree: ast.Module) -> tuple[set[str], set[str]]:
    """The names a module imported from the ports module, and its aliases for that module."""
    names: set[str] = set()
    modules: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module in PORTS:
            names |= {a.asname or a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module in PACKAGES_OF_PORTS:
            modules |= {a.asname or a.name for a in node.names if a.name == "ports"}
        elif isinstance(node, ast.Import):
            modules |= {a.asname for a in node.names if a.name in PORTS and a.asname}
    return names, modules


def _names_a_port(annotation: ast.expr | None, names: set[str], modules: set[str]) -> bool:
    """Whether ``annotation`` names a port (``HubPort``, ``ports.HubReads | None``, …) and
    nothing that would let anything through (``Any``, ``object``)."""
    if annotation is None:
        return False
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        annotation = ast.parse(annotation.value, mode="eval").body  # a quoted annotation
    found = False
    for node in ast.walk(annotation):
        if isinstance(node, ast.Name) and node.id in ("Any", "object"):
            return False
        if isinstance(node, ast.Attribute) and node.attr == "Any":
            return False
        if isinstance(node, ast.Name) and node.id in names:
            found = True
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id in modules):
            found = True
    return found


def untyped_hubs(source: str, filename: str = "<source>") -> list[str]:
    """Every parameter, attribute or field named ``hub`` in ``source`` whose annotation does
    not name a port of :data:`PORTS` (an ``Any``, the concrete class, or none at all).

    >>> untyped_hubs("from typing import Any\\ndef f(hub: Any = None): ...")
    ['<source>:2 hub: Any']
    >>> untyped_hubs("from mesa.hub.ingest.ports import HubPort\\n"
    ...              "class A:\\n    hub: HubPort | None\\n    def f(self, hub: HubPort): ...")
    []
    """
    tree = ast.parse(source, filename)
    names, modules = _port_names(tree)
    bad: list[str] = []

    def check(annotation: ast.expr | None, line: int) -> None:
        if not _names_a_port(annotation, names, modules):
            shown = "(none)" if annotation is None else ast.unparse(annotation)
            bad.append(f"{filename}:{line} hub: {shown}")

    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            a = node.args
            for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs]:
                if arg.arg == "hub":
                    check(arg.annotation, arg.lineno)
        elif isinstance(node, ast.AnnAssign):
            target = node.target
            if (isinstance(target, ast.Name) and target.id == "hub") or (
                    isinstance(target, ast.Attribute) and target.attr == "hub"):
                check(node.annotation, node.lineno)
    return bad


@pytest.mark.parametrize(
    "package",
    [
        "mesa.hub.web",
        "mesa.hub.desk",
    ],
)
def test_the_desk_and_the_web_take_the_hub_through_its_ports(package: str) -> None:
    """``hub: Any`` hides what the desk and the web use of the hub; a port says it, and mypy
    then checks both sides. Every parameter, attribute and field named ``hub`` must be typed
    with a port of :data:`PORTS` (optional is fine)."""
    bad = [
        hit
        for name, path in MODULES.items()
        if name == package or name.startswith(package + ".")
        for hit in untyped_hubs(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    ]
    assert bad == []


def test_the_desk_and_the_web_never_import_the_concrete_hub() -> None:
    """The running ``Hub`` (``mesa.hub.ingest.app``) is built by the process, the demo and the
    command line, and handed over; the desk and the web know only its ports."""
    bad = [where(i) for i in IMPORTS if i.source.startswith(THROUGH_PORTS)
           and i.target == "mesa.hub.ingest.app"]
    assert bad == []


def test_the_port_checker_sees_any_the_concrete_hub_and_no_annotation() -> None:
    head = "from typing import Any\nfrom mesa.hub.ingest import ports\n" \
           "from mesa.hub.ingest.ports import HubPort\nfrom mesa.hub.ingest.app import Hub\n"
    assert untyped_hubs(head + "def f(hub: Any = None): ...") == ["<source>:5 hub: Any"]
    assert untyped_hubs(head + "def f(*, hub: 'Hub'): ...") == ["<source>:5 hub: 'Hub'"]
    assert untyped_hubs(head + "f = lambda hub: hub") == ["<source>:5 hub: (none)"]
    assert untyped_hubs(head + "class A:\n    def __init__(self, h: Any):\n"
                               "        self.hub: Any = h") == ["<source>:7 hub: Any"]
    assert untyped_hubs(head + "class S:\n    hub: HubPort | None = None\n"
                               "def f(hub: ports.HubReads, web: Any): ...") == []
    assert untyped_hubs(head + "def f(hub: HubPort | Any): ...") == ["<source>:5 hub: HubPort | Any"]
