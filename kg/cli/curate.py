"""``kg curate``: add checked fixes to a curation file (every build applies them)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from kg.errors import KgError
from kg.resolve.curation import CurationEntry, append_entry
from kg.schema import ENTITY_TYPES

from ._help import KgCommand, KgHelpGroup
from ._output import renamed, stdout
from .explain import no_entity

app = typer.Typer(
    help="Add checked fixes to a curation file (drop, retype, rename, alias, merge, split)."
    "\n\nEach entry is checked against a build first. Every kg build --curation FILE (and "
    "--add-to, kg update, kg load neo4j after them) applies the file.",
    no_args_is_help=True,
    cls=KgHelpGroup,
)

Build = Annotated[Path, typer.Argument(help="The build to check against.")]
FileOption = Annotated[
    Path | None,
    typer.Option(
        "-o",
        "--out",
        help="The curation file to add to (default: the one the build was made with).",
        show_default=False,
    ),
]
FileAlias = Annotated[Path | None, typer.Option("--file", hidden=True)]
TypeOption = Annotated[
    str | None, typer.Option("--type", help="The entity's type, when a name has several.")
]
WhyOption = Annotated[str, typer.Option("--why", help="A note for the people who keep the file.")]
What = Annotated[str, typer.Argument(help="An entity key (method:clip), name or alias.")]


def _found(db: Path, what: str) -> list[dict]:
    from kg.query.explain import explain

    return [e.entity for e in explain(db, what)]


def _entity(db: Path, what: str, type_: str | None) -> dict:
    """The one entity of the build ``what`` names (of ``type_`` if given)."""
    if type_ is not None and type_ not in ENTITY_TYPES:
        raise typer.BadParameter(f"--type must be one of {', '.join(ENTITY_TYPES)}")
    found = _found(db, what)
    if type_:
        found = [e for e in found if e["type"] == type_]
    if not found:
        raise no_entity(db, what)
    if len(found) > 1 and found[0]["key"] != what:
        keys = ", ".join(f"{e['key']} ({e['support']} papers)" for e in found)
        raise KgError(f"{what!r} names several entities: {keys}; give the key")
    return found[0]


def _file(db: Path, file: Path | None, old: Path | None = None) -> Path:
    if old is not None:
        renamed("--file", "-o/--out")
        file = file or old
    if file is not None:
        return file
    from kg.orchestrate.curation import remembered_curation
    from kg.orchestrate.outdir import read_manifest

    remembered = remembered_curation((read_manifest(db) or {}).get("pipeline") or {})
    if not remembered:
        raise KgError(
            f"the build in {db} was made without a curation file: name one with -o/--out "
            "(kept beside your inputs; kg build --curation FILE applies it)"
        )
    if not Path(remembered).exists():
        raise KgError(
            f"the curation file {remembered} that the build in {db} was made with is gone; "
            "put it back (a new file with this entry alone would undo every earlier fix at "
            "the next build), or name a new one with -o/--out"
        )
    return Path(remembered)


def _add(db: Path, file: Path | None, entry: CurationEntry, old: Path | None) -> None:
    from kg.orchestrate.outdir import check_user_file

    path = _file(db, file, old)
    check_user_file(path, option="-o/--out")
    append_entry(path, entry)
    stdout.print(
        f"added [[{entry.kind}]] {entry.target} to {path}; the next build applies it "
        f"(kg build ... --curation {path}, or kg build NEW --add-to {db})",
        markup=False,
        highlight=False,
    )


@app.command("drop", cls=KgCommand)
def drop(db: Build, what: What, file: FileOption = None, type_: TypeOption = None,
         why: WhyOption = "", old: FileAlias = None) -> None:  # fmt: skip
    """Drop an entity: it is no entity (its mentions, relations and result links go).

    Example:

        kg curate drop out "memory usage" -o fixes.toml --why "not measured here"
    """
    ent = _entity(db, what, type_)
    _add(db, file, CurationEntry("drop", key=ent["key"], why=why), old)


@app.command("retype", cls=KgCommand)
def retype(
    db: Build,
    what: What,
    to: Annotated[str, typer.Argument(help="Method, Task, Dataset or Metric.")],
    file: FileOption = None,
    type_: TypeOption = None,
    why: WhyOption = "",
    old: FileAlias = None,
) -> None:
    """Give an entity another type (its relations that no longer fit go).

    Example:

        kg curate retype out OCR Task -o fixes.toml
    """
    if to not in ENTITY_TYPES:
        raise typer.BadParameter(f"the type must be one of {', '.join(ENTITY_TYPES)}")
    ent = _entity(db, what, type_)
    if ent["type"] == to:
        raise KgError(f"{ent['key']} is a {to} already")
    _add(db, file, CurationEntry("retype", key=ent["key"], to=to, why=why), old)


@app.command("rename", cls=KgCommand)
def rename(
    db: Build,
    what: What,
    name: Annotated[str, typer.Argument(help="The name to show it by.")],
    file: FileOption = None,
    type_: TypeOption = None,
    why: WhyOption = "",
    old: FileAlias = None,
) -> None:
    """Show an entity by another name.

    Example:

        kg curate rename out method:large-language-model LLMs -o fixes.toml
    """
    ent = _entity(db, what, type_)
    _add(db, file, CurationEntry("rename", key=ent["key"], to=name, why=why), old)


@app.command("alias", cls=KgCommand)
def alias(
    db: Build,
    what: What,
    names: Annotated[list[str], typer.Argument(help="Names of the same thing.")],
    file: FileOption = None,
    type_: TypeOption = None,
    why: WhyOption = "",
    old: FileAlias = None,
) -> None:
    """Make the entities of these names (of the same type) one with this entity.

    Example:

        kg curate alias out COCO "MS COCO" -o fixes.toml
    """
    ent = _entity(db, what, type_)
    for name in names:
        _entity(db, name, ent["type"])  # each name must name something of that type
    _add(db, file, CurationEntry("alias", key=ent["key"], names=tuple(names), why=why), old)


@app.command("merge", cls=KgCommand)
def merge(
    db: Build,
    what: What,
    into: Annotated[str, typer.Argument(help="The entity it is (a key, name or alias).")],
    file: FileOption = None,
    type_: TypeOption = None,
    why: WhyOption = "",
    old: FileAlias = None,
) -> None:
    """Make an entity one with another (the other keeps its key).

    Example:

        kg curate merge out ImageNet-1K ImageNet -o fixes.toml
    """
    ent = _entity(db, what, type_)
    same_type = any(e["type"] == ent["type"] for e in _found(db, into))
    target = _entity(db, into, ent["type"] if same_type else None)
    if target["type"] != ent["type"]:
        raise KgError(
            f"{ent['key']} is a {ent['type']} and {target['key']} a {target['type']}; a "
            "merge joins entities of one type (retype one first: kg curate retype)"
        )
    if target["key"] == ent["key"]:
        raise KgError(f"{what!r} and {into!r} are one entity already ({ent['key']})")
    _add(db, file, CurationEntry("merge", key=ent["key"], into=target["key"], why=why), old)


@app.command("split", cls=KgCommand)
def split(
    db: Build,
    what: What,
    names: Annotated[list[str], typer.Argument(help="Its names that are another thing.")],
    file: FileOption = None,
    type_: TypeOption = None,
    why: WhyOption = "",
    old: FileAlias = None,
) -> None:
    """Take the papers that name an entity so out of it: they are another thing.

    Example:

        kg curate split out method:pet PET -o fixes.toml
    """
    from kg.resolve.keys import normalise_name

    ent = _entity(db, what, type_)
    forms = {normalise_name(f) for f in [ent["name"], *(ent["aliases"] or [])]}
    unknown = [n for n in names if normalise_name(n) not in forms]
    if unknown:
        raise KgError(
            f"{ent['key']} has no name {unknown[0]!r} (its names: "
            f"{', '.join([ent['name'], *(ent['aliases'] or [])][:10])})"
        )
    _add(db, file, CurationEntry("split", key=ent["key"], names=tuple(names), why=why), old)
