"""The wheel ships every package and data file: the package list in pyproject.toml is explicit (community_data is
mapped from community_index/), so a new subpackage left out of it would be missing from `pip install .` while every
editable-install test still passed."""

from __future__ import annotations

import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_every_package_is_listed_for_the_wheel() -> None:
    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    found = {".".join(p.parent.relative_to(REPO).parts) for p in (REPO / "sgtools").rglob("__init__.py")}
    assert found - listed == set()


def test_every_data_file_is_shipped() -> None:
    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    data = [p for p in (REPO / "sgtools").rglob("*") if p.is_file() and p.suffix not in (".py", ".pyc")
            and "__pycache__" not in p.parts]
    for path in data:
        # A data file is shipped by the package-data glob of its folder's package or of a package above it
        # (`"sgtools.workflows.suggest" = ["known_rules/*.yml"]`).
        parts = path.parent.relative_to(REPO).parts
        packages = [".".join(parts[:n]) for n in range(len(parts), 0, -1)]
        assert any(path.match(g) for package in packages for g in config.get(package, [])), \
            f"{path} is not in package-data for {packages[0]} or a package above it"
