"""A lab's fixes to its graph: a TOML file kept beside the inputs, applied by every build.

Each entry picks an entity by ``key`` (``"method:clip"``) or by ``name`` and ``type``, and
says what to do with it::

    [[drop]]                      # not an entity: gone with its mentions and relations
    name = "state-of-the-art"
    type = "Method"
    why = "a generic phrase"

    [[retype]]                    # another type (its relations that no longer fit go)
    key = "task:retrieval-augmented-generation"
    to = "Method"

    [[rename]]                    # the name it is shown by
    key = "method:clip"
    to = "CLIP"

    [[alias]]                     # entities of these names are this one
    key = "dataset:imagenet"
    names = ["ImageNet-1K"]

    [[merge]]                     # this entity is that one
    key = "dataset:ms-coco"
    into = "dataset:coco"

    [[split]]                     # the papers that name it so are another thing
    key = "method:supervised-fine-tuning"
    names = ["SfT", "Shape-from-template"]

``why`` is free text for the people who keep the file. Entries apply in the order
split, merge, alias, retype, drop, rename, each to the graph the ones before left.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from kg.errors import KgError
from kg.schema import ENTITY_TYPES

__all__ = [
    "KINDS",
    "Curated",
    "Curation",
    "CurationEntry",
    "append_entry",
    "apply_curation",
    "entry_toml",
    "read_curation",
]

KINDS = ("split", "merge", "alias", "retype", "drop", "rename")
"""Entry kinds, in the order they apply."""

_FIELDS = {
    "drop": set(),
    "retype": {"to"},
    "rename": {"to"},
    "alias": {"names"},
    "merge": {"into"},
    "split": {"names"},
}


@dataclass(frozen=True)
class CurationEntry:
    """One fix: which entity (``key``, or ``name`` and ``type``) and what to do."""

    kind: str
    key: str | None = None
    name: str | None = None
    type: str | None = None
    to: str | None = None
    into: str | None = None
    names: tuple[str, ...] = ()
    why: str = ""
    line: int = 0  # where the entry starts in its file

    @property
    def target(self) -> str:
        """How the entry names its entity (for reports)."""
        return self.key or f"{self.type} {self.name!r}"

    def where(self, path: Path | str) -> str:
        return f"{path}:{self.line}: [[{self.kind}]] {self.target}"


@dataclass
class Curation:
    """The entries of a curation file, in the order they apply."""

    path: Path
    entries: list[CurationEntry] = field(default_factory=list)

    def of_kind(self, kind: str) -> list[CurationEntry]:
        return [e for e in self.entries if e.kind == kind]


def read_curation(path: str | Path) -> Curation:
    """Read and check a curation file; a mistake is a :class:`KgError` naming its line."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise KgError(f"cannot read the curation file {path}: {err.strerror or err}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise KgError(f"{path}: not TOML: {err}") from None
    starts = _entry_lines(text)
    entries = []
    for kind, items in data.items():
        if kind not in KINDS or not isinstance(items, list):
            raise KgError(
                f"{path}: unknown section {kind!r}: write [[drop]], [[retype]], [[rename]], "
                "[[alias]], [[merge]] or [[split]] entries"
            )
        for i, item in enumerate(items):
            line = starts.get(kind, [])[i] if i < len(starts.get(kind, [])) else 0
            entries.append(_entry(path, kind, item, line))
    order = {k: i for i, k in enumerate(KINDS)}
    entries.sort(key=lambda e: (order[e.kind], e.line))
    return Curation(path, entries)


def _entry_lines(text: str) -> dict[str, list[int]]:
    lines: dict[str, list[int]] = {}
    for n, line in enumerate(text.splitlines(), 1):
        m = re.match(r"\s*\[\[\s*([A-Za-z_]+)\s*\]\]", line)
        if m:
            lines.setdefault(m[1], []).append(n)
    return lines


def _entry(path: Path, kind: str, item: dict, line: int) -> CurationEntry:
    where = f"{path}:{line}: [[{kind}]]"
    allowed = {"key", "name", "type", "why"} | _FIELDS[kind]
    unknown = sorted(set(item) - allowed)
    if unknown:
        fields = ", ".join(sorted(allowed))
        raise KgError(f"{where}: unknown field {unknown[0]!r} (allowed: {fields})")
    for name, value in item.items():
        ok = all(isinstance(v, str) for v in value) if name == "names" else isinstance(value, str)
        if not ok or (name == "names" and not isinstance(value, list)):
            kind_of = "a list of strings" if name == "names" else "a string"
            raise KgError(f"{where}: {name} must be {kind_of}")
    key, name, type_ = item.get("key"), item.get("name"), item.get("type")
    if not key and not (name and type_):
        raise KgError(f'{where}: say which entity: key = "method:...", or name and type')
    if type_ and type_ not in ENTITY_TYPES:
        raise KgError(f"{where}: type must be one of {', '.join(ENTITY_TYPES)}")
    if key and not re.fullmatch(r"(method|task|dataset|metric):\S+", key):
        raise KgError(f"{where}: {key!r} is no entity key (method:..., task:..., ...)")
    missing = sorted(f for f in _FIELDS[kind] if not item.get(f))
    if missing:
        raise KgError(f"{where}: needs {missing[0]}")
    if kind == "retype" and item["to"] not in ENTITY_TYPES:
        raise KgError(f"{where}: to must be one of {', '.join(ENTITY_TYPES)}")
    return CurationEntry(
        kind=kind,
        key=key,
        name=name,
        type=type_,
        to=item.get("to"),
        into=item.get("into"),
        names=tuple(item.get("names", ())),
        why=item.get("why", ""),
        line=line,
    )


def entry_toml(entry: CurationEntry) -> str:
    """Return ``entry`` as a TOML table to append to a curation file."""
    out = [f"[[{entry.kind}]]"]
    for name in ("key", "name", "type", "to", "into"):
        value = getattr(entry, name)
        if value:
            out.append(f"{name} = {_string(value)}")
    if entry.names:
        out.append("names = [" + ", ".join(_string(n) for n in entry.names) + "]")
    if entry.why:
        out.append(f"why = {_string(entry.why)}")
    return "\n".join(out) + "\n"


def _string(value: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's)."""
    import json

    return json.dumps(value, ensure_ascii=False)


@dataclass
class Curated:
    """What a curation did to a resolution: the raw keys it dropped, the keys renamed,
    each entry's outcome (``log``), and the canonical keys it took out of the graph
    (dropped, merged away or retyped: a database loaded before deletes them)."""

    dropped: set[str] = field(default_factory=set)
    names: dict[str, str] = field(default_factory=dict)
    log: list[dict] = field(default_factory=list)
    removed: set[str] = field(default_factory=set)
    merges: list = field(default_factory=list)

    @property
    def stale(self) -> list[dict]:
        """The entries that matched nothing in this build."""
        return [e for e in self.log if not e["matched"]]


def apply_curation(con, table: str, curation: Curation, canonical: dict[str, str]) -> Curated:
    """Apply ``curation`` to a resolution in progress: ``canonical`` (raw key -> canonical
    key, for merged keys only) is changed in place; the local entities are in the DuckDB
    relation ``table`` (``kg_keys`` holds each raw key's support)."""
    from kg.resolve.keys import entity_key, key_type, normalise_name
    from kg.resolve.merges import Merge

    out = Curated()

    def final(raw: str) -> str:
        return canonical.get(raw, raw)

    def exists(key: str) -> bool:
        if key in canonical.values() or key in canonical:
            return True
        return bool(con.execute("SELECT 1 FROM kg_keys WHERE raw_key = ?", [key]).fetchall())

    def members(key: str) -> set[str]:
        return {r for r, f in canonical.items() if f == key} | {key}

    def raw_named(type_: str, names: list[str]) -> set[str]:
        norms = [normalise_name(n) for n in names]
        rows = con.execute(
            f"SELECT DISTINCT raw_key FROM {table} WHERE type = ? AND kg_norm(name) IN "
            "(SELECT unnest(?))",
            [type_, norms],
        ).fetchall()
        return {r for (r,) in rows}

    def select(entry: CurationEntry) -> set[str]:
        if entry.key:
            return {final(entry.key)} - out.dropped if exists(entry.key) else set()
        return {final(r) for r in raw_named(entry.type, [entry.name])} - out.dropped

    def papers(keys: set[str]) -> tuple[int, tuple[str, ...]]:
        """How many papers name ``keys``, and the first twenty of them."""
        raws = sorted({r for k in keys for r in members(k)})
        n, some = con.execute(
            "SELECT count(DISTINCT paper), list(DISTINCT paper ORDER BY paper)[1:20] "
            f"FROM {table} WHERE raw_key IN (SELECT unnest(?))",
            [raws],
        ).fetchall()[0]
        return int(n), tuple(some or ())

    def move(keys: set[str], into: str, entry: CurationEntry) -> None:
        for key in keys:
            if key == into:
                continue
            n, some = papers({key})
            for raw in members(key):
                canonical[raw] = into
            canonical.pop(into, None)
            out.removed.add(key)
            out.merges.append(Merge(key, into, f"curation [[{entry.kind}]] line {entry.line}",
                                    "curation", 1.0, some, n))  # fmt: skip

    def record(entry: CurationEntry, keys: set[str], what: str) -> None:
        out.log.append({"entry": entry.where(curation.path), "kind": entry.kind,
                        "target": entry.target, "matched": bool(keys), "keys": sorted(keys),
                        "what": what if keys else "matched nothing in this build"})  # fmt: skip

    for entry in curation.entries:
        keys = select(entry)
        if entry.kind == "split" and keys:
            (key,) = sorted(keys)[:1]
            taken = raw_named(key_type(key), list(entry.names)) & members(key)
            if not taken:
                record(entry, set(), "")
                continue
            kept = min(taken, key=lambda r: (r != entity_key(key_type(key), entry.names[0]), r))
            rest = members(key) - taken
            for raw in taken:
                canonical[raw] = kept
            canonical.pop(kept, None)
            if key in taken and rest:  # the entity keeps its other names under one of them
                new = min(rest)
                for raw in rest:
                    canonical[raw] = new
                canonical.pop(new, None)
            record(entry, keys, f"took {', '.join(sorted(taken))} out of {key} as {kept}")
        elif entry.kind == "merge" and keys:
            into = final(entry.into) if exists(entry.into) else None
            if into is None:
                record(entry, set(), "")
                continue
            move(keys, into, entry)
            record(entry, keys, f"merged into {into}")
        elif entry.kind == "alias" and keys:
            (key,) = sorted(keys)[:1]
            joined = {final(r) for r in raw_named(key_type(key), list(entry.names))} - {key}
            move(joined, key, entry)
            record(entry, keys if joined else set(), f"joined {', '.join(sorted(joined))}")
        elif entry.kind == "retype" and keys:
            for key in keys:
                new = f"{entry.to.lower()}:{key.split(':', 1)[1]}"
                if new == key:
                    continue
                if exists(new):
                    move({key}, final(new), entry)
                else:
                    for raw in members(key):
                        canonical[raw] = new
                    out.removed.add(key)
            record(entry, keys, f"now {entry.to}")
        elif entry.kind == "drop" and keys:
            n, _ = papers(keys)
            for key in keys:
                out.dropped |= members(key)
                out.removed.add(key)
            record(entry, keys, f"dropped from {n} paper{'' if n == 1 else 's'}")
        elif entry.kind == "rename" and keys:
            for key in keys:
                out.names[key] = entry.to
            record(entry, keys, f"shown as {entry.to!r}")
        else:
            record(entry, set(), "")
    for raw in out.dropped:
        canonical.pop(raw, None)
    return out


HEADER = (
    "# kg curation file: fixes to the graph that every build applies (kg build --curation).\n"
    "# Entries: [[drop]], [[retype]], [[rename]], [[alias]], [[merge]], [[split]]; each picks an\n"
    "# entity by key, or by name and type. `kg curate` adds entries after checking them.\n"
)


def append_entry(path: str | Path, entry: CurationEntry) -> None:
    """Append ``entry`` to the curation file at ``path`` (made when missing), checking
    that the file still reads before it is written."""
    from kg.util.files import atomic_write_text

    path = Path(path)
    text = path.read_text(encoding="utf-8") if path.exists() else HEADER
    text = text + ("" if text.endswith("\n") else "\n") + "\n" + entry_toml(entry)
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise KgError(f"{path}: not TOML, so nothing was added: {err}") from None
    atomic_write_text(path, text)
