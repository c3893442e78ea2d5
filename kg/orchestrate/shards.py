"""The tables a build streams its papers through, in shards: what is extracted, what an
earlier build or a killed one already holds, and what ``--add-to`` copies over."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Iterable, Iterator
from pathlib import Path

from kg.graph.store import TABLES
from kg.ingest import Note, Record, Skipped, read
from kg.nlp.extraction import (
    PaperExtraction,
    confident,
    extraction_from_dict,
    extraction_to_dict,
)
from kg.orchestrate.options import PAPERS_PER_SHARD, ExtractOptions, Hooks
from kg.orchestrate.summary import BuildSummary
from kg.resolve import local_entities
from kg.resolve.local import LocalEntity, entities_of_rows, local_rows, locals_schema
from kg.util.arrow import arrow_type
from kg.util.tables import shard_files, write_table

PAPERS = "papers"
LOCALS = "locals"


def papers_schema():
    """The papers table: each paper's id, the digest of what was extracted (its title and
    text) and its extraction, a struct column of :class:`~kg.nlp.extraction.PaperExtraction`."""
    import pyarrow as pa

    return pa.schema([("id", pa.string()), ("digest", pa.string()),
                      ("extraction", arrow_type(PaperExtraction))])  # fmt: skip


def record_digest(record: Record) -> str:
    """Return the digest of what extraction reads from a record (its title and text), which
    tells a changed abstract (a new arXiv version) from the one already extracted."""
    text = f"{record.title or ''}\n{record.text}"
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


def paper_digests(tables: Path) -> dict[str, str]:
    """Return ``{paper id: digest}`` of the papers extracted into the tables at ``tables``."""
    import pyarrow.parquet as pq

    out: dict[str, str] = {}
    for shard in shard_files(tables / PAPERS):
        t = pq.read_table(shard, columns=["id", "digest"])
        out.update(zip(t.column("id").to_pylist(), t.column("digest").to_pylist(), strict=True))
    return out


def _complete_shards(tables: Path) -> None:
    """Keep only shards present in both the papers and the locals table (a killed build may
    have written the locals of a shard and not its papers) and drop everything derived."""
    papers = {p.name for p in shard_files(tables / PAPERS)}
    for shard in shard_files(tables / LOCALS):
        if shard.name not in papers:
            shard.unlink()
    locals_ = {p.name for p in shard_files(tables / LOCALS)}
    for shard in shard_files(tables / PAPERS):
        if shard.name not in locals_:
            shard.unlink()
    for entry in tables.iterdir() if tables.is_dir() else ():
        if entry.name not in (PAPERS, LOCALS):
            shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
    for name in (PAPERS, LOCALS):  # an --add-to build copies these again at its end
        for shard in shard_files(tables / name):
            if shard.name.startswith(PREVIOUS):
                shard.unlink()


class _ShardedExtractions:
    """Write extractions and their local entities in numbered shards of
    ``papers_per_shard`` papers. A shard's locals file is written before its papers file,
    so a papers shard on disk is a complete one."""

    def __init__(self, tables: Path, papers_per_shard: int = PAPERS_PER_SHARD) -> None:
        self.tables = tables
        self.papers_per_shard = papers_per_shard
        numbers = [_shard_number(p) for p in shard_files(tables / PAPERS)]
        self.next = max((n for n in numbers if n is not None), default=-1) + 1
        self.papers: list[dict] = []
        self.locals: list[dict] = []

    def add(self, ex: PaperExtraction, digest: str) -> None:
        self.papers.append({"id": ex.record.id, "digest": digest,
                            "extraction": extraction_to_dict(ex)})  # fmt: skip
        self.locals += local_rows(ex.record.id, local_entities(ex))
        if len(self.papers) >= self.papers_per_shard:
            self.flush()

    def flush(self) -> None:
        if not self.papers:
            return
        name = f"part-{self.next:05d}.parquet"
        write_table(self.tables / LOCALS / name, self.locals, locals_schema())
        write_table(self.tables / PAPERS / name, self.papers, papers_schema())
        self.next += 1
        self.papers, self.locals = [], []


def _shard_number(path: Path) -> int | None:
    stem = path.name.removeprefix("part-").removesuffix(".parquet")
    return int(stem) if stem.isdigit() else None


PREVIOUS = "part-prev-"
"""Name prefix of the shards an ``--add-to`` build copies from the build it adds to."""


def _ordered(shards: list[Path]) -> list[Path]:
    """Shards in the order their papers go out: the build added to first, then the new."""
    return sorted(shards, key=lambda p: (not p.name.startswith(PREVIOUS), p.name))


def _extractions(tables: Path) -> Iterator[tuple[PaperExtraction, list[LocalEntity]]]:
    """Yield the extractions stored in the tables, shard by shard, each with the local
    entities stored beside it (grouped again where an older build did not store them)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    for shard in _ordered(shard_files(tables / PAPERS)):
        stored = _stored_locals(tables / LOCALS / shard.name)
        for batch in pq.ParquetFile(shard).iter_batches(batch_size=500, columns=["extraction"]):
            column = batch.column(0)
            as_text = pa.types.is_string(column.type)  # an older build kept JSON text
            for value in column.to_pylist():
                ex = extraction_from_dict(json.loads(value) if as_text else value)
                if stored is None:
                    yield ex, local_entities(ex)
                else:
                    yield ex, entities_of_rows(stored.get(ex.record.id, ()))


def _stored_locals(path: Path) -> dict[str, list[dict]] | None:
    """The rows of a locals shard by paper; None for a shard of an older build, which
    kept too little to rebuild them."""
    import pyarrow.parquet as pq

    if "mention_ids" not in pq.read_schema(path).names:
        return None
    by_paper: dict[str, list[dict]] = {}
    for row in pq.read_table(path).to_pylist():
        by_paper.setdefault(row["paper"], []).append(row)
    return by_paper


def _extract_new_papers(
    tables: Path,
    summary: BuildSummary,
    inputs,
    extract: ExtractOptions,
    hooks: Hooks,
    *,
    base: str | None,
    config: str | None,
    previous: Path | None,
) -> None:
    """Extract the papers of ``inputs`` that ``tables`` (a resumed build's shards) and the
    build at ``previous`` (``--add-to``) do not hold into shards under ``tables``. Its own
    function, so that the ids it keeps (duplicate check, papers done, the old build's
    digests: a few hundred bytes a paper) are freed before resolution."""
    done = set(paper_digests(tables))  # shards a killed build wrote (--resume)
    summary.resumed = len(done)
    old: dict[str, str] = {}
    if previous is not None:  # --add-to: the papers of the build being added to
        old = paper_digests(previous / TABLES)
    replaced: set[str] = set()

    def todo(records: Iterable[Record]) -> Iterator[Record]:
        for rec in records:
            digest = old.get(rec.id)
            if digest is not None:
                if digest == record_digest(rec):
                    summary.unchanged += 1
                    continue
                replaced.add(rec.id)
            if rec.id in done:
                continue
            yield rec

    def records_of() -> Iterator[Record | Skipped]:
        return read(inputs, fields=extract.fields, max_chars=extract.max_chars)

    records = todo(_records(records_of(), summary, hooks))
    writer = _ShardedExtractions(tables, extract.papers_per_shard)
    # spaCy loads here, not when kg.orchestrate is imported
    from kg.nlp.running.runner import extract as run_pipeline

    extracted = run_pipeline(
        records,
        n_process=extract.n_process,
        batch_size=extract.batch_size,
        base=base,
        config=config,
        scheduler=extract.scheduler,
    )
    total = None
    if hooks.count_first and "-" not in inputs.files:
        total = _count_todo(records_of(), old, done)
    for item in hooks.progress(extracted, description="Extracting", total=total):
        if isinstance(item, Skipped):
            summary.skipped.append(item)
            if hooks.on_skip is not None:
                hooks.on_skip(item)
            continue
        item = confident(item, extract.min_confidence)
        writer.add(item, record_digest(item.record))
    writer.flush()
    if previous is not None:
        # the old record of a changed paper goes only when the new one was extracted (one
        # the pipeline skipped keeps its old record; the skip is reported)
        extracted_now = set(paper_digests(tables))
        summary.replaced = len(replaced & extracted_now)
        summary.replaced_ids = sorted(replaced & extracted_now)
        summary.added_ids = sorted(extracted_now - set(old))
        _copy_previous(previous / TABLES, tables, drop=extracted_now)


def _count_todo(items: Iterable[Record | Skipped], old: dict[str, str], done: set[str]) -> int:
    """How many of ``items`` extraction will get: records with a new id, not unchanged in
    the build added to (``old``), not extracted already (``done``)."""
    seen: set[str] = set()
    count = 0
    for item in items:
        if not isinstance(item, Record) or item.id in seen:
            continue
        seen.add(item.id)
        if item.id in done or old.get(item.id) == record_digest(item):
            continue
        count += 1
    return count


def _copy_previous(old: Path, tables: Path, *, drop: set[str]) -> None:
    """Copy the extraction shards of the build at ``old`` into ``tables`` (named
    :data:`PREVIOUS`...), without the papers in ``drop`` (extracted again in this build)."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    gone = pa.array(sorted(drop), pa.string())
    paired = {p.name for p in shard_files(old / LOCALS)}
    n = 0
    for shard in _ordered(shard_files(old / PAPERS)):
        if shard.name not in paired:
            continue
        papers = pq.read_table(shard)
        papers = papers.filter(pc.invert(pc.is_in(papers.column("id"), value_set=gone)))
        if papers.num_rows == 0:
            continue
        locals_ = pq.read_table(old / LOCALS / shard.name)
        locals_ = locals_.filter(pc.invert(pc.is_in(locals_.column("paper"), value_set=gone)))
        name = f"{PREVIOUS}{n:05d}.parquet"
        write_table(tables / LOCALS / name, locals_)
        write_table(tables / PAPERS / name, papers)
        n += 1


def _records(
    items: Iterable[Record | Skipped],
    summary: BuildSummary,
    hooks: Hooks,
) -> Iterator[Record]:
    seen: dict[str, str] = {}
    for item in items:
        if isinstance(item, Record):
            where = f"{item.source}:{item.line}"
            if item.id in seen:
                item = Skipped(
                    item.source,
                    item.line,
                    f"duplicate paper id {item.id!r} (first at {seen[item.id]})",
                )
            else:
                seen[item.id] = where
                for note in item.notes:
                    summary.metadata_notes += 1
                    if hooks.on_note is not None:
                        hooks.on_note(Note(item.source, item.line, f"{note} (record kept)"))
                yield item
                continue
        summary.skipped.append(item)
        if hooks.on_skip is not None:
            hooks.on_skip(item)
