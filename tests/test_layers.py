"""The layers of the project, read from the imports of every module: who may import whom, and no circles.

From the bottom: the game model (search/board), the evaluation (eval), the searchers (search),
the UCI front (uci_engine); beside them the tournament runner (tournaments), which drives engines
as processes and so imports none of them; above everything the lab (tools), which no layer imports.
Python modules are read with `ast`, every import counted (inside functions and TYPE_CHECKING
blocks too: a lazy import is still a dependency); Cython modules (.pyx, .pxd) by their
`import`/`cimport` lines.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import REPO_ROOT

# Each layer and the project packages it may import besides itself.
LAYERS = ("search.board", "eval", "search", "uci_engine", "tournaments", "tools")
ALLOWED = {
    "search.board": set(),
    "eval": {"search.board"},
    "search": {"search.board", "eval"},
    "uci_engine": {"search.board", "eval", "search"},
    "tournaments": set(),
    "tools": {"search.board", "eval", "search", "uci_engine", "tournaments"},
}
# Pure-Python modules of the engine's packages that the tournament runner may import too, so that a
# number both use is written once; each imports nothing of the project, and neither does its package.
SHARED_WITH_TOURNAMENTS = {"search.scores"}
SOURCE_SUFFIXES = (".py", ".pyi", ".pyx", ".pxd")
CYTHON_FROM = re.compile(r"^[ \t]*from[ \t]+([\w.]+)[ \t]+c?import[ \t]+(\([^)]*\)|[^\n]*)", re.MULTILINE)
CYTHON_IMPORT = re.compile(r"^[ \t]*c?import[ \t]+([\w.]+(?:[ \t]*,[ \t]*[\w.]+)*)", re.MULTILINE)


def module_name(path: Path) -> str:
    """`search/board/position.pyx` -> `search.board.position`; a package's __init__ is the package."""
    parts = list(path.relative_to(REPO_ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def project_sources() -> dict[str, list[Path]]:
    """Every module of the layers, by name (a .pyx, its .pxd and .pyi are one module)."""
    modules: dict[str, list[Path]] = {}
    for package in ("search", "eval", "uci_engine", "tournaments", "tools"):
        for path in sorted((REPO_ROOT / package).rglob("*")):
            if path.suffix in SOURCE_SUFFIXES and path.is_file():
                modules.setdefault(module_name(path), []).append(path)
    return modules


MODULES = project_sources()


def layer_of(module: str) -> str | None:
    """The layer a module belongs to (the longest matching package), None outside the project."""
    matches = [layer for layer in LAYERS if module == layer or module.startswith(layer + ".")]
    return max(matches, key=len) if matches else None


def imported_names(path: Path) -> Iterator[tuple[str, list[str]]]:
    """(module, names imported from it) for each import statement of one source file."""
    text = path.read_text()
    if path.suffix in (".py", ".pyi"):
        package = module_name(path) if path.stem == "__init__" else module_name(path).rpartition(".")[0]
        for node in ast.walk(ast.parse(text, str(path))):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    yield alias.name, []
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[:len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, *([base] if base else [])])
                yield base, [alias.name for alias in node.names]
        return
    for found in CYTHON_FROM.finditer(text):
        names = re.sub(r"\bas\s+\w+", "", re.sub(r"#[^\n]*", "", found.group(2)))  # no aliases, no comments
        yield found.group(1), re.findall(r"\w+", names)
    for found in CYTHON_IMPORT.finditer(text):
        for name in found.group(1).split(","):
            yield name.strip(), []


def project_imports(path: Path) -> set[str]:
    """The project modules that one file imports: `from search import limits` counts as search.limits."""
    targets: set[str] = set()
    for base, names in imported_names(path):
        if layer_of(base) is None:
            continue
        submodules = {f"{base}.{name}" for name in names if f"{base}.{name}" in MODULES}
        targets |= submodules or {base}
        if submodules and len(submodules) < len(names):
            targets.add(base)  # names defined in the package itself, beside the submodules
    return targets


IMPORTS = {name: set().union(*(project_imports(p) for p in paths)) - {name} for name, paths in MODULES.items()}


def test_the_sources_are_found() -> None:
    for expected in ("search.board.position", "eval.evaluate", "search.alphabeta_searcher", "uci_engine.protocol",
                     "tournaments.stats", "tools.spsa"):
        assert expected in MODULES, expected
    assert {"search.board.board", "eval.weights"} <= IMPORTS["eval.evaluate"]  # a cimport, a Cython import
    assert "tournaments.stats" in IMPORTS["tools.paired"]


@pytest.mark.parametrize("layer", LAYERS)
def test_each_layer_imports_only_the_layers_below_it(layer: str) -> None:
    shared = SHARED_WITH_TOURNAMENTS if layer == "tournaments" else set()
    wrong = sorted(f"{module} imports {target}" for module, targets in IMPORTS.items() if layer_of(module) == layer
                   for target in targets - shared if layer_of(target) not in ALLOWED[layer] | {layer})
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("module", sorted(SHARED_WITH_TOURNAMENTS))
def test_what_the_runner_shares_with_the_engine_is_pure_python_importing_nothing(module: str) -> None:
    package = module.rpartition(".")[0]
    assert [path.suffix for path in MODULES[module]] == [".py"]
    assert IMPORTS[module] == set() and IMPORTS[package] == set()


def test_no_layer_imports_the_lab() -> None:
    wrong = sorted(f"{module} imports {target}" for module, targets in IMPORTS.items() if layer_of(module) != "tools"
                   for target in targets if layer_of(target) == "tools")
    assert not wrong, "\n".join(wrong)


def test_no_import_circles() -> None:
    """No module reaches itself through the imports of others (lazy imports included)."""
    circles: list[list[str]] = []
    state: dict[str, int] = {}   # 1: on the current path, 2: finished
    path: list[str] = []

    def visit(module: str) -> None:
        state[module] = 1
        path.append(module)
        for target in sorted(IMPORTS.get(module, ())):
            if state.get(target) == 1:
                circles.append([*path[path.index(target):], target])
            elif target in IMPORTS and target not in state:
                visit(target)
        path.pop()
        state[module] = 2

    for module in sorted(IMPORTS):
        if module not in state:
            visit(module)
    assert not circles, "\n".join(" -> ".join(circle) for circle in circles)
