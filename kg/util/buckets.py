"""CSV files of rows grouped into buckets, written as the rows stream in (bounded memory)."""

from __future__ import annotations

import csv
import zlib
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

__all__ = ["CsvBuckets", "bucket_of"]


def bucket_of(key: str, buckets: int) -> int:
    """The bucket of ``key`` among ``buckets`` (the same in every run: CRC-32)."""
    return zlib.crc32(key.encode("utf-8")) % buckets


class CsvBuckets:
    """CSV files of rows grouped by (bucket, part), written as rows stream in: rows wait in
    memory, at most ``memory_rows`` in all, and are then appended to their files, so the
    number of buckets does not bound how many files may be open."""

    def __init__(self, directory: Path, stem: str, header: list[str], *, memory_rows: int):
        self.directory, self.stem, self.header = directory, stem, header
        self.memory_rows = memory_rows
        self._pending: dict[tuple[int, Any], list[list[Any]]] = defaultdict(list)
        self._files: dict[tuple[int, Any], Path] = {}
        self._rows: dict[tuple[int, Any], int] = defaultdict(int)
        self._held = 0

    def add(self, bucket: int, part: Any, row: list[Any]) -> None:
        self._pending[(bucket, part)].append(row)
        self._held += 1
        if self._held >= self.memory_rows:
            self._write()

    def _write(self) -> None:
        for where, rows in self._pending.items():
            file = self._files.get(where)
            new = file is None
            if new:
                file = self._files[where] = self.directory / f"{self.stem}.{len(self._files)}.csv"
            with open(file, "a", encoding="utf-8", newline="") as fh:
                writer = csv.writer(fh)
                if new:
                    writer.writerow(self.header)
                writer.writerows(rows)
            self._rows[where] += len(rows)
        self._pending.clear()
        self._held = 0

    def sizes(self) -> dict[Any, int]:
        """Return the bytes written so far per part (all buckets together)."""
        self._write()
        out: dict[Any, int] = defaultdict(int)
        for (_, part), file in self._files.items():
            out[part] += file.stat().st_size
        return dict(out)

    def files(self) -> Iterator[tuple[Any, Path, int]]:
        """Yield ``(part, file, rows)`` bucket by bucket (parts in the order first seen),
        then forget them; the caller copies and may delete each file."""
        self._write()
        for where, file in sorted(self._files.items(), key=lambda item: item[0][0]):
            yield where[1], file, self._rows[where]
        self._files.clear()
        self._rows.clear()
