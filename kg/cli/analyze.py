"""``kg analyze`` and ``kg viz``: reports, plots and an interactive page for a build."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ._output import stdout


def analyze(
    out_dir: Annotated[Path, typer.Argument(help="A build directory (from `kg build`).")],
    fmt: Annotated[str, typer.Option("--format", help="md, json or html.")] = "md",
    to: Annotated[
        Path | None,
        typer.Option("-o", "--to", help="Where to write (default: OUT_DIR/analysis)."),
    ] = None,
    top: Annotated[int, typer.Option(min=1, help="Rows per top-entities table.")] = 10,
    force: Annotated[
        bool, typer.Option("--force", help="Replace a folder kg analyze did not write.")
    ] = False,
) -> None:
    """Write an analysis of a build: top entities (papers, PageRank), degree distribution,
    communities, leaderboards, who outperforms whom, trends per year, curation lists;
    with PNG plots. The folder is replaced whole; one kg did not write is refused unless
    --force, and a build's own files never.

    Example:

        kg analyze out --format html
    """
    from kg.analytics.report import FORMATS, write_analysis
    from kg.build.outdir import check_output_folder, write_folder
    from kg.exporters.jsonio import read_build_graph

    if fmt not in FORMATS:
        raise typer.BadParameter(f"--format must be one of {', '.join(FORMATS)}")
    target = to or Path(out_dir) / "analysis"
    check_output_folder(target, force=force, tool="kg analyze", option="--to")
    G = read_build_graph(out_dir)

    def write(folder: Path) -> list[Path]:
        return [f.relative_to(folder) for f in write_analysis(G, folder, fmt, top)]

    files = [target / f for f in write_folder(target, "kg analyze", write)]
    stdout.print(f"wrote {files[0]} and {len(files) - 1} plots in {target / 'plots'}")


def viz(
    out_dir: Annotated[Path, typer.Argument(help="A build directory (from `kg build`).")],
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="HTML file (default: OUT_DIR/graph.html).")
    ] = None,
    show: Annotated[int, typer.Option(min=1, help="Nodes drawn at first (most papers).")] = 300,
    max_nodes: Annotated[
        int, typer.Option(min=1, help="Nodes in the page; 'show more' draws up to this many.")
    ] = 5000,
    title: Annotated[str, typer.Option(help="Page title.")] = "kg graph",
    force: Annotated[
        bool, typer.Option("--force", help="Replace a file kg viz did not write.")
    ] = False,
) -> None:
    """Write one self-contained HTML page that draws the graph: colour per type, size by
    papers, a search box, type filters, and a click shows aliases, papers and evidence.
    A file kg viz did not write is not replaced unless --force; a build's own files never.

    Example:

        kg viz out -o graph.html
    """
    from kg.build.outdir import check_output_file
    from kg.exporters.jsonio import read_build_graph
    from kg.viz.html import read_sentences, write_html, written_by_viz

    target = output or Path(out_dir) / "graph.html"
    check_output_file(target, force=force, ours=written_by_viz, option="-o")
    G = read_build_graph(out_dir)
    jsonl = Path(out_dir) / "extractions.jsonl"
    sentences = None
    if jsonl.is_file():
        papers = {d["paper_id"] for _, d in G.nodes(data=True) if d["label"] == "Paper"}
        sentences = read_sentences(jsonl, papers)
    path = write_html(
        G,
        target,
        show=show,
        max_nodes=max_nodes,
        sentences=sentences,
        title=title,
    )
    stdout.print(f"wrote {path} ({path.stat().st_size / 1e6:.1f} MB)")
