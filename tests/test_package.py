"""The package's shape: each stage imports only itself, earlier stages and the shared
modules; no import cycle; no module or function too long to read."""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

from tests.conftest import ROOT

PACKAGE = ROOT / "kg"
STAGES = [
    {"kg.util", "kg.errors", "kg.names", "kg.schema", "kg.resources"},  # shared by all
    {"kg.ingest"},
    {"kg.nlp"},
    {"kg.resolve"},
    {"kg.graph"},
    {"kg.exporters"},
    {"kg.orchestrate"},
    {"kg.eval", "kg.query", "kg.analytics", "kg.viz", "kg.train"},
    {"kg.cli"},
]
"""The data flow, earliest first: a module may import its own stage and earlier ones."""
MAX_LINES = 500
MAX_FUNCTION_LINES = 80


def _module(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> list[tuple[str, bool]]:
    """``(imported kg module, at module level)`` for each import of ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top = {id(n) for n in tree.body} | {
        id(n) for s in tree.body if isinstance(s, ast.If) for n in s.body
    }  # ``if TYPE_CHECKING:`` blocks count as module level
    here = _module(path).split(".")
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:  # relative: from the package the module is in
                base = here if path.name == "__init__.py" else here[:-1]
                base = base[: len(base) - node.level + 1]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            names = [name]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        out += [(n, id(node) in top) for n in names if n == "kg" or n.startswith("kg.")]
    return out


def _stage(module: str) -> int | None:
    for rank, stage in enumerate(STAGES):
        if any(module == s or module.startswith(s + ".") for s in stage):
            return rank
    return None


def _files() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_every_module_belongs_to_a_stage():
    loose = [_module(f) for f in _files() if _stage(_module(f)) is None]
    assert loose == ["kg", "kg.__main__"]  # the package's face and `python -m kg`


def test_no_stage_imports_a_later_one():
    wrong = []
    for path in _files():
        source = _module(path)
        rank = _stage(source)
        if rank is None:
            continue
        for target, _ in _imports(path):
            if target == "kg":  # kg.__version__ (the package imports nothing eagerly)
                continue
            to = _stage(target)
            if to is None or to > rank:
                wrong.append(f"{source} imports {target}")
    assert not wrong, wrong


def test_no_import_cycle():
    """Not even through an import inside a function (one made late, to load a heavy
    library only when asked, still ties the two modules together)."""
    graph = nx.DiGraph()
    modules = {_module(f) for f in _files()}
    for path in _files():
        for target, _ in _imports(path):
            if target in modules and target != _module(path):
                graph.add_edge(_module(path), target)
    cycles = list(nx.simple_cycles(graph))
    assert not cycles, cycles


def test_no_module_over_500_lines():
    long = {_module(f): n for f in _files() if (n := len(f.read_text().splitlines())) > MAX_LINES}
    assert not long, long


def test_no_function_over_80_lines():
    """A function's logic fits on a screen or two: longer ones are split into named steps."""
    long = []
    for path in _files():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = node.end_lineno - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    long.append(f"{_module(path)}.{node.name}: {lines} lines")
    assert not long, long


def test_the_cli_default_shard_size_is_the_build_s():
    import inspect

    from kg.cli.build import build
    from kg.orchestrate.shards import PAPERS_PER_SHARD

    option = inspect.signature(build).parameters["papers_per_shard"]
    assert option.default == PAPERS_PER_SHARD  # the CLI states it without importing the build


def test_the_cli_default_duckdb_memory_is_the_build_s():
    import inspect

    from kg.cli.build import build
    from kg.util.tables import DUCKDB_MEMORY

    assert inspect.signature(build).parameters["duckdb_memory"].default == DUCKDB_MEMORY


ENVIRONMENT_WRITERS = {"kg.nlp.running.workers"}
"""Modules that touch ``os.environ`` for a reason other than a setting: a run gives
the worker processes it starts one BLAS thread each (their environment, read by OpenBLAS
as it loads)."""


def test_no_library_module_reads_the_environment():
    """Settings come as options; only the CLI (kg.cli) turns environment variables into them."""
    readers = []
    for path in _files():
        module = _module(path)
        if module.startswith("kg.cli") or module in ENVIRONMENT_WRITERS:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr in {"environ", "getenv"}:
                readers.append(f"{module}:{node.lineno}")
    assert not readers, readers


def test_the_spacy_entry_points_are_the_registered_factories():
    """pyproject's ``spacy_factories`` name every kg factory the pipeline registers, each
    with the function registered under that name (spaCy finds them by entry point)."""
    import tomllib

    from spacy.util import registry

    import kg.nlp.pipeline  # noqa: F401  (registers the factories)

    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    points = declared["project"]["entry-points"]["spacy_factories"]
    registered = {n: f for n, f in registry.factories.get_all().items() if n.startswith("kg_")}
    assert set(points) == set(registered)
    for name, target in points.items():
        module, func = target.split(":")
        assert (registered[name].__module__, registered[name].__name__) == (module, func), name


OUTPUT_FOLDER_NAMES = {"build", "dist", "venv", "env", "out", "site-packages"}
"""Folder names that Python tooling and the usual ignore templates read as build output
(pytest's default ``norecursedirs``, GitHub's Python ``.gitignore``): a package or test
folder so named is skipped or ignored without a word."""


def test_no_package_or_test_folder_is_named_as_build_output():
    sources = [p for top in ("kg", "tests") for p in (ROOT / top).rglob("*.py")]
    folders = {p.parent for p in sources if "node_modules" not in p.parts}
    named = sorted(str(f.relative_to(ROOT)) for f in folders if f.name in OUTPUT_FOLDER_NAMES)
    assert not named, named


def test_build_takes_its_settings_as_a_few_options_objects():
    import inspect

    from kg.orchestrate import build

    assert len(inspect.signature(build).parameters) <= 6


def test_no_script_imports_another_script():
    """What scripts share lives in the package (kg.train); a script is a thin command."""
    scripts = {p.stem for p in (ROOT / "scripts").glob("*.py")}
    wrong = []
    for path in sorted((ROOT / "scripts").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            wrong += [f"{path.name} imports {n}" for n in names if n.split(".")[0] in scripts]
    assert not wrong, wrong
