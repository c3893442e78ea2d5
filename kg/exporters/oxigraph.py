"""The persistent RDF store of a build (``OUTDIR/graph.oxigraph/``): pyoxigraph's on-disk
store holding the triples of ``graph.ttl``, so SPARQL queries need not parse the Turtle."""

from __future__ import annotations

import gc
import json
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from kg.errors import ExportError
from kg.util.tables import batched

if TYPE_CHECKING:  # the store is opened for queries without networkx
    import networkx as nx

    from kg.graph.store import GraphSource

__all__ = ["STORE_NAME", "StoreInfo", "write_store", "open_store", "store_path"]

STORE_NAME = "graph.oxigraph"

BATCH = 25_000
"""Triples per bulk insert. One ``bulk_load`` of a whole file holds about a million triples
per CPU core (1.6 GB for 3M triples on 2 cores, measured); batches of 100,000 kept the
writer under 200 MB and were as fast (23.6 s against 20.2 s for 3M triples). Batches of
25,000 lower the writer's peak again, in a process of its own, as fast or faster: 10,000
abstracts 210 -> 88 MB, 71,908 abstracts 237 -> 146 MB (10,000 triples: 73 MB, but 30%
slower)."""


@dataclass(frozen=True)
class StoreInfo:
    """What :func:`write_store` wrote: the store's directory, its triples and bytes on disk."""

    path: Path
    triples: int
    bytes: int


def store_path(out_dir: str | Path) -> Path:
    """Return the store of the build in ``out_dir`` (or ``out_dir`` itself if it is one)."""
    path = Path(out_dir)
    return path / STORE_NAME if (path / STORE_NAME).is_dir() else path


def write_store(
    G: nx.MultiDiGraph | GraphSource | None,
    path: str | Path,
    *,
    turtle: str | Path | None = None,
    own_process: bool = True,
) -> StoreInfo:
    """Write an on-disk Oxigraph store at ``path`` (a new directory).

    With ``turtle`` (the build's ``graph.ttl``) the triples are read from that file by
    Oxigraph's own parser, the fast path, in a process of its own unless ``own_process`` is
    false; otherwise those of ``G`` are streamed in. Either way they are bulk-inserted
    :data:`BATCH` at a time, so memory does not grow with the graph (or with the number of
    cores, as one ``bulk_load`` of the file does). What the store's engine allocates
    while it writes grows with the store and stays with the process that wrote it
    (``malloc_trim`` returns little of it), so a build writes it from a child process that
    gives all of it back when it ends (:func:`_write_in_child`).
    """
    path = Path(path)
    if path.exists():
        raise ExportError(f"{path} already exists; the Oxigraph store is written afresh")
    if turtle is None or not own_process:
        return _write(G, path, turtle)
    return _write_in_child(path, Path(turtle))


_CHILD = (
    "import sys; sys.path.insert(0, sys.argv.pop(1)); "
    "from kg.exporters.oxigraph import _main; sys.exit(_main(sys.argv[1:]))"
)
"""The child's program: this module's ``_main``, from the kg this process imported."""


def _write_in_child(path: Path, turtle: Path) -> StoreInfo:
    """Run this module's ``_main(TURTLE, PATH)`` in a new Python: a command, not a forked
    or spawned function, so a script that builds need not guard its ``__main__``."""
    import kg

    here = str(Path(kg.__file__).resolve().parents[1])  # kg as this process imported it
    cmd = [sys.executable, "-c", _CHILD, here, str(turtle), str(path)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode == 0:
        triples, size = json.loads(proc.stdout)
        return StoreInfo(path, triples, size)
    shutil.rmtree(path, ignore_errors=True)
    if proc.returncode < 0:  # a signal: the kernel's OOM killer, or someone's kill
        raise ExportError(
            f"the process writing the Oxigraph store {path} was killed (signal "
            f"{-proc.returncode}), perhaps for memory; the other outputs do not need the "
            "store: build them with --only, or build again with more memory"
        )
    lines = proc.stderr.strip().splitlines()
    raise ExportError(lines[-1] if lines else f"cannot write the Oxigraph store {path}: "
                      f"its process ended with exit code {proc.returncode}")  # fmt: skip


def _write(
    G: nx.MultiDiGraph | GraphSource | None, path: Path, turtle: str | Path | None
) -> StoreInfo:
    import pyoxigraph as ox

    try:
        store = ox.Store(str(path))
        if turtle is not None:
            quads = ox.parse(path=str(turtle), format=ox.RdfFormat.TURTLE)
        elif G is not None:
            from kg.exporters.rdf import oxigraph_triples

            quads = (ox.Quad(t.subject, t.predicate, t.object) for t in oxigraph_triples(G))
        else:
            raise ExportError("write_store needs a graph or a Turtle file")
        for batch in batched(quads, BATCH):
            store.bulk_extend(batch)
        store.optimize()
        store.flush()
        n = len(store)
        del store
        gc.collect()  # the store closes when its last reference goes
    except (OSError, SyntaxError) as exc:
        shutil.rmtree(path, ignore_errors=True)
        raise ExportError(f"cannot write the Oxigraph store {path}: {exc}") from exc
    size = sum(f.stat().st_size for f in path.rglob("*") if f.is_file())
    return StoreInfo(path, n, size)


def open_store(path: str | Path):
    """Open the Oxigraph store of a build read-only (``path``: the build or its store)."""
    import pyoxigraph as ox

    path = store_path(path)
    if not path.is_dir():
        raise ExportError(f"{path} is not an Oxigraph store (kg build writes {STORE_NAME}/)")
    try:
        return ox.Store.read_only(str(path))
    except OSError as exc:
        raise ExportError(f"cannot open the Oxigraph store {path}: {exc}") from exc


def _main(argv: list[str]) -> int:
    """``python -m kg.exporters.oxigraph TURTLE PATH``: write the store of ``TURTLE`` at
    ``PATH`` and print ``[triples, bytes]`` as JSON (what :func:`_write_in_child` runs)."""
    if len(argv) != 2:
        print("usage: python -m kg.exporters.oxigraph TURTLE STORE_DIR", file=sys.stderr)
        return 2
    try:
        info = _write(None, Path(argv[1]), argv[0])
    except ExportError as exc:
        print(exc, file=sys.stderr)
        return 1
    print(json.dumps([info.triples, info.bytes]))
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
