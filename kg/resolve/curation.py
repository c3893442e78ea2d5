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

import hashlib
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
    "parse_curation",
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
    digest: str = ""
    """The SHA-256 of the file as read (a build's manifest keeps it)."""


def read_curation(path: str | Path) -> Curation:
    """Read and check a curation file; a mistake is a :class:`KgError` naming its line."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as err:
        raise KgError(f"cannot read the curation file {path}: {err.strerror or err}") from None
    return parse_curation(path, data)


def parse_curation(path: Path, data: bytes) -> Curation:
    """Check the bytes ``data`` of the curation file ``path`` as data: UTF-8 text, TOML,
    sections of entries (tables) whose fields have the right types; a mistake is a
    :class:`KgError` that says ``file:line: reason``."""
    text = _utf8(path, data)
    try:
        tree = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise KgError(_toml_error(path, err)) from None
    except RecursionError:
        raise KgError(f"{path}: nested too deeply to be a curation file") from None
    starts = _entry_lines(text)
    entries = []
    for kind, items in tree.items():
        if kind not in KINDS:
            raise KgError(
                f"{path}: unknown section {kind!r}: write [[drop]], [[retype]], [[rename]], "
                "[[alias]], [[merge]] or [[split]] entries"
            )
        if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
            line = _first_line(text, kind)
            raise KgError(f"{path}:{line}: {kind} must be [[{kind}]] entries (TOML tables)")
        for i, item in enumerate(items):
            line = starts.get(kind, [])[i] if i < len(starts.get(kind, [])) else 0
            entries.append(_entry(path, kind, item, line))
    order = {k: i for i, k in enumerate(KINDS)}
    entries.sort(key=lambda e: (order[e.kind], e.line))
    return Curation(path, entries, hashlib.sha256(data).hexdigest())


def _utf8(path: Path, data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        raise KgError(
            f"{path}:{line}: not UTF-8 text (byte 0x{data[err.start]:02x}); save the file as UTF-8"
        ) from None


def _toml_error(path: Path, err: tomllib.TOMLDecodeError) -> str:
    m = re.search(r"\s*\(at line (\d+), column (\d+)\)$", str(err))
    if m is None:
        return f"{path}: not TOML: {err}"
    return f"{path}:{m[1]}: not TOML: {str(err)[: m.start()]} (column {m[2]})"


def _first_line(text: str, key: str) -> int:
    for n, line in enumerate(text.split("\n"), 1):
        if re.match(rf"\s*\[*\s*{re.escape(key)}\b", line):
            return n
    return 0


def _entry_lines(text: str) -> dict[str, list[int]]:
    """The line of each ``[[kind]]`` header, by kind; a header-like line inside a
    multi-line string (a long ``why``) is text, not a header."""
    lines: dict[str, list[int]] = {}
    inside = None  # the quotes of the multi-line string a line starts in
    for n, line in enumerate(text.split("\n"), 1):
        if inside is None:
            m = re.match(r"\s*\[\[\s*([A-Za-z_]+)\s*\]\]", line)
            if m:
                lines.setdefault(m[1], []).append(n)
                continue
        inside = _strings_after(line, inside)
    return lines


def _strings_after(line: str, inside: str | None) -> str | None:
    """Whether a multi-line string is open after ``line`` (its quotes), given whether one
    was open before it."""
    i = 0
    while i < len(line):
        if inside is not None:
            if inside == '"""' and line[i] == "\\":
                i += 2
            elif line.startswith(inside, i):
                i += 3
                while i < len(line) and line[i] == inside[0]:  # """" ends with a quote
                    i += 1
                inside = None
            else:
                i += 1
            continue
        c = line[i]
        if c == "#":
            break
        if line.startswith(('"""', "'''"), i):
            inside, i = line[i : i + 3], i + 3
        elif c == '"':
            i += 1
            while i < len(line) and line[i] != '"':
                i += 2 if line[i] == "\\" else 1
            i += 1
        elif c == "'":
            end = line.find("'", i + 1)
            i = len(line) if end < 0 else end + 1
        else:
            i += 1
    return inside


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
    if kind == "merge":
        _check_merge(where, key or f"{type_.lower()}:", item["into"])
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


def _check_merge(where: str, key: str, into: str) -> None:
    """A merge joins two entities of one type: ``into`` is a key of ``key``'s type."""
    if not re.fullmatch(r"(method|task|dataset|metric):\S+", into):
        raise KgError(f"{where}: into = {into!r} is no entity key (method:..., task:..., ...)")
    kind, other = key.split(":", 1)[0], into.split(":", 1)[0]
    if kind != other:
        raise KgError(
            f"{where}: merges a {kind} into a {other}; a merge joins entities of one type "
            f'(retype it first: [[retype]] to = "{other.capitalize()}")'
        )
    if key == into:
        raise KgError(f"{where}: merges {key} into itself; leave the entry out")


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

    # DEL is the one control character JSON leaves as it is and TOML refuses
    return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")


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
    curator = _Curator(con, table, curation, canonical)
    for entry in curation.entries:
        keys = curator.select(entry)
        if keys and entry.kind in _KINDS:
            getattr(curator, entry.kind)(entry, keys)
        else:
            curator.record(entry, set(), "")
    for raw in curator.out.dropped:
        canonical.pop(raw, None)
    return curator.out


_KINDS = frozenset({"split", "merge", "alias", "retype", "drop", "rename"})


class _Curator:
    """A curation file's entries applied one by one to ``canonical`` (changed in place),
    with what each did recorded in ``out``."""

    def __init__(self, con, table: str, curation: Curation, canonical: dict[str, str]) -> None:
        self.con, self.table, self.curation, self.canonical = con, table, curation, canonical
        self.out = Curated()

    def final(self, raw: str) -> str:
        return self.canonical.get(raw, raw)

    def exists(self, key: str) -> bool:
        if key in self.canonical.values() or key in self.canonical:
            return True
        rows = self.con.execute("SELECT 1 FROM kg_keys WHERE raw_key = ?", [key]).fetchall()
        return bool(rows)

    def members(self, key: str) -> set[str]:
        return {r for r, f in self.canonical.items() if f == key} | {key}

    def raw_named(self, type_: str, names: list[str]) -> set[str]:
        from kg.resolve.keys import normalise_name

        rows = self.con.execute(
            f"SELECT DISTINCT raw_key FROM {self.table} WHERE type = ? AND kg_norm(name) IN "
            "(SELECT unnest(?))",
            [type_, [normalise_name(n) for n in names]],
        ).fetchall()
        return {r for (r,) in rows}

    def select(self, entry: CurationEntry) -> set[str]:
        """The canonical keys an entry names (by key, or by type and name), not dropped."""
        if entry.key:
            return {self.final(entry.key)} - self.out.dropped if self.exists(entry.key) else set()
        named = self.raw_named(entry.type, [entry.name])
        return {self.final(r) for r in named} - self.out.dropped

    def papers(self, keys: set[str]) -> tuple[int, tuple[str, ...]]:
        """How many papers name ``keys``, and the first twenty of them."""
        raws = sorted({r for k in keys for r in self.members(k)})
        n, some = self.con.execute(
            "SELECT count(DISTINCT paper), list(DISTINCT paper ORDER BY paper)[1:20] "
            f"FROM {self.table} WHERE raw_key IN (SELECT unnest(?))",
            [raws],
        ).fetchall()[0]
        return int(n), tuple(some or ())

    def move(self, keys: set[str], into: str, entry: CurationEntry) -> None:
        """Merge the entities of ``keys`` into ``into``, each merge recorded."""
        from kg.resolve.merges import Merge

        for key in keys:
            if key == into:
                continue
            n, some = self.papers({key})
            for raw in self.members(key):
                self.canonical[raw] = into
            self.canonical.pop(into, None)
            self.out.removed.add(key)
            self.out.merges.append(Merge(key, into, f"curation [[{entry.kind}]] line "
                                         f"{entry.line}", "curation", 1.0, some, n))  # fmt: skip

    def record(self, entry: CurationEntry, keys: set[str], what: str) -> None:
        self.out.log.append({"entry": entry.where(self.curation.path), "kind": entry.kind,
                             "target": entry.target, "matched": bool(keys),
                             "keys": sorted(keys),
                             "what": what or "matched nothing in this build"})  # fmt: skip

    def regroup(self, raws: set[str], key: str) -> None:
        """Make ``key`` the canonical key of ``raws``."""
        for raw in raws:
            self.canonical[raw] = key
        self.canonical.pop(key, None)

    def split(self, entry: CurationEntry, keys: set[str]) -> None:
        from kg.resolve.keys import entity_key, key_type

        (key,) = sorted(keys)[:1]
        taken = self.raw_named(key_type(key), list(entry.names)) & self.members(key)
        if not taken:
            self.record(entry, set(), "")
            return
        kept = min(taken, key=lambda r: (r != entity_key(key_type(key), entry.names[0]), r))
        rest = self.members(key) - taken
        self.regroup(taken, kept)
        now = {kept}
        if key in taken and rest:  # the entity keeps its other names under one of them
            self.regroup(rest, min(rest))
            now.add(min(rest))
        moved = key not in now  # its key went with the names: a loaded database drops it
        if moved:
            self.out.removed.add(key)
        gone = f"; {key} is gone (now {', '.join(sorted(now))})" if moved else ""
        self.record(entry, keys, f"took {', '.join(sorted(taken))} out of {key} as {kept}{gone}")

    def merge(self, entry: CurationEntry, keys: set[str]) -> None:
        into = self.final(entry.into) if self.exists(entry.into) else None
        if into is None:
            self.record(entry, set(), "")
        elif not keys - {into}:  # one entity already (an earlier entry merged them)
            self.record(entry, set(), f"changed nothing: {entry.target} is {into} already")
        else:
            self.move(keys, into, entry)
            self.record(entry, keys, f"merged into {into}")

    def alias(self, entry: CurationEntry, keys: set[str]) -> None:
        from kg.resolve.keys import key_type

        (key,) = sorted(keys)[:1]
        named = self.raw_named(key_type(key), list(entry.names))
        joined = {self.final(r) for r in named} - {key}
        self.move(joined, key, entry)
        self.record(entry, keys if joined else set(), f"joined {', '.join(sorted(joined))}")

    def retype(self, entry: CurationEntry, keys: set[str]) -> None:
        for key in keys:
            new = f"{entry.to.lower()}:{key.split(':', 1)[1]}"
            if new == key:
                continue
            if self.exists(new):
                self.move({key}, self.final(new), entry)
            else:
                for raw in self.members(key):
                    self.canonical[raw] = new
                self.out.removed.add(key)
        self.record(entry, keys, f"now {entry.to}")

    def drop(self, entry: CurationEntry, keys: set[str]) -> None:
        n, _ = self.papers(keys)
        for key in keys:
            self.out.dropped |= self.members(key)
            self.out.removed.add(key)
        self.record(entry, keys, f"dropped from {n} paper{'' if n == 1 else 's'}")

    def rename(self, entry: CurationEntry, keys: set[str]) -> None:
        for key in keys:
            self.out.names[key] = entry.to
        self.record(entry, keys, f"shown as {entry.to!r}")


HEADER = (
    "# kg curation file: fixes to the graph that every build applies (kg build --curation).\n"
    "# Entries: [[drop]], [[retype]], [[rename]], [[alias]], [[merge]], [[split]]; each picks an\n"
    "# entity by key, or by name and type. `kg curate` adds entries after checking them.\n"
)


def append_entry(path: str | Path, entry: CurationEntry) -> None:
    """Append ``entry`` to the curation file at ``path`` (made when missing), checking
    that the file reads before and after; the file is written through a link, keeping
    its mode (:func:`kg.util.files.write_user_file`)."""
    from kg.util.files import write_user_file

    path = Path(path)
    if path.exists():
        try:
            data = path.read_bytes()
        except OSError as err:
            raise KgError(f"cannot read the curation file {path}: {err.strerror or err}") from None
        parse_curation(path, data)  # a mistake already there is said first, with its line
        text = data.decode("utf-8")
    else:
        text = HEADER
    text = text + ("" if text.endswith("\n") else "\n") + "\n" + entry_toml(entry)
    try:
        parse_curation(path, text.encode("utf-8"))
    except KgError as err:
        raise KgError(f"{err}; nothing was added") from None
    write_user_file(path, text)
