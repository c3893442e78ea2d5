"""The build output directory: which directories kg may replace, a lock, and the swap.

``kg build`` writes into a fresh sibling directory and swaps it in when everything is
written. Before it starts it checks that the old directory is one it may replace: an
empty one, or one that an earlier build marked with :data:`MANIFEST` and that holds
nothing else. Anything else is refused unless ``force``; an input file inside the output
directory is never deleted, not even with ``force``.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import secrets
import shutil
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

from kg.errors import KgError
from kg.util.files import atomic_write_text, temp_sibling

__all__ = [
    "MANIFEST",
    "OUTPUT_MARK",
    "OutputDirError",
    "atomic_write_text",
    "build_holding",
    "check_not_in_build",
    "check_output_dir",
    "check_output_file",
    "check_output_folder",
    "check_user_file",
    "derived_files",
    "mark_folder",
    "write_folder",
    "locked",
    "new_temp_dir",
    "partial_dir",
    "read_manifest",
    "replace_dir",
    "write_manifest",
]

T = TypeVar("T")

MANIFEST = "kg-build.json"
# What other kg commands write into a build directory (regenerated from the build).
DERIVED = ("analysis", "graph.html", "neo4j-csv")


class OutputDirError(KgError):
    """The output directory cannot be used (it holds other files, is locked, is a file...)."""


def _listing(names: Iterable[str], limit: int = 5) -> str:
    names = sorted(names)
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def read_manifest(out_dir: Path) -> dict | None:
    """Return the manifest of a kg build directory, or None when it has none (or a bad one)."""
    try:
        data = json.loads((out_dir / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("tool") == "kg build" else None


def check_output_dir(out_dir: Path, inputs: Iterable[Path], *, force: bool = False) -> None:
    """Raise :class:`OutputDirError` unless a build may replace ``out_dir``.

    ``inputs`` are the input paths of the build: none of them may lie inside ``out_dir``.
    """
    shown = str(out_dir)
    resolved = out_dir.resolve()
    cwd = Path.cwd().resolve()
    if resolved == cwd or resolved in cwd.parents:
        raise OutputDirError(
            f"-o {shown}: the output directory would be the current directory or one above "
            "it; kg replaces its output directory whole, so name a directory of its own, "
            "e.g. -o kg-out"
        )
    if out_dir.exists() and not out_dir.is_dir():
        raise OutputDirError(
            f"-o {shown}: {shown} is a file, not a directory; give -o the path of a "
            "directory (kg creates it)"
        )
    for parent in resolved.parents:
        if parent.exists() and not parent.is_dir():
            raise OutputDirError(f"-o {shown}: {parent} is a file, not a directory")
    for path in inputs:
        inside = path.resolve()
        if inside == resolved or resolved in inside.parents:
            raise OutputDirError(
                f"input {path} is inside the output directory {shown}, which a build "
                "replaces whole; move the input out of it or write elsewhere (-o DIR). "
                "kg never deletes an input, even with --force"
            )
    if not out_dir.is_dir():
        return
    present = {p.name for p in out_dir.iterdir()}
    if not present or force:
        return
    manifest = read_manifest(out_dir)
    if manifest is None:
        raise OutputDirError(
            f"{shown} already exists and was not written by kg build (it has no {MANIFEST}); "
            f"a build replaces its output directory whole, which would delete "
            f"{_listing(present)}. Choose a new or empty directory, or pass --force to "
            "replace it"
        )
    ours = {MANIFEST, *DERIVED, *manifest.get("files", ())}
    foreign = present - ours
    if foreign:
        raise OutputDirError(
            f"{shown} is a kg build but also holds files kg did not write: "
            f"{_listing(foreign)}; a new build replaces the directory whole, so move them "
            "out first, or pass --force to delete them"
        )


def write_manifest(
    directory: Path,
    *,
    version: str,
    inputs: Iterable[str],
    pipeline: dict | None = None,
    updates: list[dict] | None = None,
) -> None:
    """Mark ``directory`` as a kg build, listing the files in it, the pipeline settings
    it was built with and, for a graph kept current by ``kg update``, its updates (written
    last)."""
    files = sorted(p.name for p in directory.iterdir() if p.name != MANIFEST)
    data = {
        "tool": "kg build",
        "version": version,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "inputs": list(inputs),
        "pipeline": pipeline or {},
        "files": files,
    }
    if updates:
        data["updates"] = updates
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    (directory / MANIFEST).write_text(text, encoding="utf-8")


def _lock_path(out_dir: Path) -> Path:
    return out_dir.parent / f".{out_dir.name}.lock"


@contextmanager
def locked(out_dir: Path) -> Iterator[None]:
    """Hold the build lock of ``out_dir``; raise :class:`OutputDirError` if another holds it.

    The lock is an ``flock`` on a file beside the directory, so a killed build leaves no
    lock behind (the kernel releases it). Leftover temporary directories of killed builds
    into the same place are removed once the lock is held.
    """
    path = _lock_path(out_dir)
    while True:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
        except OSError as exc:
            raise OutputDirError(
                f"cannot write in {out_dir.parent} ({exc.strerror}); build into a folder "
                "you can write to (-o DIR)"
            ) from exc
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
            os.close(fd)
            who = f" (process {holder})" if holder else ""
            raise OutputDirError(
                f"another kg build is writing to {out_dir}{who}; wait for it to finish or "
                "write elsewhere (-o DIR)"
            ) from None
        try:  # the file may have been unlinked by the holder we waited on: lock afresh
            same = os.fstat(fd).st_ino == os.stat(path).st_ino
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(fd)
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode("ascii"), 0)
        _remove_leftovers(out_dir)
        yield
    finally:
        try:
            path.unlink()
        except FileNotFoundError:
            pass
        os.close(fd)


def _leftovers(out_dir: Path) -> list[Path]:
    parent = out_dir.parent
    patterns = (f".{out_dir.name}.tmp-*", f".{out_dir.name}.old-*")
    return sorted(p for pattern in patterns for p in parent.glob(pattern) if p.is_dir())


def _remove_leftovers(out_dir: Path) -> None:
    for path in _leftovers(out_dir):
        shutil.rmtree(path, ignore_errors=True)


def partial_dir(out_dir: Path) -> Path:
    """Return the hidden sibling directory a build of ``out_dir`` writes into; it is
    swapped in when the build is done, and a killed build leaves it for ``--resume``."""
    return out_dir.with_name(f".{out_dir.name}.partial")


def new_temp_dir(out_dir: Path) -> Path:
    """Create the hidden sibling directory a build writes into (mode from the umask)."""
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    while True:
        tmp = temp_sibling(out_dir)
        try:
            tmp.mkdir()
        except FileExistsError:
            continue
        return tmp


def replace_dir(tmp: Path, out_dir: Path) -> None:
    """Swap ``tmp`` in as ``out_dir``; the old directory is removed only after the swap."""
    old = None
    if out_dir.exists():
        old = out_dir.with_name(f".{out_dir.name}.old-{os.getpid()}-{secrets.token_hex(4)}")
        os.replace(out_dir, old)
    os.replace(tmp, out_dir)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


# -- what other commands write: one file or one folder -----------------------------------

OUTPUT_MARK = "kg-output.json"
"""The file that marks a folder written by a kg command other than ``kg build`` (``kg
analyze``'s and ``kg export neo4j-csv``'s): such a folder may be written again."""


def build_holding(path: Path) -> Path | None:
    """Return the kg build directory that ``path`` lies in (or is), if any."""
    resolved = path.resolve()
    for folder in (resolved, *resolved.parents):
        if (folder / MANIFEST).is_file() and read_manifest(folder) is not None:
            return folder
    return None


def check_not_in_build(path: Path, option: str) -> bool:
    """Refuse ``path`` when it is a build directory or one of a build's own files; the
    derived outputs (:data:`DERIVED`) are the only places inside a build other commands
    write. Return whether ``path`` is one of those (kg's to replace, whoever wrote it)."""
    build = build_holding(path)
    if build is None:
        return False
    rel = path.resolve().relative_to(build)
    if rel.parts and rel.parts[0] in DERIVED:
        return len(rel.parts) == 1
    what = "is the build directory" if not rel.parts else f"is part of the build in {build}"
    raise OutputDirError(
        f"{option} {path}: {path} {what}; kg never writes into a build's own files (only "
        f"{', '.join(DERIVED)} beside them). Write somewhere else"
    )


def check_user_file(path: Path, *, inputs: Iterable[Path] = (), option: str = "-o") -> None:
    """Raise :class:`OutputDirError` unless a command may write the user's file ``path``
    (:func:`kg.util.files.write_user_file`): never inside a build (a build replaces itself
    whole, and the file would be lost), never one of the command's ``inputs``, never a
    read-only file or what is no file. A link is judged by the file it points to."""
    real = Path(os.path.realpath(path))
    build = build_holding(real)
    if build is not None:
        raise OutputDirError(
            f"{option} {path}: {real} is inside the build in {build}, which is replaced "
            "whole by the next build (the file would be lost); keep it beside your inputs"
        )
    if any(Path(os.path.realpath(p)) == real for p in inputs):
        raise OutputDirError(
            f"{option} {path}: {path} is an input of this command; kg never writes over an "
            "input, even with --force. Write elsewhere"
        )
    if real.exists() and not real.is_file():
        raise OutputDirError(f"{option} {path}: {real} is not a file; give a file name")
    if real.exists() and not real.stat().st_mode & 0o222:
        raise OutputDirError(
            f"{option} {path}: {real} is read-only, so kg leaves it as it is; make it "
            f"writable (chmod u+w {path}) or write elsewhere"
        )


def check_output_file(
    path: Path, *, force: bool, ours: Callable[[Path], bool], option: str = "-o"
) -> None:
    """Raise :class:`OutputDirError` unless a command may write the file ``path``: not a
    build's own file (ever), not a directory, and, when it exists, a file that
    ``ours(path)`` recognises as kg's, or ``force``."""
    derived = check_not_in_build(path, option)
    if path.is_dir():
        raise OutputDirError(f"{option} {path}: {path} is a directory; give a file name")
    if path.exists() and not force and not derived and not ours(path):
        raise OutputDirError(
            f"{option} {path}: {path} exists and was not written by kg; choose another "
            "name, or pass --force to replace it"
        )


def check_output_folder(path: Path, *, force: bool, tool: str, option: str = "-o") -> None:
    """Raise :class:`OutputDirError` unless a command may replace the folder ``path``
    whole: not a build's own folder, and new, empty, or marked by ``tool``
    (:data:`OUTPUT_MARK`), or ``force``, or a build's own place for it."""
    derived = check_not_in_build(path, option)
    if path.exists() and not path.is_dir():
        raise OutputDirError(f"{option} {path}: {path} is a file; give a folder")
    if not path.is_dir() or force or derived or not any(path.iterdir()):
        return
    try:
        mark = json.loads((path / OUTPUT_MARK).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        mark = None
    if not isinstance(mark, dict) or mark.get("tool") != tool:
        raise OutputDirError(
            f"{option} {path}: {path} holds files {tool} did not write "
            f"({_listing(p.name for p in path.iterdir())}); it is replaced whole, so choose "
            "a new or empty folder, or pass --force to replace it"
        )


def mark_folder(folder: Path, tool: str) -> None:
    """Mark ``folder`` as written by ``tool`` (see :func:`check_output_folder`)."""
    text = json.dumps({"tool": tool, "version": _version()}, indent=2) + "\n"
    (folder / OUTPUT_MARK).write_text(text, encoding="utf-8")


def _version() -> str:
    from kg import __version__

    return __version__


def write_folder(path: Path, tool: str, write: Callable[[Path], T]) -> T:
    """Call ``write(folder)`` on a new temporary sibling of ``path``, mark it as
    ``tool``'s and swap it in for ``path`` whole; on failure ``path`` is as it was."""
    tmp = new_temp_dir(path)
    try:
        result = write(tmp)
        mark_folder(tmp, tool)
        replace_dir(tmp, path)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return result


def derived_files(out_dir: Path) -> list[str]:
    """The outputs of other commands in the build ``out_dir`` (a rebuild removes them)."""
    return [name for name in DERIVED if (out_dir / name).exists()]


def no_space(exc: BaseException) -> bool:
    """Whether ``exc`` or an error behind it is a full disk (ENOSPC)."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
            return True
        if "No space left on device" in str(exc):
            return True
        exc = exc.__cause__ or exc.__context__
    return False


def mount_point(path: Path) -> Path:
    """The mount point of the file system ``path`` is on."""
    path = path.resolve()
    while not os.path.ismount(path) and path != path.parent:
        path = path.parent
    return path
