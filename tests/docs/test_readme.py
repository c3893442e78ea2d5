"""Every ``bash`` block of the README and of docs/ runs as written, on a copy of what the
repo ships, in the order of :data:`PAGES` (a page's blocks may use what an earlier one made).

Blocks that need what the repo does not ship, or take too long for CI, carry a
``<!-- readme-test: not run (reason) -->`` line right above them; they are reported as
skipped with that reason. The README's first block (set up, run the tests) is what
``.ci/run`` runs, checked here line by line.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, SHARED

README = ROOT / "README.md"
PAGES = [
    "README.md",
    "docs/outputs.md",
    "docs/querying.md",
    "docs/analytics.md",
    "docs/neo4j.md",
    "docs/extraction.md",
    "docs/quality.md",
    "docs/training.md",
    "docs/scale.md",
    "docs/updating.md",
    "docs/performance.md",
    "docs/data.md",
    "docs/cli.md",
    "docs/changes.md",
]
"""The README, then the docs pages in the order the README links them."""
README_MAX_LINES = 150
_BLOCK = re.compile(
    r"^(?:<!-- readme-test: (?P<note>[^\n]*?) -->\n)?```bash\n(?P<body>.*?)^```", re.S | re.M
)


def readme_blocks(pages: list[str] = PAGES) -> list[tuple[str, str, str | None]]:
    """``(page:line, commands, reason not run)`` for each bash block of ``pages``."""
    out = []
    for page in pages:
        text = (ROOT / page).read_text(encoding="utf-8")
        for match in _BLOCK.finditer(text):
            line = text.count("\n", 0, match.start("body"))
            note = match["note"]
            if note is not None:
                assert note.startswith("not run (") and note.endswith(")"), (page, line, note)
                note = note[len("not run (") : -1]
            out.append((f"{page}:{line}", match["body"], note))
    return out


def _commands(body: str) -> list[str]:
    return [x.strip() for x in body.splitlines() if x.strip() and not x.startswith("#")]


def test_readme_opens_with_the_commands_ci_runs():
    where, body, note = readme_blocks()[0]
    assert where.startswith("README.md:") and int(where.split(":")[1]) <= 3 and note is None
    setup, tests = _commands(body)
    assert "kg build examples/abstracts.txt -o out" in setup and "-rs" in tests
    ci = [x.strip() for x in (ROOT / ".ci" / "run").read_text().splitlines()]
    assert setup in ci and tests in ci


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    """A copy of the shipped files (``git ls-files``) beside ``shared``, with ``out`` built
    as the README's first command builds it."""
    base = tmp_path_factory.mktemp("readme")
    work = base / "main"
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        if (ROOT / name).is_file():
            (work / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, work / name)
    if SHARED.exists():
        (base / "shared").symlink_to(SHARED)
    setup = _commands(readme_blocks()[0][1])[0]
    build = next(c for c in setup.split("&&") if " build " in c).strip()
    _run_block(work, build.replace(".venv/bin/", ""))
    yield work
    # a block that failed half-way may have left its Neo4j server running
    subprocess.run([str(work / "scripts" / "neo4j-local"), "stop"], env=_env(work), check=False)


def _env(work: Path) -> dict[str, str]:
    bin_dir = str(Path(sys.executable).parent)  # where the installed `kg` lives
    return {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        # scripts/neo4j-local: a throwaway server of its own, apart from the test session's
        "KG_NEO4J_HOME": str(work.parent / "neo4j-home"),
        "KG_NEO4J_BOLT_PORT": "17797",
        "KG_NEO4J_HTTP_PORT": "17584",
        "NEO4J_URI": "",
    }


def _run_block(work: Path, body: str) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", body],
        cwd=work,
        env=_env(work),
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, f"{body}\n--- stdout\n{proc.stdout}\n--- stderr\n{proc.stderr}"
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def _needs(body: str) -> str | None:
    if "../shared" in body and not SHARED.exists():
        if os.environ.get("KG_REQUIRE_SHARED"):
            pytest.fail("the block needs ../shared and KG_REQUIRE_SHARED is set")
        return "needs ../shared, the team's data folder"
    if "neo4j-local" in body and not (shutil.which("java") and shutil.which("mvn")):
        if os.environ.get("KG_REQUIRE_NEO4J"):
            pytest.fail("the block needs Java and Maven and KG_REQUIRE_NEO4J is set")
        return "scripts/neo4j-local needs Java and Maven"
    return None


BLOCKS = readme_blocks()[1:]


@pytest.mark.slow
@pytest.mark.parametrize(("where", "body", "note"), BLOCKS, ids=[b[0] for b in BLOCKS])
def test_readme_block_runs(workdir, where, body, note):
    if note is not None:
        pytest.skip(f"{where}: {note}")
    missing = _needs(body)
    if missing:
        pytest.skip(f"{where}: {missing}")
    _run_block(workdir, body)


def test_readme_fits_two_screens_and_links_every_docs_page():
    text = README.read_text(encoding="utf-8")
    assert text.count("\n") <= README_MAX_LINES
    pages = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md"))
    assert sorted(PAGES[1:]) == pages  # each page is run by the tests above
    assert all(f"]({page})" in text for page in pages), "a docs page the README does not link"


def test_cli_reference_is_what_the_app_says(tmp_path):
    """docs/cli.md is what `typer kg.cli utils docs --name kg --output docs/cli.md` writes."""
    out = tmp_path / "cli.md"
    typer = Path(sys.executable).parent / "typer"
    subprocess.run(
        [str(typer), "kg.cli", "utils", "docs", "--name", "kg", "--output", str(out)],
        check=True,
        capture_output=True,
        env={**os.environ, "COLUMNS": "80", "TERMINAL_WIDTH": "80"},
    )
    assert out.read_text(encoding="utf-8") == (ROOT / "docs" / "cli.md").read_text(
        encoding="utf-8"
    ), "docs/cli.md is stale: regenerate it with the command in the docstring"


def test_readme_outputs_are_ignored_by_git(workdir):
    """What the README's commands wrote (run above) is all in .gitignore."""
    shipped = set(
        subprocess.run(
            ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.splitlines()
    )
    made = sorted(
        p.name + ("/" if p.is_dir() else "")
        for p in workdir.iterdir()
        if p.name not in shipped and not any(s.startswith(f"{p.name}/") for s in shipped)
    )
    assert "out/" in made and "cooc.csv" in made
    check = subprocess.run(
        ["git", "check-ignore", "--no-index", "--verbose", "--non-matching", *made],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    not_ignored = [x.split("\t")[-1] for x in check.stdout.splitlines() if x.startswith("::")]
    assert not not_ignored, f"README outputs missing from .gitignore: {not_ignored}"
