"""No import cycles in referee/ or arena/, read statically from the source.

Every import statement counts, wherever it is: inside a function and under
``TYPE_CHECKING`` too. Such an import hides a cycle from Python's import machinery but
not from the design: the two modules still depend on each other, so neither can be read,
tested or moved without the other (issue 19 found ``golf_solitaire/solver.py`` <->
``deals.py`` hidden by an import inside a function). The fix is a module below both,
or a Protocol where one side only needs an interface.

Not counted: the implicit import of a package's ``__init__`` when one of its submodules
is imported. A package that re-exports its submodules is their facade, not something
they depend on; a submodule that imports from its own package explicitly is counted.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import ROOT

PACKAGES = ("referee", "arena")


@dataclass(frozen=True)
class ImportEdge:
    source: str
    target: str
    where: str  # path:line of the import statement


def module_files(root: Path, packages: Iterable[str]) -> dict[str, Path]:
    """Dotted module name -> file, for every .py under the packages."""
    modules: dict[str, Path] = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join(parts)] = path
    return modules


def _imported_names(module: str, is_package: bool, node: ast.Import | ast.ImportFrom) -> list[str]:
    """The dotted names an import statement may refer to, most specific first."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:
        anchor = module.split(".") if is_package else module.split(".")[:-1]
        anchor = anchor[: len(anchor) - (node.level - 1)]
        base = ".".join([*anchor, base] if base else anchor)
    # `from package import name` imports the submodule package.name if there is one.
    return [f"{base}.{alias.name}" for alias in node.names] + [base]


def import_edges(root: Path, packages: Iterable[str]) -> list[ImportEdge]:
    """Every import from one module of the packages to another, wherever it stands."""
    modules = module_files(root, packages)
    edges: list[ImportEdge] = []
    for module, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            names = _imported_names(module, path.name == "__init__.py", node)
            if isinstance(node, ast.ImportFrom):
                *members, base = names
                targets = [m if m in modules else base for m in members]
            else:
                targets = names
            for target in targets:
                while target and target not in modules:  # `import a.b.c` of a name in a.b
                    target = target.rpartition(".")[0]
                if target and target != module:
                    where = f"{path.relative_to(root)}:{node.lineno}"
                    edges.append(ImportEdge(module, target, where))
    return edges


def cycles(edges: Iterable[ImportEdge]) -> list[list[ImportEdge]]:
    """One concrete cycle (as the edges that close it) per strongly connected component of
    more than one module."""
    graph: dict[str, dict[str, ImportEdge]] = {}
    for edge in edges:
        graph.setdefault(edge.source, {}).setdefault(edge.target, edge)
        graph.setdefault(edge.target, {})
    # Tarjan's algorithm, iterative (the graph is a few hundred modules; no recursion limit).
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work: list[tuple[str, Iterable[str]]] = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            advanced = False
            for succ in successors:
                if succ not in index:
                    index[succ] = low[succ] = len(index)
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(sorted(graph[succ]))))
                    advanced = True
                    break
                if succ in on_stack:
                    low[node] = min(low[node], index[succ])
            if advanced:
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
    return [_cycle_in(graph, set(c), c[0]) for c in components]


def _cycle_in(
    graph: dict[str, dict[str, ImportEdge]], members: set[str], start: str
) -> list[ImportEdge]:
    """The shortest path from ``start`` back to itself inside one component (breadth first)."""
    previous: dict[str, ImportEdge] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for succ, edge in sorted(graph[node].items()):
                if succ not in members or succ in previous:
                    continue
                previous[succ] = edge
                if succ == start:
                    path = [edge]
                    while path[0].source != start:
                        path.insert(0, previous[path[0].source])
                    return path
                following.append(succ)
        frontier = following
    raise AssertionError(f"{start} is in a component without a cycle")


def describe(cycle: list[ImportEdge]) -> str:
    names = " -> ".join([cycle[0].source, *(e.target for e in cycle)])
    return f"{names} ({', '.join(e.where for e in cycle)})"


def test_no_import_cycles_in_referee_or_arena() -> None:
    found = cycles(import_edges(ROOT, PACKAGES))
    assert not found, "import cycles:\n" + "\n".join(describe(c) for c in found)


def test_the_check_finds_cycles_hidden_in_functions_and_type_checking(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("from .a import A\n")
    (package / "a.py").write_text("def f():\n    from .b import B  # hidden in a function\n")
    (package / "b.py").write_text("import pkg.c\nB = 1\n")
    (package / "c.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import a\n"
    )
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "d.py").write_text("from .. import sub\nfrom ..a import f\n")
    found = cycles(import_edges(tmp_path, ["pkg"]))
    assert [describe(c) for c in found] == [
        "pkg.a -> pkg.b -> pkg.c -> pkg.a (pkg/a.py:2, pkg/b.py:1, pkg/c.py:3)"
    ]
    # The package facade importing its submodule is no cycle; an explicit import back is.
    (package / "a.py").write_text("from pkg import A\n")
    found = cycles(import_edges(tmp_path, ["pkg"]))
    assert [describe(c) for c in found] == ["pkg -> pkg.a -> pkg (pkg/__init__.py:1, pkg/a.py:1)"]
