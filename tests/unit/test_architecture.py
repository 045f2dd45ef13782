"""The layering, computed from the code: the doors import only the service, modules stay small, and every
third-party module the package imports is a declared dependency (and none is a private module of the SDK)."""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "mcp_gateway"
PYPROJECT = PACKAGE.parent / "pyproject.toml"
MAX_MODULE_LINES = 600
"""A smell detector, not a rule to split by: a module grows past it only when it holds more than one concept."""
BEHIND_THE_SERVICE = ("mcp_gateway.downstream", "mcp_gateway.catalog")


def modules() -> list[Path]:
    return sorted(path for path in PACKAGE.rglob("*.py") if "__pycache__" not in path.parts)


def imported_names(path: Path) -> set[str]:
    """Every module `path` imports, at any depth of its code (lazy imports inside functions included)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def imports_of(package: str) -> dict[str, set[str]]:
    return {str(path.relative_to(PACKAGE.parent)): imported_names(path) for path in (PACKAGE / package).rglob("*.py")}


@pytest.mark.parametrize(("door", "other"), [("cli", "mcp_gateway.server"), ("server", "mcp_gateway.cli")])
def test_a_door_imports_neither_what_stands_behind_the_service_nor_the_other_door(door: str, other: str) -> None:
    forbidden = (*BEHIND_THE_SERVICE, other)
    crossing = {
        module: sorted(name for name in names if name.startswith(forbidden))
        for module, names in imports_of(door).items()
    }
    assert {module: names for module, names in crossing.items() if names} == {}


def test_no_module_of_the_package_is_over_600_lines() -> None:
    long = {
        str(path.relative_to(PACKAGE.parent)): n
        for path in modules()
        if (n := len(path.read_text().splitlines())) > MAX_MODULE_LINES
    }
    assert long == {}


def declared_distributions() -> set[str]:
    """The runtime dependencies and the optional extras a user may install (not the test tools)."""
    project = tomllib.loads(PYPROJECT.read_text())["project"]
    extras = [
        requirement
        for name, group in project["optional-dependencies"].items()
        if name != "test"
        for requirement in group
    ]
    return {
        _canonical(re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0])
        for requirement in [*project["dependencies"], *extras]
    }


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def test_every_third_party_module_the_package_imports_is_a_declared_dependency() -> None:
    providers = importlib.metadata.packages_distributions()
    roots = {name.split(".")[0] for path in modules() for name in imported_names(path)}
    third_party = {root for root in roots if root != "mcp_gateway" and root not in sys.stdlib_module_names}
    undeclared = {
        root: providers.get(root, ["?"])
        for root in third_party
        if not {_canonical(distribution) for distribution in providers.get(root, [])} & declared_distributions()
    }
    assert undeclared == {}


def test_no_private_module_of_the_sdk_is_imported() -> None:
    private = {
        str(path.relative_to(PACKAGE.parent)): sorted(
            name
            for name in imported_names(path)
            if name.split(".")[0] in ("mcp", "mcp_types")
            and any(part.startswith("_") for part in name.split(".")[1:-1])
        )
        for path in modules()
    }
    assert {module: names for module, names in private.items() if names} == {}


FRONT_MAY_IMPORT = ("mcp_gateway.front", "mcp_gateway.paths", "mcp_gateway.line_bounds")
"""Besides the standard library: the front's own package, the workspace's location (`paths`: the standard
library and `platformdirs`), computed by the very code the daemon uses so both read the same config, and the
bound on a client's line with the error a longer one gets (`line_bounds`: the standard library), which the
front and the daemon both give."""


def test_the_session_front_imports_only_the_standard_library_and_its_own_package() -> None:
    """A client's `mcp-gateway` with the daemon running imports `front` only: no SDK, no pydantic, no anyio."""
    outside = {
        module: sorted(
            name
            for name in names
            if name.split(".")[0] not in sys.stdlib_module_names
            and name not in ("mcp_gateway", "mcp_gateway.__version__")
            and not name.startswith(FRONT_MAY_IMPORT)
        )
        for module, names in imports_of("front").items()
    }
    assert {module: names for module, names in outside.items() if names} == {}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """Each module of the package → the modules of the package it imports, lazy and type-checking imports
    included (a cycle through them is still one for a reader). `from package import name` imports the module
    `package.name` when there is one, else `package` itself."""
    known = {module_name(path): path for path in modules()}

    def owner(name: str) -> str:
        while name and name not in known:
            name = name.rpartition(".")[0]
        return name

    graph: dict[str, set[str]] = {}
    for name, path in known.items():
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                targets.update(owner(alias.name) for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets.update(owner(f"{node.module}.{alias.name}") for alias in node.names)
        graph[name] = targets - {"", name}
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm), each sorted."""
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(node: str) -> None:
        order[node] = low[node] = len(order)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in order:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], order[target])
        if low[node] == order[node]:
            component: list[str] = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for node in sorted(graph):
        if node not in order:
            visit(node)
    return sorted(cycles)


KNOWN_IMPORT_CYCLES: list[set[str]] = []
"""Cycles found when this test was written, left to the work that owns those packages: this list only shrinks."""


def test_no_import_cycle_beyond_the_known_ones() -> None:
    """Computed from the code: modules that import each other, directly or round a circle, are one concept split
    in two or a layer reaching up. A known cycle may shrink or go; no other may appear."""
    new = [
        cycle
        for cycle in import_cycles(import_graph())
        if not any(set(cycle) <= known for known in KNOWN_IMPORT_CYCLES)
    ]
    assert new == []


FACED_PACKAGES = (
    "mcp_gateway.audit",
    "mcp_gateway.policy",
    "mcp_gateway.search",
    "mcp_gateway.catalog",
    "mcp_gateway.config",
    "mcp_gateway.daemon",
    "mcp_gateway.server",
    "mcp_gateway.sign_in",
    "mcp_gateway.importing",
    "mcp_gateway.importing.clients",
    "mcp_gateway.questions",
    "mcp_gateway.service.offerings",
)
"""Packages with a face: `__init__` says what the package is and `__all__` names what the rest of the gateway
imports from it (and what its tests and the benchmarks reach through it, nothing else), and nothing outside imports
its modules."""
TESTS = PACKAGE.parent / "tests"


def names_imported_from(package: str, paths: list[Path]) -> set[str]:
    return {
        alias.name
        for path in paths
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.ImportFrom) and node.module == package
        for alias in node.names
    }


@pytest.mark.parametrize("package", FACED_PACKAGES)
def test_the_rest_of_the_gateway_imports_a_faced_package_through_its_face_only(package: str) -> None:
    face = PACKAGE.parent / package.replace(".", "/") / "__init__.py"
    tree = ast.parse(face.read_text())
    exported = next(
        {ast.literal_eval(element) for element in node.value.elts}
        for node in tree.body
        if isinstance(node, ast.Assign)
        and isinstance(node.value, ast.List)
        and any(isinstance(target, ast.Name) and target.id == "__all__" for target in node.targets)
    )
    assert ast.get_docstring(tree)
    imported: set[str] = set()
    through_modules: set[str] = set()
    for path in modules():
        if module_name(path) == package or module_name(path).startswith(f"{package}."):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module == package:
                imported.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith(f"{package}."):
                through_modules.add(f"{module_name(path)} → {node.module}")
            elif isinstance(node, ast.Import):
                through_modules.update(
                    f"{module_name(path)} → {alias.name}"
                    for alias in node.names
                    if alias.name.startswith(f"{package}.")
                )
    assert through_modules == set()
    assert imported <= exported, "imported from the face but not named in __all__"
    users = [*TESTS.rglob("*.py"), *(PACKAGE.parent / "benchmarks").rglob("*.py")]
    tested = names_imported_from(package, [path for path in users if "node_modules" not in path.parts])
    assert exported <= imported | tested, "named in __all__ but used by nothing outside the package"


def test_sign_in_sits_below_the_service_and_downstream_and_is_reached_only_through_its_face() -> None:
    above = ("mcp_gateway.service", "mcp_gateway.downstream", "mcp_gateway.server", "mcp_gateway.cli")
    reaching_up = {
        module: sorted(name for name in names if name.startswith(above))
        for module, names in imports_of("sign_in").items()
    }
    assert {module: names for module, names in reaching_up.items() if names} == {}
    inner = {f"mcp_gateway.sign_in.{path.stem}" for path in (PACKAGE / "sign_in").glob("*.py")}
    reaching_in = {
        str(path.relative_to(PACKAGE.parent)): sorted(inner & imported_names(path))
        for path in modules()
        if path.relative_to(PACKAGE).parts[0] != "sign_in"
    }
    assert {module: names for module, names in reaching_in.items() if names} == {}


def test_questions_sit_below_the_service_and_downstream() -> None:
    """Both `downstream` (who answers a question on a connection) and the doors (the relay) use them."""
    above = ("mcp_gateway.service", "mcp_gateway.downstream", "mcp_gateway.server", "mcp_gateway.cli")
    reaching_up = {
        module: sorted(name for name in names if name.startswith(above))
        for module, names in imports_of("questions").items()
    }
    assert {module: names for module, names in reaching_up.items() if names} == {}
