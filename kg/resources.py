"""The one place that finds kg's data folders (schemas/, queries/, the NLP config)."""

from __future__ import annotations

import sys
from pathlib import Path

__all__ = [
    "schemas_dir",
    "queries_dir",
    "nlp_data_dir",
    "schema_path",
    "trained_file",
]

_PACKAGE = Path(__file__).resolve().parent


def _data_dir(name: str) -> Path:
    """The repository's top-level ``name/`` folder, or the copy a wheel installed."""
    source = _PACKAGE.parent / name
    if source.is_dir():
        return source
    return Path(sys.prefix) / "share" / "kg" / name


def schemas_dir() -> Path:
    """Return the ``schemas/`` directory (ontology, JSON Schema, SHACL shapes)."""
    return _data_dir("schemas")


def queries_dir() -> Path:
    """Return the ``queries/`` directory of saved Cypher queries."""
    return _data_dir("queries")


def nlp_data_dir() -> Path:
    """Return the directory holding the NLP config and word lists."""
    return _PACKAGE / "nlp" / "data"


def trained_file(path: str, shipped: str, what: str) -> Path | None:
    """Return the file a pipeline setting names: ``""`` the shipped ``shipped`` in
    :func:`nlp_data_dir` (``None`` when kg ships none), ``"none"`` ``None``, anything
    else that path, which must exist."""
    if path == "none":
        return None
    file = Path(path) if path else nlp_data_dir() / shipped
    if file.exists():
        return file
    if path:
        raise FileNotFoundError(f"{what} {file} not found")
    return None


def schema_path(name: str) -> Path:
    """Return the path of the file ``name`` in ``schemas/``, checking it exists."""
    path = schemas_dir() / name
    if not path.exists():
        raise FileNotFoundError(
            f"kg schema file {path} is missing; reinstall kg from its source tree"
        )
    return path
