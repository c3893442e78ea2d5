"""Files written whole: a reader, or a failure half-way, never sees half a file."""

from __future__ import annotations

import hashlib
import os
import secrets
import stat
from pathlib import Path

__all__ = ["atomic_write_text", "file_digest", "temp_sibling", "write_user_file"]


def temp_sibling(path: Path) -> Path:
    """A new hidden name beside ``path`` for what will replace it."""
    return path.with_name(f".{path.name}.tmp-{os.getpid()}-{secrets.token_hex(4)}")


def atomic_write_text(path: Path, text: str, *, mode: int | None = None) -> Path:
    """Write ``text`` to ``path`` through a temporary sibling renamed over it, so a reader
    (or a failure half-way) never sees half a file; with ``mode``, the file gets it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = temp_sibling(path)
    try:
        tmp.write_text(text, encoding="utf-8")
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path


def file_digest(path: Path) -> str:
    """The SHA-256 of the file at ``path`` (hex): what a build records of a file it reads,
    so that a later one can tell the same file from another of that name."""
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def write_user_file(path: Path, text: str) -> Path:
    """Write ``text`` over a user's file (a curation file, saved scores) whole: through a
    link to the file it points to, keeping the file's mode (a new file gets the umask's).
    The checks come first (:func:`kg.orchestrate.outdir.check_user_file`)."""
    real = Path(os.path.realpath(path))
    mode = stat.S_IMODE(real.stat().st_mode) if real.exists() else None
    atomic_write_text(real, text, mode=mode)
    return path
