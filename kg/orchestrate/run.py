"""``build``: abstracts in, every export out (ingest -> nlp -> resolve -> graph -> exporters)."""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from kg import __version__
from kg.errors import BuildError, ExportError, InputError, KgError
from kg.exporters.registry import EXPORTERS, OUTPUTS, RECORDS, Built, ExportOptions
from kg.graph.store import ENTITIES, TABLES, GraphTables
from kg.ingest import FieldMap
from kg.ingest.readers import InputFiles, list_inputs
from kg.orchestrate.curation import (
    CURATION_LOG,
    _read_curation,
    _write_curation_log,
    remembered_curation,
)
from kg.orchestrate.graph import write_graph_tables
from kg.orchestrate.options import ExtractOptions, Hooks, ResolveOptions, Target
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

_EXTRACT, _RESOLVE, _EXPORT, _HOOKS = ExtractOptions(), ResolveOptions(), ExportOptions(), Hooks()


def build(
    inputs: Iterable[str | Path],
    out: str | Path | Target,
    extract: ExtractOptions = _EXTRACT,
    resolve: ResolveOptions = _RESOLVE,
    export: ExportOptions = _EXPORT,
    hooks: Hooks = _HOOKS,
) -> BuildSummary:
    """Extract a knowledge graph from ``inputs`` and write every export into ``out``: a
    directory, or a :class:`Target` (``force``, ``add_to``, ``resume``).

    The outputs go into a temporary sibling directory that replaces the output only when
    everything is written, so a failed or killed build leaves the previous one as it was.
    The directory must be new, empty or an earlier build's; ``force`` replaces any other,
    but never one holding an input. A lock refuses a second build into the same place.
    ``add_to`` extracts only the papers the build there lacks or whose text changed, then
    resolves and exports everything, with the build's own pipeline and curation unless
    others are given; ``resume`` takes over the shards a killed build left.

    ``extract`` (:class:`ExtractOptions`), ``resolve`` (:class:`ResolveOptions`),
    ``export`` (:class:`~kg.exporters.registry.ExportOptions`) and ``hooks``
    (:class:`Hooks`) are what the CLI's flags set.

    Raises
    ------
    InputError
        An input path does not exist (nothing is read or written).
    OutputDirError
        The output directory may not be replaced, or another build holds its lock.
    BuildError
        No abstract could be read, or a stage failed; the old output is kept.
    """
    target = out if isinstance(out, Target) else Target(out)
    _check_options(extract, export)
    out_dir = Path(target.path)
    link = None
    if out_dir.is_symlink():  # written through: the folder it points to is the output
        link, out_dir = out_dir, Path(os.path.realpath(out_dir))
    listed = list_inputs(inputs)
    if listed.missing:
        raise InputError(listed.missing[0], None, "no such file or directory; check the path")
    given = [Path(f) for f in listed.files if f != "-"]
    check_output_dir(out_dir, given, force=target.force)
    plan = _plan(out_dir, target, extract, resolve, listed)
    if plan.inputs_given:
        given += plan.inputs_given
        check_output_dir(out_dir, given, force=target.force)
    if hooks.on_inputs is not None:
        hooks.on_inputs(listed)
    summary = BuildSummary(out_dir=out_dir, pipeline=plan.about["name"])
    if link is not None:
        summary.notes.append(f"{link} is a link to {out_dir}: the build was written there")
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    with locked(out_dir):
        check_output_dir(out_dir, given, force=target.force)  # again, now that no one else writes
        tmp = _partial(out_dir, target.resume, plan.state)
        try:
            extract_papers = partial(
                _extract_new_papers,
                summary=summary,
                inputs=listed,
                extract=extract,
                hooks=hooks,
                base=plan.about["base"]["name"],
                config=_config_to_load(plan.about),
                previous=out_dir if target.add_to else None,
            )
            _build_into(tmp, summary, extract_papers, hooks.on_stage or (lambda _: None),
                        export, plan.curation, resolve.duckdb_memory)  # fmt: skip
            _finish(tmp, out_dir, summary, plan)
        except BaseException as exc:
            if not isinstance(exc, Exception):
                raise  # an interrupt: the shards stay for --resume
            error = _failed(exc, tmp, out_dir)
            if error is exc:
                raise
            raise error from exc
    return summary


def _check_options(extract: ExtractOptions, export: ExportOptions) -> None:
    """Refuse an unknown output or a mistyped scheduler before anything is written."""
    unknown = set(export.outputs) - set(EXPORTERS)
    if unknown:
        raise ExportError(f"unknown exporter(s) {sorted(unknown)}; choose from {EXPORTERS}")
    if extract.scheduler is not None:
        from kg.nlp.running.distributed import parse_scheduler

        parse_scheduler(extract.scheduler)


@dataclass(frozen=True)
class _Plan:
    """What a build will do, settled before it starts: the pipeline's settings as the
    manifest keeps them, the state ``--resume`` checks, the curation to apply, the inputs
    and updates it carries over, and the files it must never delete."""

    about: dict
    state: dict
    curation: Any
    inputs: list[str]
    updates: list[dict]
    inputs_given: list[Path]


def _plan(out_dir: Path, target: Target, extract: ExtractOptions, resolve: ResolveOptions,
          listed: InputFiles) -> _Plan:  # fmt: skip
    manifest = read_manifest(out_dir) if target.add_to else None
    built = ((manifest or {}).get("pipeline") or {}) if target.add_to else {}
    about = _pipeline_settings(extract, built)
    previous_inputs: list[str] = []
    updates: list[dict] = []
    curation = resolve.curation
    if target.add_to:
        previous_inputs = _check_add_to(out_dir, about, manifest)
        updates = list(manifest.get("updates") or [])
        if curation is None:
            curation = remembered_curation(built)
    curated_by = _read_curation(curation, out_dir if target.add_to else None)
    given = []
    if curation:
        given.append(Path(curation))  # an input too: never deleted, whatever --force says
        about["curation"] = {"path": str(Path(curation).resolve()), "digest": curated_by.digest}
    if target.update is not None:
        updates.append(target.update)
    settings = {"version": __version__, **about, "max_chars": extract.max_chars,
                "fields": repr(extract.fields or FieldMap())}  # fmt: skip
    state = {**settings, "inputs": listed.files, "add_to": target.add_to,
             "curation": about.get("curation")}  # fmt: skip
    inputs = list(dict.fromkeys([*previous_inputs, *listed.files]))
    return _Plan(about, state, curated_by, inputs, updates, given)


def _partial(out_dir: Path, resume: bool, state: dict) -> Path:
    """The temporary directory the build writes into: a killed build's, taken over with
    ``resume`` (same state), else a fresh one."""
    tmp = partial_dir(out_dir)
    if resume and tmp.is_dir():
        _check_resume(tmp, state)
        _complete_shards(tmp / TABLES)
        _drop_exports(tmp)
    elif tmp.exists():
        shutil.rmtree(tmp)  # an interrupted build's, not resumed: start afresh
    tmp.mkdir(exist_ok=True)
    (tmp / RESUME_STATE).write_text(json.dumps(state, indent=2) + "\n", encoding="utf-8")
    return tmp


def _finish(tmp: Path, out_dir: Path, summary: BuildSummary, plan: _Plan) -> None:
    """Check the build read something, write its manifest and put it in place."""
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
    write_manifest(
        tmp, version=__version__, inputs=plan.inputs, pipeline=plan.about, updates=plan.updates
    )
    summary.files = sorted(p.name for p in tmp.iterdir())
    removed = derived_files(out_dir) if out_dir.is_dir() else []
    replace_dir(tmp, out_dir)
    if removed:
        summary.notes.append(
            f"removed {', '.join(removed)} of the previous build: they showed the old "
            "graph (write them again with kg viz, kg analyze or kg export)"
        )


def _failed(exc: Exception, tmp: Path, out_dir: Path) -> Exception:
    """The error a failed build raises; what it extracted stays for ``--resume`` unless
    the disk is full."""
    if no_space(exc):  # what was written keeps the disk full: it goes
        shutil.rmtree(tmp, ignore_errors=True)
        return BuildError(
            f"the build failed: no space left on the device holding {tmp.parent} "
            f"(mounted at {mount_point(tmp.parent)}); the partial output was "
            f"removed; {_kept(out_dir)}. Free some space, or write elsewhere (-o DIR)"
        )
    extracted = _extracted_count(tmp / TABLES)
    if not extracted:
        shutil.rmtree(tmp, ignore_errors=True)
    if isinstance(exc, BuildError) and not extracted:
        return exc
    why = str(exc) if isinstance(exc, KgError) else f"{type(exc).__name__}: {exc}"
    if extracted:  # hours of extraction are not thrown away for an export's error
        why += (
            f"; the {extracted:,} papers extracted are kept in {tmp}, and the same "
            "command with --resume exports them without extracting them again"
        )
    return BuildError(f"the build failed ({why}); {_kept(out_dir)}")


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


def _pipeline_settings(extract: ExtractOptions, built: dict) -> dict:
    """What extracts the papers, as the manifest keeps it: the pipeline's name, its config
    (absolute path and digest), the base pipeline (name, version, digest) and the minimum
    confidence. With ``--add-to`` (``built``: the build's own), what is not given is the
    build's."""
    from kg.nlp.pipeline import PIPELINES, base_settings, pipeline_config

    pipeline, config, base = extract.pipeline, extract.config, extract.base
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
        "min_confidence": extract.min_confidence,
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


def _check_add_to(out_dir: Path, about: dict, manifest: dict | None) -> list[str]:
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
    on_stage: Callable[[str], None],
    export: ExportOptions,
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
            con, f"read_parquet('{glob_of(tables / LOCALS)}', union_by_name = true)",
            tables / ENTITIES,
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

    on_stage("writing the papers' records and the graph's tables")
    t0 = time.perf_counter()
    records = tmp / RECORDS
    summary.papers += write_graph_tables(
        tmp, resolution, records=records, spill=spill, memory=duckdb_memory
    )
    timings["graph"] = time.perf_counter() - t0
    release_memory()

    source = GraphTables(tables)
    labels, types = source.label_counts(), source.type_counts()
    summary.entity_counts = {k: labels.get(k, 0) for k in ("Paper", *ENTITY_TYPES, "Result")}
    summary.relation_counts = dict(types)
    summary.results = labels.get("Result", 0)
    summary.nodes, summary.edges = sum(labels.values()), sum(types.values())

    built = Built(source, records, summary, resolution)
    for name, exporter in OUTPUTS.items():
        if name not in export.outputs:
            continue
        on_stage(exporter.stage)
        t0 = time.perf_counter()
        summary.notes += exporter.write(built, tmp, export).notes
        timings[name] = time.perf_counter() - t0
        release_memory()
    records.unlink(missing_ok=True)  # not asked for as extractions.jsonl
