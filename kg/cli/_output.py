"""Where the CLI writes: results to stdout, progress and warnings to stderr."""

from __future__ import annotations

import csv
import json
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Annotated, Any, Literal

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from kg.ingest import Note, Skipped

# soft_wrap: messages stay on one line (``file:line: reason``) whatever the terminal width
stdout = Console(soft_wrap=True)
stderr = Console(stderr=True, soft_wrap=True)


MinConfidence = Annotated[
    float,
    typer.Option(
        "--min-confidence",
        min=0.0,
        max=1.0,
        help="Leave out relations less likely than this to be right (default: the floor "
        "above which relations are right 9 times in 10; 0 shows every one).",
    ),
]
"""The option of the commands that show relations (the default is
:data:`kg.schema.RELATION_FLOOR`)."""


def _json_text(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False, default=str)


def print_json(data: Any) -> None:
    """Print ``data`` as JSON on stdout."""
    print(_json_text(data))


SAVED_BY = "kg eval"
"""The ``tool`` key of the scores a command writes (``--out``): a file that has it may be
written over."""


def check_save(path: Path | None, force: bool, inputs: Iterable[Path | None] = ()) -> None:
    """Refuse ``--out PATH`` before any work when kg may not write it: see
    :func:`kg.orchestrate.outdir.check_output_file` and
    :func:`~kg.orchestrate.outdir.check_user_file` (never one of the command's ``inputs``,
    whatever ``force`` says)."""
    from kg.orchestrate.outdir import check_output_file, check_user_file

    if path is not None:
        check_output_file(path, force=force, ours=_saved_by_kg, option="-o/--out")
        check_user_file(path, inputs=[p for p in inputs if p is not None], option="-o/--out")


def _saved_by_kg(path: Path) -> bool:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and data.get("tool") == SAVED_BY


def save_json(data: Any, path: Path | None) -> None:
    """Write ``data`` (a dict) as JSON to ``path``, whole, marked as kg's (nothing when
    ``path`` is None; through a link, keeping the file's mode)."""
    from kg.util.files import write_user_file

    if path is not None:
        write_user_file(path, _json_text({"tool": SAVED_BY, **data}) + "\n")


def progress(items: Iterable, description: str = "Working", total: int | None = None) -> Iterable:
    """Wrap ``items`` in a progress display on stderr (a spinner when the total is unknown)."""
    columns = [
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[rate]}"),
    ]
    with Progress(*columns, console=stderr, transient=False, disable=not stderr.is_terminal) as bar:
        task = bar.add_task(description, total=total, rate="")
        for n, item in enumerate(items, start=1):
            yield item
            elapsed = bar.tasks[0].elapsed or 0
            bar.update(task, advance=1, rate=f"{n / elapsed:.1f}/s" if elapsed else "")


FORMATS = ("table", "json", "csv")

DEFAULT_BUILD = Path("kg-out")
"""The build a query command reads when none is named (``kg build``'s default output)."""


def build_or_default(given: list[str], stores: tuple[str, ...], usage: str) -> Path:
    """The build named before the query, else ./kg-out when it holds one of ``stores``
    (what the command reads); ``usage`` says how to name one."""
    if given:
        return Path(given[0])
    if any((DEFAULT_BUILD / store).exists() for store in stores):
        return DEFAULT_BUILD
    raise typer.BadParameter(usage)


OutputFormat = Annotated[
    Literal["table", "json", "csv"], typer.Option("--format", help="How to print the rows.")
]
"""The ``--format`` of the commands that print query rows."""

ParamOption = Annotated[
    list[str] | None, typer.Option("--param", "-p", help="NAME=VALUE, repeatable.")
]
"""The query parameters of ``kg cypher``, ``kg query`` and ``kg sparql``."""


def print_rows(columns: Sequence[str], rows: Iterable[Sequence[Any]], fmt: str = "table") -> None:
    """Print query rows on stdout as a table, a JSON list of objects, or CSV. A table
    leaves out the columns that are empty in every row (and says which on stderr), so that
    the others fit a terminal; JSON and CSV keep every column."""
    if fmt == "json":
        print_json([{c: _decoded(c, v) for c, v in zip(columns, row, strict=True)} for row in rows])
    elif fmt == "csv":
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows(rows)
    elif fmt == "table":
        from rich.table import Table

        cells = [["" if v is None else str(v) for v in row] for row in rows]
        kept = [i for i in range(len(columns)) if not cells or any(row[i] for row in cells)]
        if len(kept) < len(columns):
            empty = ", ".join(c for i, c in enumerate(columns) if i not in kept)
            stderr.print(f"note: left out the columns empty in every row: {empty} "
                         "(--format json or csv shows them)", highlight=False)  # fmt: skip
        table = Table(*(columns[i] for i in kept))
        for row in cells:
            table.add_row(*(row[i] for i in kept))
        stdout.print(table)
    else:
        raise ValueError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")


def print_saved_queries(queries: Iterable[Any]) -> None:
    """Print saved queries (``kg.query.SavedQuery``) as a table: name, title, parameters
    (``?`` marks those with a default)."""
    from rich.table import Table

    table = Table("name", "title", "parameters")
    for q in queries:
        params = ", ".join(p.name + ("" if p.required else "?") for p in q.params)
        table.add_row(q.name, q.title, params)
    stdout.print(table)


# Properties kg stores as JSON text (Neo4j and LadybugDB hold no lists of maps).
JSON_PROPERTIES = ("evidence",)


def _decoded(key: str, value: Any) -> Any:
    """``value`` with the JSON text of :data:`JSON_PROPERTIES` parsed, also inside nodes
    and relationships."""
    if isinstance(value, str) and key in JSON_PROPERTIES:
        try:
            return json.loads(value)
        except ValueError:
            return value
    if isinstance(value, dict):
        return {k: _decoded(k, v) for k, v in value.items()}
    if isinstance(value, list):
        return [_decoded(key, v) for v in value]
    return value


def parse_params(items: Iterable[str], examples: dict[str, Any] | None = None) -> dict[str, Any]:
    """Turn ``NAME=VALUE`` options into query parameters.

    A value takes the type of the parameter's example when one is known (int,
    float, bool); otherwise digits become an int and anything else stays a string.
    """
    examples = examples or {}
    out: dict[str, Any] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise typer.BadParameter(f"--param {item!r}: write NAME=VALUE")
        if not name.isidentifier():  # a query's parameter or variable is one word
            raise typer.BadParameter(
                f"--param {item!r}: {name!r} is no parameter name; NAME is letters, digits "
                "and _ (not starting with a digit)"
            )
        kind = type(examples[name]) if name in examples else None
        try:
            if kind is bool:
                if value.lower() not in {"true", "false"}:
                    raise ValueError("expected true or false")
                out[name] = value.lower() == "true"
            elif kind is int or (kind is None and value.lstrip("-").isdigit()):
                out[name] = int(value)
            elif kind is float:
                out[name] = float(value)
            else:
                out[name] = value
        except ValueError as exc:
            raise typer.BadParameter(f"--param {item!r}: {exc}") from exc
    return out


def renamed(old: str, new: str) -> None:
    """Say on stderr that an old spelling still works this release and what replaces it."""
    stderr.print(
        f"note: {old} is kept one release; write {new} instead", highlight=False, markup=False
    )


def say_note(note: Note) -> None:
    """Print what is said of a record that was kept on stderr."""
    stderr.print(f"[cyan]note[/] {escape(str(note))}", highlight=False, markup=True)


def say_skipped(skip: Skipped) -> None:
    """Print a skipped record or an ignored directory entry on stderr."""
    if skip.reason.startswith("ignored: "):
        where, why = skip.source, skip.reason.removeprefix("ignored: ")
        stderr.print(f"[dim]ignored[/] {where}: {why}", highlight=False, markup=True)
    else:
        stderr.print(f"[yellow]skipped[/] {skip}", highlight=False, markup=True)
