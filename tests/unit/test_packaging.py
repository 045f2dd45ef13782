"""What the wheel carries, read from pyproject.toml: every module the demo runs, every data file, the licence.

setuptools puts in the wheel each package `packages.find` includes (a directory with an `__init__.py`), its
modules, and the files the `package-data` patterns match. A pattern that matches nothing (`demo/*.json`
did) hides a file that is missing; a data file no pattern matches works from a checkout and is absent
from an installed gateway. Both are checked here, fast, without building a wheel.
"""

from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path
from typing import Any

from mcp_gateway.cli.demo import DEMO_SERVERS

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "mcp_gateway"


def pyproject() -> dict[str, Any]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def package_data_patterns() -> list[str]:
    return list(pyproject()["tool"]["setuptools"]["package-data"]["mcp_gateway"])


def data_files() -> list[str]:
    """Every file of the package that is not a module, relative to it."""
    return sorted(
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*")
        if path.is_file() and path.suffix not in (".py", ".pyc") and "__pycache__" not in path.parts
    )


def in_a_found_package(module: str) -> bool:
    """Whether `module` is a file of a package that `packages.find` puts in the wheel."""
    *package, name = module.split(".")
    include = pyproject()["tool"]["setuptools"]["packages"]["find"]["include"]
    directory = ROOT.joinpath(*package)
    return (
        (directory / f"{name}.py").is_file()
        and all(ROOT.joinpath(*package[: depth + 1], "__init__.py").is_file() for depth in range(len(package)))
        and any(fnmatch.fnmatchcase(".".join(package), pattern) for pattern in include)
    )


def test_every_package_data_pattern_matches_a_file() -> None:
    unmatched = [pattern for pattern in package_data_patterns() if not fnmatch.filter(data_files(), pattern)]
    assert unmatched == []


def test_every_data_file_of_the_package_is_in_the_package_data() -> None:
    patterns = package_data_patterns()
    left_out = [name for name in data_files() if not any(fnmatch.fnmatchcase(name, p) for p in patterns)]
    assert left_out == []


def test_every_module_the_demo_runs_is_in_the_wheel() -> None:
    modules = ["mcp_gateway.__main__", *(module for module, _ in DEMO_SERVERS.values())]
    assert [module for module in modules if not in_a_found_package(module)] == []


def test_the_licence_file_is_the_one_the_metadata_names() -> None:
    project = pyproject()["project"]
    assert project["license"] == "MIT"
    assert [path for path in project["license-files"] if not (ROOT / path).is_file()] == []
    assert (ROOT / "LICENSE").read_text().startswith("MIT License\n")
