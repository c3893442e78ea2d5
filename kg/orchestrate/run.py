"""``build``: abstracts in, every export out (ingest -> nlp -> resolve -> graph -> exporters)."""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Callable, Iterable
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from kg import __version__
from kg.errors import BuildError, ExportError, InputError, KgError
from kg.exporters import EXPORTERS
from kg.exporters.registry import GRAPH_EXPORTERS, ExportOptions
from kg.graph.store import ENTITIES, TABLES, GraphTables
from kg.ingest import FieldMap, Skipped
from kg.ingest.readers import InputFiles, list_inputs
from kg.ingest.record import DEFAULT_MAX_CHARS
from kg.orchestrate.curation import (
    CURATION_LOG,
    _read_curation,
    _write_curation_log,
    remembered_curation,
)
from kg.orchestrate.graph import write_graph_tables
from kg.orchestrate.outdir import (
    check_output_dir,
    derived_files,
    locked,
    mount_point,
    no_space,
    partial_dir,
    read_manifest,
    replace_dir,
    write_manifest,
)
from kg.orchestrate.shards import (
    LOCALS,
    PAPERS,
    PAPERS_PER_SHARD,
    PREVIOUS,
    _complete_shards,
    _extract_new_papers,
)
from kg.orchestrate.summary import BuildSummary
from kg.resolve.resolver import resolve_table
from kg.schema import ENTITY_TYPES
from kg.util.files import file_digest
from kg.util.tables import DUCKDB_MEMORY, duckdb_connection, glob_of, release_memory, shard_files

__all__ = ["BuildSummary", "build"]

T = TypeVar("T")


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
    pipeline: str | None = None,
    fields: FieldMap | None = None,
    max_chars: int = DEFAULT_MAX_CHARS,
    exporters: Iterable[str] = EXPORTERS,
    force: bool = False,
    min_confidence: float = 0.0,
    progress: Callable[..., Iterable] = _identity,
    on_skip: Callable[[Skipped], None] | None = None,
    on_inputs: Callable[[InputFiles], None] | None = None,
    add_to: bool = False,
    resume: bool = False,
    graph_json_max: int | None = None,
    scheduler: str | None = None,
    update: dict | None = None,
    count_first: bool = False,
    on_stage: Callable[[str], None] | None = None,
    curation: str | Path | None = None,
    papers_per_shard: int = PAPERS_PER_SHARD,
    export_options: ExportOptions | None = None,
    duckdb_memory: str = DUCKDB_MEMORY,
) -> BuildSummary:
    """Extract a knowledge graph from ``inputs`` and write every export into ``out_dir``.

    The outputs are written into a temporary sibling directory that replaces ``out_dir``
    only when everything is written, so a failed or killed build leaves the previous
    output as it was. ``out_dir`` must be new, empty, or an earlier build's (marked by
    ``kg-build.json``) holding nothing else; ``force=True`` replaces any directory, but an
    input inside ``out_dir`` is refused even then. A lock beside ``out_dir`` refuses a
    second build into the same place while one runs.

    ``pipeline`` names the shipped pipeline (:data:`~kg.nlp.pipeline.PIPELINES`:
    ``fast`` or ``accurate``; default: ``fast``, or with ``add_to`` the build's own);
    ``config``, a spaCy config of one's own, replaces it.

    ``min_confidence`` leaves out relations whose confidence (the calibrated chance that
    the relation is right) is below it.

    ``add_to=True`` adds ``inputs`` to the build already in ``out_dir``: only papers whose
    id it does not hold, or whose title or abstract changed, are extracted; the rest is
    taken from it, then everything is resolved and exported again. ``resume=True`` takes
    over the extraction shards a killed build into ``out_dir`` left (same inputs and
    settings), extracting only the rest. ``graph.json`` is written only when the graph has
    at most ``graph_json_max`` nodes plus relationships (default :data:`GRAPH_JSON_MAX`).
    ``scheduler`` runs extraction on a Dask cluster (``tcp://host:8786``) or on
    ``local:N`` worker processes instead of the ``n_process`` pool. ``update`` (what
    ``kg update`` fetched) is added to the manifest's list of updates, which ``add_to``
    carries over.

    ``curation`` names a curation file (:mod:`kg.resolve.curation`): a lab's own fixes,
    applied after resolution. The build remembers it, so ``add_to`` (and ``kg update``)
    apply it again unless given another. Extractions are kept in shards of
    ``papers_per_shard`` papers (what ``resume`` takes over). ``export_options`` tells the
    exporters their limits (:class:`~kg.exporters.registry.ExportOptions`; a
    ``graph_json_max`` given on its own wins). DuckDB, which resolves names and merges the
    relationships' rows, is held to ``duckdb_memory`` and spills past it.

    ``progress(iterable, description=..., total=...)`` may wrap the record stream (e.g. a
    progress bar); with ``count_first`` the input files are read once before extraction
    to count the papers to extract, its ``total`` (None for standard input). ``on_stage``
    is told the name of each stage as it starts (resolving names, writing graph.ttl, ...);
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
    link = None
    if out_dir.is_symlink():  # written through: the folder it points to is the output
        link, out_dir = out_dir, Path(os.path.realpath(out_dir))
    listed = list_inputs(inputs)
    if listed.missing:
        raise InputError(listed.missing[0], None, "no such file or directory; check the path")
    given = [Path(f) for f in listed.files if f != "-"]
    check_output_dir(out_dir, given, force=force)
    if scheduler is not None:
        from kg.nlp.distributed import parse_scheduler

        parse_scheduler(scheduler)  # a typo fails here, before anything is written
    built = ((read_manifest(out_dir) or {}).get("pipeline") or {}) if add_to else {}
    about = _pipeline_settings(pipeline, config, base, min_confidence, built)
    settings = {
        "version": __version__,
        **about,
        "max_chars": max_chars,
        "fields": repr(fields or FieldMap()),
    }
    previous_inputs: list[str] = []
    updates: list[dict] = []
    if add_to:
        previous_inputs = _check_add_to(out_dir, about)
        updates = list((read_manifest(out_dir) or {}).get("updates") or [])
        if curation is None:
            curation = remembered_curation(built)
    curated_by = _read_curation(curation, out_dir if add_to else None)
    if curation:
        given.append(Path(curation))  # an input too: never deleted, whatever --force says
        check_output_dir(out_dir, given, force=force)
        about["curation"] = {"path": str(Path(curation).resolve()), "digest": curated_by.digest}
    if update is not None:
        updates.append(update)
    if on_inputs is not None:
        on_inputs(listed)
    summary = BuildSummary(out_dir=out_dir, pipeline=about["name"])
    if link is not None:
        summary.notes.append(f"{link} is a link to {out_dir}: the build was written there")
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    state = {**settings, "inputs": listed.files, "add_to": add_to,
             "curation": about.get("curation")}  # fmt: skip
    with locked(out_dir):
        check_output_dir(out_dir, given, force=force)  # again, now that no one else writes
        tmp = partial_dir(out_dir)
        if resume and tmp.is_dir():
            _check_resume(tmp, state)
            _complete_shards(tmp / TABLES)
            _drop_exports(tmp)
        elif tmp.exists():
            shutil.rmtree(tmp)  # an interrupted build's, not resumed: start afresh
        tmp.mkdir(exist_ok=True)
        (tmp / RESUME_STATE).write_text(json.dumps(state, indent=2) + "\n", encoding="utf-8")
        try:
            extract_papers = partial(
                _extract_new_papers,
                summary=summary,
                inputs=listed,
                n_process=n_process,
                batch_size=batch_size,
                base=about["base"]["name"],
                config=_config_to_load(about),
                fields=fields,
                max_chars=max_chars,
                min_confidence=min_confidence,
                progress=progress,
                on_skip=on_skip,
                previous=out_dir if add_to else None,
                scheduler=scheduler,
                count_first=count_first,
                papers_per_shard=papers_per_shard,
            )
            _build_into(
                tmp,
                summary,
                extract_papers,
                on_stage=on_stage or (lambda _: None),
                exporters=exporters,
                options=replace(
                    export_options or ExportOptions(),
                    **({} if graph_json_max is None else {"graph_json_max": graph_json_max}),
                ),
                curation=curated_by,
                duckdb_memory=duckdb_memory,
            )
            if summary.metadata_notes:
                summary.notes.append(
                    f"{summary.metadata_notes} unreadable metadata values (years, dates) were "
                    "left out of records that were kept; the messages above say where"
                )
            if summary.papers == 0:
                raise BuildError(
                    f"no abstracts could be read (skipped: {len(summary.skipped)}; see the "
                    f"messages above); {_kept(out_dir)}"
                )
            (tmp / RESUME_STATE).unlink()
            inputs_all = list(dict.fromkeys([*previous_inputs, *listed.files]))
            write_manifest(
                tmp, version=__version__, inputs=inputs_all, pipeline=about, updates=updates
            )
            summary.files = sorted(p.name for p in tmp.iterdir())
            removed = derived_files(out_dir) if out_dir.is_dir() else []
            replace_dir(tmp, out_dir)
            if removed:
                summary.notes.append(
                    f"removed {', '.join(removed)} of the previous build: they showed the old "
                    "graph (write them again with kg viz, kg analyze or kg export)"
                )
        except BaseException as exc:
            if not isinstance(exc, Exception):
                raise  # an interrupt: the shards stay for --resume
            if no_space(exc):  # what was written keeps the disk full: it goes
                shutil.rmtree(tmp, ignore_errors=True)
                raise BuildError(
                    f"the build failed: no space left on the device holding {tmp.parent} "
                    f"(mounted at {mount_point(tmp.parent)}); the partial output was "
                    f"removed; {_kept(out_dir)}. Free some space, or write elsewhere (-o DIR)"
                ) from exc
            extracted = _extracted_count(tmp / TABLES)
            if not extracted:
                shutil.rmtree(tmp, ignore_errors=True)
            if isinstance(exc, BuildError) and not extracted:
                raise
            why = str(exc) if isinstance(exc, KgError) else f"{type(exc).__name__}: {exc}"
            if extracted:  # hours of extraction are not thrown away for an export's error
                why += (
                    f"; the {extracted:,} papers extracted are kept in {tmp}, and the same "
                    "command with --resume exports them without extracting them again"
                )
            raise BuildError(f"the build failed ({why}); {_kept(out_dir)}") from exc
    return summary


RESUME_STATE = "kg-build-partial.json"
"""What an unfinished build was asked to do; ``--resume`` continues only the same."""


def _check_resume(tmp: Path, state: dict) -> None:
    try:
        before = json.loads((tmp / RESUME_STATE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        before = None
    now = json.loads(json.dumps(state))  # as it is kept: tuples are lists
    if before != now:
        diff = sorted(k for k in now if not isinstance(before, dict) or before.get(k) != now[k])
        raise BuildError(
            f"--resume: the interrupted build in {tmp} was asked for something else "
            f"({', '.join(diff) or 'unreadable state'} differ); run the same command again, "
            "or build without --resume to start afresh"
        )


def _pipeline_settings(
    pipeline: str | None, config, base: str | None, min_confidence: float, built: dict
) -> dict:
    """What extracts the papers, as the manifest keeps it: the pipeline's name, its config
    (absolute path and digest), the base pipeline (name, version, digest) and the minimum
    confidence. With ``--add-to`` (``built``: the build's own), what is not given is the
    build's."""
    from kg.nlp.pipeline import PIPELINES, base_settings, pipeline_config

    kept_config = built.get("config")
    if config is None and pipeline is None and built.get("name") == "custom":
        config = kept_config.get("path") if isinstance(kept_config, dict) else kept_config
    if pipeline is None:
        pipeline = built.get("name") if built.get("name") in PIPELINES else "fast"
    if pipeline not in PIPELINES:
        raise BuildError(f"unknown pipeline {pipeline!r}; choose from {', '.join(PIPELINES)}")
    path = Path(config).resolve() if config else pipeline_config(pipeline)
    if not path.is_file():
        raise BuildError(f"--config {config}: no such file; check the path")
    kept_base = built.get("base")
    if base is None and isinstance(kept_base, dict):
        base = kept_base.get("name")
    return {
        "name": "custom" if config else pipeline,
        "config": {"path": str(path), "digest": file_digest(path)},
        "base": base_settings(base),
        "min_confidence": min_confidence,
    }


def _config_to_load(about: dict) -> str | None:
    """The config each extracting process loads: a custom one's path, else the shipped
    pipeline's name (a Dask worker finds it in its own installation); None for fast."""
    if about["name"] == "custom":
        return about["config"]["path"]
    return None if about["name"] == "fast" else about["name"]


def _differences(kept: dict, now: dict) -> list[str]:
    """The settings of ``now`` that differ from those a build ``kept``, said in words (a
    manifest of an older kg, which kept fewer, is compared on what it kept)."""
    out = []
    if kept.get("name", now["name"]) != now["name"]:
        out.append(f"pipeline: {kept['name']} then, {now['name']} now")
    config = kept.get("config")
    if isinstance(config, dict) and config.get("digest") != now["config"]["digest"]:
        out.append(
            f"config: {config.get('path')} (sha256 {str(config.get('digest'))[:12]}) then, "
            f"{now['config']['path']} (sha256 {now['config']['digest'][:12]}) now"
        )
    base = kept.get("base")
    if isinstance(base, dict) and base != now["base"]:
        said = [f"{b.get('name')} {b.get('version')} (sha256 {str(b.get('digest'))[:12]})"
                for b in (base, now["base"])]  # fmt: skip
        out.append(f"base: {said[0]} then, {said[1]} now")
    confidence = kept.get("min_confidence", now["min_confidence"])
    if confidence != now["min_confidence"]:
        out.append(f"min confidence: {confidence} then, {now['min_confidence']} now")
    return out


def _check_add_to(out_dir: Path, about: dict) -> list[str]:
    manifest = read_manifest(out_dir)
    if manifest is None or not (out_dir / TABLES / PAPERS).is_dir():
        raise BuildError(
            f"--add-to {out_dir}: no kg build with extraction tables there (a build of kg "
            f"{__version__} writes {TABLES}/); build it first without --add-to"
        )
    differ = _differences(manifest.get("pipeline") or {}, about)
    if differ:
        raise BuildError(
            f"--add-to {out_dir}: that build's papers were extracted otherwise "
            f"({'; '.join(differ)}), so new papers would not be extracted alike. Use the "
            "same settings (leave out --pipeline, --config and --base to take the build's "
            "own), or build everything afresh"
        )
    return list(manifest.get("inputs") or [])


def _extracted_count(tables: Path) -> int:
    """Papers in the complete extraction shards under ``tables`` (0 when unreadable)."""
    import pyarrow.parquet as pq

    try:
        shards = [f for f in shard_files(tables / PAPERS) if not f.name.startswith(PREVIOUS)]
        return sum(pq.ParquetFile(f).metadata.num_rows for f in shards)
    except OSError:
        return 0


def _drop_exports(tmp: Path) -> None:
    """Remove what a failed or killed build had exported into ``tmp`` (all but the tables
    and the resume state): a resumed build writes every export afresh."""
    for entry in tmp.iterdir():
        if entry.name not in (TABLES, RESUME_STATE):
            shutil.rmtree(entry) if entry.is_dir() else entry.unlink()


def _kept(out_dir: Path) -> str:
    if out_dir.exists():
        return f"the previous output in {out_dir} is unchanged"
    return f"nothing was written to {out_dir}"


def _build_into(
    tmp: Path,
    summary: BuildSummary,
    extract_papers: Callable[[Path], None],
    *,
    on_stage: Callable[[str], None],
    exporters,
    options: ExportOptions,
    curation=None,
    duckdb_memory: str = DUCKDB_MEMORY,
) -> None:
    """Extract with ``extract_papers(tables)`` (:func:`_extract_new_papers` with the
    build's settings), then resolve and write the exports into ``tmp``."""
    timings = summary.timings
    tables = tmp / TABLES
    tables.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    extract_papers(tables)
    release_memory()
    timings["nlp"] = time.perf_counter() - t0
    if not shard_files(tables / PAPERS):
        return  # no paper at all: build() says so

    on_stage("resolving names across papers")
    t0 = time.perf_counter()
    spill = tmp / ".spill"
    with duckdb_connection(spill, memory=duckdb_memory) as con:
        resolution = resolve_table(
            con, f"read_parquet('{glob_of(tables / LOCALS)}')", tables / ENTITIES,
            curation=curation,
        )  # fmt: skip
    if resolution.curated is not None:
        _write_curation_log(resolution.curated, curation.path, tables / CURATION_LOG)
        stale = resolution.curated.stale
        summary.notes.append(
            f"curation {curation.path}: {len(resolution.curated.log) - len(stale)} entries "
            f"changed the graph, {len(stale)} matched nothing"
            + (": " + "; ".join(e["entry"] for e in stale[:5]) if stale else "")
            + " (report.md lists them)"
        )
    summary.merges = len(resolution.merges)
    timings["resolve"] = time.perf_counter() - t0
    release_memory()

    on_stage("writing extractions.jsonl and the graph's tables")
    t0 = time.perf_counter()
    summary.papers += write_graph_tables(
        tmp, resolution, jsonl="jsonl" in exporters, spill=spill, memory=duckdb_memory
    )
    timings["graph+jsonl"] = time.perf_counter() - t0
    release_memory()

    source = GraphTables(tables)
    labels, types = source.label_counts(), source.type_counts()
    summary.entity_counts = {k: labels.get(k, 0) for k in ("Paper", *ENTITY_TYPES, "Result")}
    summary.relation_counts = dict(types)
    summary.results = labels.get("Result", 0)
    summary.nodes, summary.edges = sum(labels.values()), sum(types.values())

    for name, exporter in GRAPH_EXPORTERS.items():
        if name not in exporters:
            continue
        on_stage(exporter.stage)
        t0 = time.perf_counter()
        summary.notes += exporter.write(source, tmp, options).notes
        timings[name] = time.perf_counter() - t0
        release_memory()
    if "report" in exporters:
        on_stage("writing report.md")
        t0 = time.perf_counter()
        from kg.exporters import report

        report.write_report(source, summary, resolution, tmp / "report.md")
        timings["report"] = time.perf_counter() - t0
