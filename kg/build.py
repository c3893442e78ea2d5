"""``build``: abstracts in, every export out (ingest -> nlp -> resolve -> graph -> exporters)."""

from __future__ import annotations

import pickle
import shutil
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from kg import __version__
from kg.errors import BuildError, ExportError, InputError, KgError
from kg.exporters import EXPORTERS
from kg.graph import add_entities, add_paper, new_graph
from kg.ingest import FieldMap, Record, Skipped, read
from kg.ingest.readers import DEFAULT_MAX_CHARS, InputFiles, list_inputs
from kg.nlp.extraction import confident
from kg.nlp.pipeline import extract
from kg.outdir import check_output_dir, locked, new_temp_dir, replace_dir, write_manifest
from kg.resolve import Resolver, local_entities, paper_record

__all__ = ["BuildSummary", "build"]

T = TypeVar("T")


@dataclass
class BuildSummary:
    """What a build read, skipped, found and wrote, and how long each stage took."""

    out_dir: Path
    papers: int = 0
    skipped: list[Skipped] = field(default_factory=list)
    entity_counts: dict[str, int] = field(default_factory=dict)
    relation_counts: dict[str, int] = field(default_factory=dict)
    results: int = 0
    merges: int = 0
    nodes: int = 0
    edges: int = 0
    timings: dict[str, float] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)


def _identity(items: Iterable[T], **_: Any) -> Iterable[T]:
    return items


def build(
    inputs: Iterable[str | Path],
    out_dir: str | Path,
    *,
    n_process: int = 1,
    batch_size: int = 64,
    base: str | None = None,
    config: str | Path | None = None,
    fields: FieldMap | None = None,
    max_chars: int = DEFAULT_MAX_CHARS,
    exporters: Iterable[str] = EXPORTERS,
    force: bool = False,
    min_confidence: float = 0.0,
    progress: Callable[..., Iterable] = _identity,
    on_skip: Callable[[Skipped], None] | None = None,
    on_inputs: Callable[[InputFiles], None] | None = None,
) -> BuildSummary:
    """Extract a knowledge graph from ``inputs`` and write every export into ``out_dir``.

    The outputs are written into a temporary sibling directory that replaces ``out_dir``
    only when everything is written, so a failed or killed build leaves the previous
    output as it was. ``out_dir`` must be new, empty, or an earlier build's (marked by
    ``kg-build.json``) holding nothing else; ``force=True`` replaces any directory, but an
    input inside ``out_dir`` is refused even then. A lock beside ``out_dir`` refuses a
    second build into the same place while one runs.

    ``min_confidence`` leaves out relations whose confidence (the calibrated chance that
    the relation is right) is below it.

    ``progress(iterable, description=...)`` may wrap the record stream (e.g. a progress bar);
    ``on_inputs`` is told which files are read and which directory entries are ignored.

    Raises
    ------
    InputError
        An input path does not exist (nothing is read or written).
    OutputDirError
        ``out_dir`` may not be replaced, or another build holds its lock.
    BuildError
        No abstract could be read, or a stage failed; the old output is kept.
    """
    exporters = tuple(exporters)
    unknown = set(exporters) - set(EXPORTERS)
    if unknown:
        raise ExportError(f"unknown exporter(s) {sorted(unknown)}; choose from {EXPORTERS}")
    out_dir = Path(out_dir)
    listed = list_inputs(inputs)
    if listed.missing:
        raise InputError(listed.missing[0], None, "no such file or directory; check the path")
    given = [Path(f) for f in listed.files if f != "-"]
    check_output_dir(out_dir, given, force=force)
    if on_inputs is not None:
        on_inputs(listed)
    summary = BuildSummary(out_dir=out_dir)
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    with locked(out_dir):
        check_output_dir(out_dir, given, force=force)  # again, now that no one else writes
        tmp = new_temp_dir(out_dir)
        try:
            _build_into(
                tmp,
                summary,
                listed,
                n_process=n_process,
                batch_size=batch_size,
                base=base,
                config=config,
                fields=fields,
                max_chars=max_chars,
                exporters=exporters,
                min_confidence=min_confidence,
                progress=progress,
                on_skip=on_skip,
            )
            if summary.papers == 0:
                raise BuildError(
                    f"no abstracts could be read (skipped: {len(summary.skipped)}; see the "
                    f"messages above); {_kept(out_dir)}"
                )
            pipeline = {"config": str(config) if config else "default (kg/nlp/data/pipeline.cfg)",
                        "min_confidence": min_confidence}  # fmt: skip
            write_manifest(tmp, version=__version__, inputs=listed.files, pipeline=pipeline)
            summary.files = sorted(p.name for p in tmp.iterdir())
            replace_dir(tmp, out_dir)
        except BaseException as exc:
            shutil.rmtree(tmp, ignore_errors=True)
            if isinstance(exc, BuildError) or not isinstance(exc, Exception):
                raise  # already says what happened; or an interrupt, passed on as it is
            why = str(exc) if isinstance(exc, KgError) else f"{type(exc).__name__}: {exc}"
            raise BuildError(f"the build failed ({why}); {_kept(out_dir)}") from exc
    return summary


def _kept(out_dir: Path) -> str:
    if out_dir.exists():
        return f"the previous output in {out_dir} is unchanged"
    return f"nothing was written to {out_dir}"


def _records(
    items: Iterable[Record | Skipped],
    summary: BuildSummary,
    on_skip: Callable[[Skipped], None] | None,
) -> Iterator[Record]:
    seen: dict[str, str] = {}
    for item in items:
        if isinstance(item, Record):
            where = f"{item.source}:{item.line}"
            if item.id in seen:
                item = Skipped(
                    item.source,
                    item.line,
                    f"duplicate paper id {item.id!r} (first at {seen[item.id]})",
                )
            else:
                seen[item.id] = where
                yield item
                continue
        summary.skipped.append(item)
        if on_skip is not None:
            on_skip(item)


def _build_into(
    tmp: Path,
    summary: BuildSummary,
    inputs,
    *,
    n_process,
    batch_size,
    base,
    config,
    fields,
    max_chars,
    exporters,
    min_confidence,
    progress,
    on_skip,
) -> None:
    from kg.exporters.jsonio import write_graph_json, write_record

    timings = summary.timings
    resolver = Resolver()
    spool = tmp / "spool.pickle"
    t0 = time.perf_counter()
    records = _records(read(inputs, fields=fields, max_chars=max_chars), summary, on_skip)
    with open(spool, "wb") as fh:
        for item in progress(
            extract(records, n_process=n_process, batch_size=batch_size, base=base, config=config),
            description="Extracting",
        ):
            if isinstance(item, Skipped):
                summary.skipped.append(item)
                if on_skip is not None:
                    on_skip(item)
                continue
            item = confident(item, min_confidence)
            pickle.dump((item, local_entities(item)), fh, protocol=pickle.HIGHEST_PROTOCOL)
            summary.papers += 1
    timings["nlp"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    for _, locals_ in _spooled(spool):  # a second pass keeps extraction memory flat
        resolver.add(locals_)
    resolution = resolver.resolve()
    summary.merges = len(resolution.merges)
    timings["resolve"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    G = new_graph()
    add_entities(G, resolution.entities.values())
    with open(tmp / "extractions.jsonl", "w", encoding="utf-8") as jsonl:
        for ex, locals_ in _spooled(spool):
            record = paper_record(ex, locals_, resolution)
            write_record(jsonl, record)
            add_paper(G, record)
    spool.unlink()
    if "jsonl" not in exporters:
        (tmp / "extractions.jsonl").unlink()
    timings["graph+jsonl"] = time.perf_counter() - t0

    labels = Counter(d["label"] for _, d in G.nodes(data=True))
    summary.entity_counts = {
        k: labels.get(k, 0) for k in ("Paper", "Method", "Task", "Dataset", "Metric", "Result")
    }
    summary.relation_counts = dict(Counter(k for _, _, k in G.edges(keys=True)))
    summary.results = labels.get("Result", 0)
    summary.nodes, summary.edges = G.number_of_nodes(), G.number_of_edges()

    if "json" in exporters:
        t0 = time.perf_counter()
        write_graph_json(G, tmp / "graph.json")
        timings["json"] = time.perf_counter() - t0
    if "ttl" in exporters:
        t0 = time.perf_counter()
        from kg.exporters import rdf

        rdf.write_turtle(G, tmp / "graph.ttl")
        timings["ttl"] = time.perf_counter() - t0
    if "ladybug" in exporters:
        t0 = time.perf_counter()
        from kg.exporters import ladybug

        ladybug.write_database(G, tmp / "graph.lbdb")
        timings["ladybug"] = time.perf_counter() - t0
    if "report" in exporters:
        t0 = time.perf_counter()
        from kg.exporters import report

        report.write_report(G, summary, resolution, tmp / "report.md")
        timings["report"] = time.perf_counter() - t0


def _spooled(path: Path) -> Iterator[tuple]:
    """Yield the ``(extraction, local entities)`` pairs pickled one after another in ``path``."""
    with open(path, "rb") as fh:
        while True:
            try:
                yield pickle.load(fh)
            except EOFError:
                return
