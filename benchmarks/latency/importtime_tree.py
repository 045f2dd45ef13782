"""Reading `python -X importtime` output: its lines as a tree of imports, and each import's time charged to
the package that caused it, or to the part of the start-up that did (the interpreter, the SDK, the gateway).

`-X importtime` prints a line when an import completes, so children come before their parent, each one
level deeper; the self times of all lines add up to the total. Pure logic: no process is started here.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

IMPORT_LINE = re.compile(r"^import time:\s+(\d+) \|\s+(\d+) \| ( *)(\S+)\s*$")
INTERPRETER = "interpreter start-up (site, runpy)"
INTERPRETER_ROOTS = frozenset({"site", "encodings"})
"""Imports under these happen before any code of ours runs (.pth files, editable-install finders)."""
SDK_PACKAGES = frozenset({"mcp", "mcp_types"})
GATEWAY_PACKAGE = "mcp_gateway"


@dataclass(frozen=True)
class Imported:
    """One line of `-X importtime`: printed when the import completed, children before their parent."""

    name: str
    self_us: int
    cumulative_us: int
    depth: int


@dataclass(frozen=True)
class ImportTree:
    nodes: tuple[Imported, ...]
    parents: tuple[int | None, ...]

    def ancestry(self, index: int) -> Iterator[int]:
        """`index`, then its parent, up to the top-level import."""
        current: int | None = index
        while current is not None:
            yield current
            current = self.parents[current]


def parse_importtime(lines: Sequence[str]) -> list[Imported]:
    nodes: list[Imported] = []
    for line in lines:
        match = IMPORT_LINE.match(line)
        if match:
            self_us, cumulative_us, indent, name = match.groups()
            nodes.append(Imported(name, int(self_us), int(cumulative_us), len(indent) // 2))
    return nodes


def import_tree(nodes: Sequence[Imported]) -> ImportTree:
    parents: list[int | None] = [None] * len(nodes)
    pending: dict[int, list[int]] = {}
    for index, node in enumerate(nodes):
        for child in pending.pop(node.depth + 1, []):
            parents[child] = index
        pending.setdefault(node.depth, []).append(index)
    return ImportTree(tuple(nodes), tuple(parents))


def package_of(module: str) -> str:
    """The unit a cost is charged to: the top-level package, or the subpackage inside the gateway."""
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == GATEWAY_PACKAGE and len(parts) > 1 else parts[0]


def is_stdlib(package: str) -> bool:
    return package.split(".", maxsplit=1)[0] in sys.stdlib_module_names


@dataclass(frozen=True)
class PackageCost:
    own_us: int
    """Its modules' self time plus that of the stdlib modules it was first to import."""
    inclusive_us: int
    """With everything it imported (nested packages included), counted once per outermost import."""
    pulled_in_by: str


def package_costs(tree: ImportTree) -> dict[str, PackageCost]:
    own: dict[str, int] = {}
    inclusive: dict[str, int] = {}
    pulled_in_by: dict[str, str] = {}
    for index, node in enumerate(tree.nodes):
        chain = [package_of(tree.nodes[i].name) for i in tree.ancestry(index)]
        charged = INTERPRETER
        if chain[-1] not in INTERPRETER_ROOTS:
            charged = next((package for package in chain if not is_stdlib(package)), INTERPRETER)
        own[charged] = own.get(charged, 0) + node.self_us
        package = chain[0]
        if package not in chain[1:]:  # outermost import of this package: its cumulative time counts once
            inclusive[package] = inclusive.get(package, 0) + node.cumulative_us
            parent = tree.parents[index]
            pulled_in_by.setdefault(package, "(top level)" if parent is None else tree.nodes[parent].name)
    return {
        package: PackageCost(us, inclusive.get(package, 0), pulled_in_by.get(package, ""))
        for package, us in own.items()
    }


def bucket_of(tree: ImportTree, index: int) -> str:
    chain = [package_of(tree.nodes[i].name) for i in tree.ancestry(index)]
    if chain[-1] in INTERPRETER_ROOTS:
        return INTERPRETER
    if any(package.split(".")[0] in SDK_PACKAGES for package in chain):
        return "the SDK (mcp, mcp_types) and all it imported"
    if chain[0].startswith(GATEWAY_PACKAGE):
        return "mcp_gateway's own modules"
    if any(package.startswith(GATEWAY_PACKAGE) for package in chain):
        return "third-party and stdlib imported by mcp_gateway"
    return INTERPRETER


def buckets(tree: ImportTree) -> dict[str, int]:
    """Self times grouped by who caused the import; the groups add up to the total."""
    totals: dict[str, int] = {}
    for index, node in enumerate(tree.nodes):
        bucket = bucket_of(tree, index)
        totals[bucket] = totals.get(bucket, 0) + node.self_us
    return totals
