"""Where the CLI writes: results to stdout, progress and warnings to stderr."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

stdout = Console()
stderr = Console(stderr=True)


def print_json(data: Any) -> None:
    """Print ``data`` as JSON on stdout."""
    print(json.dumps(data, indent=2, ensure_ascii=False, default=str))


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
