"""How right a build's merges are: labelled name pairs (same thing or not) looked up in
the build's canonical entities."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from kg.names import normalise_name

__all__ = ["NamePair", "read_pairs", "score_merges"]


@dataclass(frozen=True)
class NamePair:
    """Two names of one type, and whether they name the same thing."""

    type: str
    a: str
    b: str
    same: bool
    source: str = ""  # where the label comes from (annotations, a judged merge)
    a_type: str = ""  # the type of ``a`` when it is not ``type`` (a merge across types)

    @property
    def ends(self) -> tuple[tuple[str, str], tuple[str, str]]:
        """(type, normalised name) of each name."""
        return ((self.a_type or self.type, normalise_name(self.a)),
                (self.type, normalise_name(self.b)))  # fmt: skip


COLUMNS = ("type", "a", "b", "same", "source")
"""The columns a pairs file's header names (``a_type`` may follow)."""


def read_pairs(path: str | Path) -> list[NamePair]:
    """Read a TSV of labelled pairs: type, a, b, same (``yes``/``no``), source, and
    optionally a_type (``a``'s type when it differs); lines starting with ``#`` are
    comments. A line that is none is an :class:`~kg.errors.InputError` (``file:line``)."""
    from kg.errors import InputError

    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as err:
        raise InputError(path, None, f"cannot read it ({err.strerror or err})") from None
    out: list[NamePair] = []
    header: list[str] | None = None
    for n, raw in enumerate(data.split(b"\n"), 1):
        try:
            line = raw.decode("utf-8-sig" if n == 1 else "utf-8").rstrip("\r")
        except UnicodeDecodeError:
            raise InputError(path, n, "not UTF-8 text; save the file as UTF-8") from None
        if not line.strip() or line.startswith("#"):
            continue
        cells = line.split("\t")
        if header is None:
            if not set(COLUMNS) <= set(cells):
                raise InputError(path, n, f"the header names the columns {', '.join(COLUMNS)}")
            header = cells
            continue
        row = dict(zip(header, cells, strict=False))
        if row.get("same") not in ("yes", "no") or not all(row.get(c) for c in ("type", "a", "b")):
            raise InputError(path, n, f"expected {', '.join(COLUMNS)} (same: yes or no)")
        out.append(NamePair(row["type"], row["a"], row["b"], row["same"] == "yes",
                            row.get("source") or "", row.get("a_type") or ""))  # fmt: skip
    return out


def score_merges(build: str | Path, pairs: list[NamePair]) -> dict:
    """Return merge precision and recall of the build in ``build`` on ``pairs``.

    A pair counts when the build has both names (a name or alias of an entity of the
    pair's type, normalised): it is *merged* when some entity has both. Precision: the
    share of merged pairs that are the same thing; recall: the share of same-thing pairs
    merged. Pairs whose names normalise alike are left out (no merge is needed)."""
    import pyarrow.parquet as pq

    from kg.graph.store import ENTITIES, TABLES

    wanted = {end for p in pairs for end in p.ends}
    keys_of: dict[tuple[str, str], set[str]] = defaultdict(set)
    table = pq.ParquetFile(Path(build) / TABLES / ENTITIES)
    for batch in table.iter_batches(columns=["key", "type", "name", "aliases"]):
        for row in batch.to_pylist():
            for form in {row["name"], *(row["aliases"] or [])}:
                found = (row["type"], normalise_name(form))
                if found in wanted:
                    keys_of[found].add(row["key"])
    tp = fp = fn = absent = trivial = 0
    wrong: list[NamePair] = []
    for p in pairs:
        ka, kb = (keys_of.get(end) for end in p.ends)
        if p.ends[0] == p.ends[1]:
            trivial += 1
        elif not ka or not kb:
            absent += 1
        elif ka & kb:
            tp += p.same
            fp += not p.same
            if not p.same:
                wrong.append(p)
        else:
            fn += p.same
    return {
        "precision": tp / (tp + fp) if tp + fp else 0.0,
        "recall": tp / (tp + fn) if tp + fn else 0.0,
        "merged": tp + fp,
        "same_pairs": tp + fn,
        "pairs": len(pairs),
        "not_in_build": absent,
        "same_name": trivial,
        "wrong": [(p.type, p.a, p.b, p.source) for p in wrong],
    }
