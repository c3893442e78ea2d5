"""``kg analyze`` and ``kg viz``: reports, plots and an interactive page for a build."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import typer

from kg.schema import RELATION_FLOOR

from ._output import MinConfidence, renamed, stdout


def _shown(G, floor: float) -> None:
    """Hide the relations below ``floor`` and say how many."""
    from kg.graph.assemble import hide_unsure_relations

    hidden = sum(hide_unsure_relations(G, floor).values())
    if hidden:
        stdout.print(f"left out {hidden:,} relations with confidence below {floor} "
                     "(--min-confidence 0 shows them)")  # fmt: skip


def analyze(
    out_dir: Annotated[Path, typer.Argument(help="A build directory (from `kg build`).")],
    fmt: Annotated[
        Literal["md", "json", "html"], typer.Option("--format", help="The report's format.")
    ] = "md",
    out: Annotated[
        Path | None,
        typer.Option("-o", "--out", help="Where to write (default: OUT_DIR/analysis)."),
    ] = None,
    top: Annotated[int, typer.Option(min=1, help="Rows per top-entities table.")] = 10,
    min_confidence: MinConfidence = RELATION_FLOOR,
    force: Annotated[
        bool, typer.Option("--force", help="Replace a folder kg analyze did not write.")
    ] = False,
    to: Annotated[Path | None, typer.Option("--to", hidden=True)] = None,
) -> None:
    """Write an analysis of a build: top entities, leaderboards, trends and plots.

    Top entities (papers, PageRank), degree distribution, communities, leaderboards, who
    outperforms whom, trends per year, curation lists; with PNG plots. The folder is
    replaced whole; one kg did not write is refused unless --force, and a build's own
    files never.

    Example:

        kg analyze out --format html
    """
    from kg.analytics.report import write_analysis
    from kg.exporters.jsonio import read_build_graph
    from kg.orchestrate.outdir import check_output_folder, write_folder

    if to is not None:
        renamed("--to", "-o/--out")
    target = out or to or Path(out_dir) / "analysis"
    check_output_folder(target, force=force, tool="kg analyze", option="-o/--out")
    G = read_build_graph(out_dir)
    _shown(G, min_confidence)

    def write(folder: Path) -> list[Path]:
        return [f.relative_to(folder) for f in write_analysis(G, folder, fmt, top)]

    files = [target / f for f in write_folder(target, "kg analyze", write)]
    stdout.print(f"wrote {files[0]} and {len(files) - 1} plots in {target / 'plots'}")


def viz(
    out_dir: Annotated[Path, typer.Argument(help="A build directory (from `kg build`).")],
    out: Annotated[
        Path | None, typer.Option("-o", "--out", help="HTML file (default: OUT_DIR/graph.html).")
    ] = None,
    initial_nodes: Annotated[
        int, typer.Option(min=1, help="Nodes drawn at first (those of most papers).")
    ] = 300,
    max_nodes: Annotated[
        int, typer.Option(min=1, help="Nodes in the page; 'show more' draws up to this many.")
    ] = 5000,
    title: Annotated[str, typer.Option(help="Page title.")] = "kg graph",
    min_confidence: MinConfidence = RELATION_FLOOR,
    force: Annotated[
        bool, typer.Option("--force", help="Replace a file kg viz did not write.")
    ] = False,
    output: Annotated[Path | None, typer.Option("--output", hidden=True)] = None,
    show: Annotated[int | None, typer.Option("--show", min=1, hidden=True)] = None,
) -> None:
    """Write an interactive view of the graph: one self-contained HTML page.

    Colour per type, size by papers, a search box, type filters; a click shows aliases,
    papers and evidence.
    A file kg viz did not write is not replaced unless --force; a build's own files never.

    Example:

        kg viz out -o graph.html
    """
    from kg.exporters.jsonio import read_build_graph
    from kg.orchestrate.outdir import check_output_file
    from kg.viz.html import read_sentences, write_html, written_by_viz

    if output is not None:
        renamed("--output", "-o/--out")
    if show is not None:
        renamed("--show", "--initial-nodes")
        initial_nodes = show
    target = out or output or Path(out_dir) / "graph.html"
    check_output_file(target, force=force, ours=written_by_viz, option="-o/--out")
    G = read_build_graph(out_dir)
    _shown(G, min_confidence)
    jsonl = Path(out_dir) / "extractions.jsonl"
    sentences = None
    if jsonl.is_file():
        papers = {d["paper_id"] for _, d in G.nodes(data=True) if d["label"] == "Paper"}
        sentences = read_sentences(jsonl, papers)
    path = write_html(
        G,
        target,
        show=initial_nodes,
        max_nodes=max_nodes,
        sentences=sentences,
        title=title,
    )
    stdout.print(f"wrote {path} ({path.stat().st_size / 1e6:.1f} MB)")
