"""``kg fetch``: papers from arXiv or Hugging Face Daily Papers into JSON Lines."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from kg.ingest.sources.endpoints import HF_URL, OAI_URL, QUERY_URL

if TYPE_CHECKING:
    from kg.ingest.sources import FetchSummary, Page, Source

from ._help import KgCommand, KgHelpGroup
from ._output import stderr, stdout

app = typer.Typer(
    help="Fetch fresh papers (arXiv, Hugging Face Daily Papers) into JSON Lines for kg build."
    "\n\nEvery source is asked politely (one connection, a delay between requests, Retry-After "
    "honoured) and resumably: a fetch that stops is run again with the same arguments and "
    "goes on where it stopped, never writing a paper twice.",
    no_args_is_help=True,
    cls=KgHelpGroup,
)

Out = Annotated[
    Path,
    typer.Option("-o", "--out", help="JSON Lines file to write (the input of kg build)."),
]
Delay = Annotated[
    float | None,
    typer.Option(min=0, help="Seconds between requests (arXiv asks for 3; default per source)."),
]
Retries = Annotated[
    int, typer.Option(min=0, help="Tries again after a 503, a timeout or a dropped connection.")
]
Force = Annotated[
    bool, typer.Option("--force", help="Replace --out if it exists (and holds no fetch state).")
]
Contact = Annotated[
    str | None,
    typer.Option(
        envvar="KG_CONTACT", help="An e-mail address for the User-Agent, as arXiv asks of bots."
    ),
]


def parse_date(value: str | None, option: str) -> str | None:
    if value is None:
        return None
    try:
        return dt.date.fromisoformat(value).isoformat()
    except ValueError:
        raise typer.BadParameter(
            f"{value!r} is not a date (YYYY-MM-DD)", param_hint=option
        ) from None


def run_fetch(
    source: Source,
    out: Path,
    *,
    delay: float,
    retries: int,
    force: bool,
    contact: str | None,
) -> FetchSummary:
    """Fetch ``source`` into ``out`` with a progress line per page; print the summary."""
    from kg.ingest.sources import PoliteClient, Politeness, fetch_to_file, user_agent
    from kg.orchestrate.outdir import check_not_in_build

    check_not_in_build(out, "-o")

    politeness = Politeness(delay=delay, retries=retries, user_agent=user_agent(contact))

    def on_page(page: Page, summary: FetchSummary) -> None:
        total = f" of {page.total}" if page.total else ""
        stderr.print(
            f"page {summary.pages}: {len(page.records)} records{total}; "
            f"{summary.written} papers in {out}",
            highlight=False,
        )

    with PoliteClient(politeness) as client:
        summary = fetch_to_file(source, out, client, force=force, on_page=on_page)
    print_fetch_summary(summary)
    return summary


def print_fetch_summary(summary: FetchSummary) -> None:
    """Say what a fetch wrote, and what it left out and why."""
    for skipped in summary.malformed:
        stderr.print(f"skipped {skipped}", highlight=False, markup=False)
    parts = [f"{summary.pages} pages, {summary.requests} requests"]
    if summary.retries:
        parts.append(f"{summary.retries} retried")
    if summary.resumed:
        parts.append("resumed an unfinished fetch")
    notes = []
    if summary.duplicates:
        notes.append(f"{summary.duplicates} given twice (written once)")
    if summary.updated:
        notes.append(f"{len(summary.updated)} given again changed (newer record kept)")
    if summary.malformed:
        notes.append(f"{len(summary.malformed)} malformed records left out (listed above)")
    if summary.dropped:
        notes.append(f"{summary.dropped} of other categories left out")
    stdout.print(
        f"wrote {summary.written} papers to {summary.out} ({', '.join(parts)})"
        + ("; " + "; ".join(notes) if notes else ""),
        highlight=False,
    )


@app.command("arxiv", cls=KgCommand)
def arxiv_cmd(
    out: Out,
    category: Annotated[
        list[str] | None,
        typer.Option(help="arXiv category, repeatable (cs.CL, cs.LG, stat.ML; an archive: cs)."),
    ] = None,
    date_from: Annotated[
        str | None, typer.Option("--from", help="First datestamp to harvest (YYYY-MM-DD).")
    ] = None,
    date_until: Annotated[
        str | None, typer.Option("--until", help="Last datestamp to harvest (default: today).")
    ] = None,
    query: Annotated[
        str | None,
        typer.Option(
            help='Search the query API instead, e.g. "all:retrieval augmented" or '
            '"cat:cs.CL AND ti:transformer" (newest first).'
        ),
    ] = None,
    max_results: Annotated[
        int, typer.Option("--max", min=1, help="With --query: at most this many papers.")
    ] = 100,
    base_url: Annotated[
        str | None,
        typer.Option(help=f"Endpoint (default: OAI-PMH {OAI_URL}; with --query {QUERY_URL})."),
    ] = None,
    delay: Delay = None,
    retries: Retries = 5,
    force: Force = False,
    contact: Contact = None,
) -> None:
    """Harvest arXiv by category and date (OAI-PMH), or search it (the query API).

    Without --query, ListRecords of OAI-PMH (metadataPrefix=arXiv) is paged with its
    resumption tokens: every paper of the categories whose record changed between --from
    and --until, new versions included. With --query, the query API's Atom feed is paged
    (100 per request). Records carry id (no version), version (query API only), title,
    abstract (LaTeX as written), authors, categories, dates and URL.

    Examples:

        kg fetch arxiv --category cs.CL --category cs.LG --from 2026-11-01 -o nov.jsonl

        kg fetch arxiv --query "all:retrieval augmented" --max 200 -o rag.jsonl
    """
    from kg.ingest.sources import ArxivOai, ArxivQuery

    if query is not None:
        if date_from or category:
            raise typer.BadParameter("--query searches; it does not take --category or --from")
        source: Source = ArxivQuery(query, max_results, base_url=base_url or QUERY_URL)
    else:
        if date_from is None:
            raise typer.BadParameter("give --from DATE (or --query for a search)")
        until = parse_date(date_until, "--until") or dt.date.today().isoformat()
        source = ArxivOai(
            tuple(category or ()),
            parse_date(date_from, "--from"),
            until,
            base_url=base_url or OAI_URL,
        )
    run_fetch(source, out, delay=3.0 if delay is None else delay, retries=retries,
              force=force, contact=contact)  # fmt: skip


@app.command("hf-daily", cls=KgCommand)
def hf_daily_cmd(
    out: Out,
    date: Annotated[str | None, typer.Option(help="One day (YYYY-MM-DD).")] = None,
    date_from: Annotated[str | None, typer.Option("--from", help="First day of a range.")] = None,
    date_until: Annotated[
        str | None, typer.Option("--until", help="Last day of the range (default: --from).")
    ] = None,
    base_url: Annotated[str, typer.Option(help="The Daily Papers API endpoint.")] = HF_URL,
    delay: Delay = None,
    retries: Retries = 5,
    force: Force = False,
    contact: Contact = None,
) -> None:
    """Fetch Hugging Face Daily Papers: id, title, abstract, authors and upvotes.

    One request per day. Upvotes are kept with each paper (kg build puts them on the
    Paper node, for ranking).

    Example:

        kg fetch hf-daily --date 2026-11-30 -o hf.jsonl
    """
    if (date is None) == (date_from is None):
        raise typer.BadParameter("give either --date DAY or --from DAY [--until DAY]")
    first = parse_date(date or date_from, "--date" if date else "--from")
    last = parse_date(date_until, "--until") if date_from else first
    from kg.ingest.sources import HfDaily

    source = HfDaily(first, last, base_url=base_url)
    run_fetch(source, out, delay=1.0 if delay is None else delay, retries=retries,
              force=force, contact=contact)  # fmt: skip
