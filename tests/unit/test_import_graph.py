"""The package's import graph: no cycles, and every import points down the layers.

Read from the source with ``ast`` (nothing is imported), so a cycle hidden in
a function body or behind ``TYPE_CHECKING`` counts like any other import.
The layers, lowest first, are the pipeline's order; docs/architecture.md
explains them.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "ontoretrieve"

LAYERS: tuple[tuple[str, ...], ...] = (
    ("errors", "records", "faults", "collector", "kept"),
    ("rdf",),
    ("settings",),
    ("backends",),
    ("catalog",),
    ("index",),
    ("query",),
    ("context",),
    ("proposals",),
    ("engine",),
    ("bench",),
    ("server", "integrations"),
    ("cli",),
    ("", "__main__"),  # the curated API in ontoretrieve/__init__.py, and python -m
)
"""A module may import its own layer's modules and those of lower layers only."""


def module_names() -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its own name)."""
    names: dict[str, Path] = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names[".".join(parts)] = path
    return names


def imports_of(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The package's modules that ``name`` imports, anywhere in its source."""
    found: set[str] = set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1]
                                + ([base] if base else []))
            # ``from pkg import module`` depends on the module, not on pkg's __init__
            submodules = {f"{base}.{alias.name}" for alias in node.names} & modules.keys()
            found.update(submodules or {base})
    return {target for target in found if target in modules and target != name}


def import_graph() -> dict[str, set[str]]:
    modules = module_names()
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def layer_of(module: str) -> int:
    inner = module.removeprefix("ontoretrieve").removeprefix(".")
    top = inner.split(".")[0]
    for rank, names in enumerate(LAYERS):
        if top in names:
            return rank
    raise AssertionError(f"{module} is in no layer: add its package to LAYERS")


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm: the cycles of the graph as sets of two or more modules."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_tarjan_helper_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert strongly_connected(graph) == [["a", "b", "c"]]


def test_the_package_has_no_import_cycle() -> None:
    assert strongly_connected(import_graph()) == []


def test_every_import_points_down_the_layers() -> None:
    upward = [f"{source} imports {target}"
              for source, targets in sorted(import_graph().items())
              for target in sorted(targets)
              if layer_of(target) > layer_of(source)]
    assert upward == []


def test_a_from_import_of_a_module_is_an_edge_to_that_module() -> None:
    graph = import_graph()
    assert "ontoretrieve.rdf.sparql" in graph["ontoretrieve.backends.oxigraph"]
    assert "ontoretrieve" not in graph["ontoretrieve.backends.oxigraph"]
