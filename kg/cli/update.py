"""``kg update``: fetch what is new since the last update and add it to a build."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from kg.ingest.sources.endpoints import HF_URL, OAI_URL

from ._exports import (
    LadybugEvidenceMax,
    LadybugForwardOnlyAbove,
    LadybugMemory,
    LadybugMemoryMax,
    LadybugTextMax,
    export_options,
)
from ._neo4j import neo4j_settings
from ._output import progress, say_note, say_skipped, stderr, stdout
from .fetch import Contact, Delay, Retries, parse_date, print_fetch_summary


class SourceName(StrEnum):
    arxiv = "arxiv"
    hf_daily = "hf-daily"


OutDirOption = Annotated[Path, typer.Argument(help="The build to keep current (from `kg build`).")]

SourceOption = Annotated[SourceName, typer.Option(help="Where new papers come from.")]

CategoryOption = Annotated[
    list[str] | None, typer.Option(help="With arxiv: category, repeatable (cs.CL, cs.LG).")
]

DateFromOption = Annotated[
    str | None,
    typer.Option("--from", help="First date (default: the last update's last date)."),
]

DateUntilOption = Annotated[
    str | None, typer.Option("--until", help="Last date (default: today, UTC).")
]

BaseUrlOption = Annotated[str | None, typer.Option(help="The source's endpoint.")]

JobsOption = Annotated[int, typer.Option("-j", "--jobs", min=1, help="NLP worker processes.")]

Neo4jOption = Annotated[
    bool, typer.Option("--neo4j", help="Also load the added and changed papers into Neo4j.")
]

UriOption = Annotated[str | None, typer.Option(help="Bolt URI (env NEO4J_URI).")]

UsernameOption = Annotated[str | None, typer.Option("--user", help="Neo4j user.")]

PasswordOption = Annotated[
    str | None, typer.Option(help="Neo4j password (env NEO4J_PASSWORD).", show_default=False)
]

DatabaseOption = Annotated[str | None, typer.Option(help="Neo4j database.")]


def update(
    out_dir: OutDirOption,
    source: SourceOption = SourceName.arxiv,
    category: CategoryOption = None,
    date_from: DateFromOption = None,
    date_until: DateUntilOption = None,
    base_url: BaseUrlOption = None,
    delay: Delay = None,
    retries: Retries = 5,
    contact: Contact = None,
    jobs: JobsOption = 1,
    neo4j: Neo4jOption = False,
    uri: UriOption = None,
    username: UsernameOption = None,
    password: PasswordOption = None,
    database: DatabaseOption = None,
    ladybug_memory_mb: LadybugMemory = None,
    ladybug_memory_max_mb: LadybugMemoryMax = None,
    ladybug_text_max_papers: LadybugTextMax = None,
    ladybug_evidence_max_papers: LadybugEvidenceMax = None,
    ladybug_forward_only_above_mb: LadybugForwardOnlyAbove = None,
) -> None:
    """Fetch what is new since the last update and add it to a build.

    Only new or changed papers are extracted, with the build's own settings (pipeline,
    config, base pipeline, minimum confidence, curation file: kg-build.json keeps each by
    path and digest); the build's exports are written again (and, with --neo4j, the
    change is loaded into Neo4j). Run it from beside the build, not inside it.

    The fetched files are kept in OUT.updates/; the build's kg-build.json lists every
    update. Running it again at once changes nothing. The first update of a build needs
    --from.

    Examples:

        kg update ml --category cs.CL --category cs.LG --from 2026-12-01

        15 6 * * *  cd ~/graphs && kg update ml --category cs.CL --neo4j    (a crontab line)
    """
    from kg.ingest.sources import PoliteClient, Politeness, user_agent
    from kg.orchestrate.update import update as run_update

    make_source, wait = _source(source, category, base_url, delay)
    driver = None
    if neo4j:
        from kg.exporters.neo4j import connect

        settings = neo4j_settings(uri=uri, username=username, password=password, database=database)
        driver = connect(settings)
    politeness = Politeness(delay=wait, retries=retries, user_agent=user_agent(contact))
    try:
        with PoliteClient(politeness) as client:
            summary = run_update(
                out_dir,
                make_source,
                client,
                date_from=parse_date(date_from, "--from"),
                date_until=parse_date(date_until, "--until"),
                n_process=jobs,
                neo4j_driver=driver,
                neo4j_database=database,
                on_page=_say_page,
                progress=progress,
                on_skip=say_skipped,
                on_note=say_note,
                export_options=export_options(
                    ladybug_memory_mb,
                    ladybug_memory_max_mb,
                    ladybug_text_max_papers,
                    ladybug_evidence_max_papers,
                    ladybug_forward_only_above_mb,
                ),
            )
    finally:
        if driver is not None:
            driver.close()
    _print_update(summary, out_dir)


def _say_page(page, summary) -> None:
    stderr.print(f"page {summary.pages}: {len(page.records)} records", highlight=False)


def _source(source: SourceName, category: list[str] | None, base_url: str | None,
            delay: float | None):  # fmt: skip
    """``make_source(since, until)`` for the feed asked for, and the delay between its pages."""
    from kg.ingest.sources import ArxivOai, HfDaily

    if source is SourceName.arxiv:
        url, cats = base_url or OAI_URL, tuple(category or ())

        def arxiv(since: str, until: str):
            return ArxivOai(cats, since, until, base_url=url)

        return arxiv, 3.0 if delay is None else delay
    if category:
        raise typer.BadParameter("--category is for --source arxiv")
    url = base_url or HF_URL

    def daily(since: str, until: str):
        return HfDaily(since, until, base_url=url)

    return daily, 1.0 if delay is None else delay


def _print_update(summary, out_dir: Path) -> None:
    """Print what was fetched, added, replaced and loaded."""
    print_fetch_summary(summary.fetched)
    if summary.build is None:
        stdout.print(
            f"{out_dir}: no new or changed papers from {summary.date_from} to "
            f"{summary.date_until} ({summary.unchanged} fetched papers already there); "
            "the build is unchanged",
            highlight=False,
        )
        return
    stdout.print(
        f"{out_dir}: added {len(summary.new)} papers, replaced {len(summary.replaced)} "
        f"changed ones, {summary.unchanged} already there "
        f"({summary.date_from} to {summary.date_until})",
        highlight=False,
    )
    for paper_id in summary.new:
        stdout.print(f"  added    {paper_id}", highlight=False)
    for paper_id in summary.replaced:
        stdout.print(f"  replaced {paper_id}", highlight=False)
    if summary.neo4j is not None:
        load = summary.neo4j
        stdout.print(
            f"Neo4j: created {sum(load.nodes_created.values())} nodes and "
            f"{sum(load.relationships_created.values())} relationships; set the leaderboard "
            f"of {summary.boards_refreshed} results of other papers anew",
            highlight=False,
        )
