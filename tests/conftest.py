"""Shared fixtures: the real kg pipeline (loaded once) and paths to shared data."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kg.orchestrate import ExportOptions, ExtractOptions

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
EXAMPLES = ROOT / "examples" / "abstracts.txt"


# --- markers (registered in pyproject.toml) ---------------------------------

NEO4J_FIXTURES = {"neo4j_settings", "neo4j_driver", "empty_neo4j"}
SHARED_FIXTURES = {"sample_build", "build_2000"}
BROWSER_HELPERS = ("_require_tools(", "_browser_script(", "_first_view(", "_open(")


def pytest_itemcollected(item):
    """Mark each test by what it needs (``-m "not neo4j"`` and the like select)."""
    import inspect

    names = set(getattr(item, "fixturenames", ()))
    try:
        source = inspect.getsource(item.function) if hasattr(item, "function") else ""
    except (OSError, TypeError):
        source = ""
    module = item.path.stem
    if names & NEO4J_FIXTURES or module in {"test_neo4j_import", "test_neo4j_local"}:
        item.add_marker(pytest.mark.neo4j)
    if "jena" in names:
        item.add_marker(pytest.mark.jena)
    if module == "test_browser" or any(h in source for h in BROWSER_HELPERS):
        item.add_marker(pytest.mark.browser)
    if names & SHARED_FIXTURES or "shared_path(" in source or module == "test_readme":
        item.add_marker(pytest.mark.shared)


def shared_path(*parts: str) -> Path:
    """Return a path under ../shared, skipping the test with a reason if it is absent."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        if os.environ.get("KG_REQUIRE_SHARED"):
            pytest.fail(f"{path} is missing and KG_REQUIRE_SHARED is set")
        pytest.skip(f"{path} is not available (the shared data folder sits beside the repo)")
    return path


@pytest.fixture(scope="session")
def nlp():
    from kg.nlp import load_pipeline

    return load_pipeline()


@pytest.fixture(scope="session")
def example_build(tmp_path_factory):
    """A full ``kg build`` of the shipped example corpus."""
    from kg.orchestrate import build

    out = tmp_path_factory.mktemp("example") / "out"
    summary = build([EXAMPLES], out)
    return out, summary


# --- a real Neo4j server -------------------------------------------------------------------

NEO4J_SCRIPT = ROOT / "scripts" / "neo4j-local"
TEST_PASSWORD = "kg-test-password"


def _neo4j_unavailable(reason: str):
    if os.environ.get("KG_REQUIRE_NEO4J"):
        pytest.fail(f"Neo4j is required (KG_REQUIRE_NEO4J is set) but {reason}")
    pytest.skip(f"no Neo4j server: {reason}")


def local_neo4j_env(name: str, bolt_port: int, http_port: int) -> dict[str, str]:
    """Environment for scripts/neo4j-local running a throwaway test server called ``name``."""
    cache = Path(os.environ.get("KG_NEO4J_TEST_HOME", Path.home() / ".cache" / "kg" / "test"))
    return {
        **os.environ,
        "KG_NEO4J_HOME": str(cache / name),
        "KG_NEO4J_BOLT_PORT": str(bolt_port),
        "KG_NEO4J_HTTP_PORT": str(http_port),
        "NEO4J_PASSWORD": TEST_PASSWORD,
    }


def local_neo4j_ports() -> tuple[int, int]:
    """The Bolt and HTTP ports of this test process's Neo4j server: each pytest-xdist worker
    (``gwN``) has its own, so workers never share one server."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    n = int(worker[2:]) if worker[2:].isdigit() else 0
    return 17687 + 30 * n, 17474 + 30 * n


def neo4j_local(command: str, env: dict[str, str], *args: str, timeout: int = 900):
    """Run ``scripts/neo4j-local COMMAND`` with ``env``; fail the test with its output."""
    import subprocess

    proc = subprocess.run(
        [str(NEO4J_SCRIPT), command, *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if proc.returncode != 0:
        pytest.fail(f"scripts/neo4j-local {command} failed:\n{proc.stdout}\n{proc.stderr}")
    return proc


@pytest.fixture(scope="session")
def neo4j_settings():
    """Settings of a real Neo4j server the tests may wipe.

    NEO4J_URI (with NEO4J_USERNAME / NEO4J_PASSWORD) when set; otherwise a local
    server started with scripts/neo4j-local (Java and Maven needed) and stopped
    after the session.
    """
    import shutil

    from kg.exporters.neo4j import Neo4jSettings, connect

    if os.environ.get("NEO4J_URI"):
        from kg.cli._neo4j import neo4j_settings

        settings = neo4j_settings()
        driver = connect(settings)
        try:
            records, _, _ = driver.execute_query(
                "MATCH (n) WHERE NOT n:Paper AND NOT n:Method AND NOT n:Task AND NOT n:Dataset "
                "AND NOT n:Metric AND NOT n:Result RETURN count(n) AS n",
                database_=settings.database,
            )
        finally:
            driver.close()
        if records[0]["n"] and not os.environ.get("KG_TEST_NEO4J_WIPE"):
            pytest.fail(
                f"the tests empty the database at {settings.uri}, which holds non-kg nodes; "
                "point NEO4J_URI at a throwaway database or set KG_TEST_NEO4J_WIPE=1"
            )
        yield settings
        return
    missing = [tool for tool in ("java", "mvn") if shutil.which(tool) is None]
    if missing:
        _neo4j_unavailable(f"NEO4J_URI is not set and {' and '.join(missing)} not installed")
    bolt, http = local_neo4j_ports()
    env = local_neo4j_env(f"main-{bolt}", bolt, http)
    neo4j_local("start", env)
    try:
        yield Neo4jSettings(uri=f"bolt://127.0.0.1:{bolt}", password=TEST_PASSWORD)
    finally:
        neo4j_local("stop", env)


@pytest.fixture(scope="session")
def neo4j_driver(neo4j_settings):
    from kg.exporters.neo4j import connect

    driver = connect(neo4j_settings)
    yield driver
    driver.close()


@pytest.fixture()
def empty_neo4j(neo4j_driver, neo4j_settings):
    """The test Neo4j database, emptied."""
    neo4j_driver.execute_query("MATCH (n) DETACH DELETE n", database_=neo4j_settings.database)
    return neo4j_driver


@pytest.fixture(scope="session")
def sample_build(tmp_path_factory):
    """A full ``kg build`` of the shared sample corpus (daily_papers.txt)."""
    from kg.orchestrate import build

    corpus = shared_path("corpora", "daily_papers.txt")
    out = tmp_path_factory.mktemp("sample") / "out"
    summary = build([corpus], out)
    assert summary.papers == 120 and len(summary.skipped) == 1  # the title line
    return out


N_2000 = 2000


@pytest.fixture(scope="session")
def build_2000(tmp_path_factory):
    """A build (lines, graph.json and Turtle) of the first 2,000 abstracts of the shared
    arXiv corpus, made once for the whole run: the pytest-xdist workers share it (the
    first to ask builds it under a file lock, the other waits for it)."""
    import fcntl
    import gzip
    import itertools

    from kg.orchestrate import build

    corpus = shared_path("corpora", "ml_abstracts.jsonl.gz")
    root = tmp_path_factory.getbasetemp().parent  # one folder for every worker of a run
    work = root / "build2000"
    with open(root / "build2000.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (work / "done").exists():
            work.mkdir(exist_ok=True)
            with gzip.open(corpus, "rb") as fh, open(work / "papers.jsonl", "wb") as out:
                out.writelines(itertools.islice(fh, N_2000))
            summary = build(
                [work / "papers.jsonl"],
                work / "out",
                extract=ExtractOptions(n_process=2),
                export=ExportOptions(outputs=("jsonl", "json", "ttl")),
            )
            assert summary.papers == N_2000
            (work / "done").touch()
    return work / "out"
