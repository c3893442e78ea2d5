"""Files written whole: a reader, or a failure half-way, never sees half a file."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

__all__ = ["atomic_write_text", "temp_sibling"]


def temp_sibling(path: Path) -> Path:
    """A new hidden name beside ``path`` for what will replace it."""
    return path.with_name(f".{path.name}.tmp-{os.getpid()}-{secrets.token_hex(4)}")


def atomic_write_text(path: Path, text: str) -> Path:
    """Write ``text`` to ``path`` through a temporary sibling renamed over it, so a reader
    (or a failure half-way) never sees half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = temp_sibling(path)
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path
