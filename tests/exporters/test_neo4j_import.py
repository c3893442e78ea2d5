"""`kg export neo4j-csv` imported by the real neo4j-admin equals what the loader writes."""

from __future__ import annotations

import shutil

import pytest

from kg.exporters.jsonio import read_build_graph
from kg.exporters.neo4j import Neo4jSettings, apply_schema, connect, database_counts, load_neo4j
from kg.exporters.neo4j_csv import write_neo4j_csv
from kg.query import Neo4jEngine, list_queries, run_saved
from tests.conftest import TEST_PASSWORD, local_neo4j_env, neo4j_local
from tests.exporters.test_neo4j import _snapshot, nasty_graph
from tests.query.test_queries import _example_params


@pytest.fixture()
def imported_server(tmp_path):
    """A second, throwaway local server to import CSV files into; yields (env, settings)."""
    missing = [tool for tool in ("java", "mvn") if shutil.which(tool) is None]
    if missing:
        import os

        if os.environ.get("KG_REQUIRE_NEO4J"):
            pytest.fail(f"neo4j-admin needs {' and '.join(missing)}")
        pytest.skip(f"neo4j-admin needs {' and '.join(missing)}")
    env = local_neo4j_env("import", 17688, 17475)
    neo4j_local("stop", env)
    shutil.rmtree(env["KG_NEO4J_HOME"], ignore_errors=True)
    yield env, Neo4jSettings(uri="bolt://127.0.0.1:17688", password=TEST_PASSWORD)
    neo4j_local("stop", env)


def _import(graph, env, tmp_path):
    export = write_neo4j_csv(graph, tmp_path / "csv")
    proc = neo4j_local("admin", env, *export.import_args())
    assert "IMPORT DONE" in proc.stdout + proc.stderr
    neo4j_local("start", env)


@pytest.mark.slow
def test_csv_import_equals_the_loader(example_build, empty_neo4j, imported_server, tmp_path):
    env, settings = imported_server
    G = read_build_graph(example_build[0])
    load_neo4j(G, empty_neo4j)
    _import(G, env, tmp_path)
    driver = connect(settings)
    try:
        apply_schema(driver)
        assert database_counts(driver) == database_counts(empty_neo4j)
        params = _example_params(sample=False)
        for q in list_queries():
            given = params.get(q.name, {})
            imported = run_saved(Neo4jEngine(driver), q.name, given)
            loaded = run_saved(Neo4jEngine(empty_neo4j), q.name, given)
            assert imported.rows == loaded.rows, q.name
        nodes, rels = _snapshot(driver)
        loaded_nodes, loaded_rels = _snapshot(empty_neo4j)
        assert rels == loaded_rels
        for imported_node, loaded_node in zip(nodes, loaded_nodes, strict=True):
            # the loader stores empty lists, an import leaves those properties out
            for key, value in loaded_node["props"].items():
                if value == []:
                    imported_node["props"].setdefault(key, [])
            assert imported_node == loaded_node
    finally:
        driver.close()


@pytest.mark.slow
def test_csv_import_keeps_nasty_names(empty_neo4j, imported_server, tmp_path):
    env, settings = imported_server
    G = nasty_graph()
    load_neo4j(G, empty_neo4j)
    _import(G, env, tmp_path)
    driver = connect(settings)
    try:
        assert _snapshot(driver)[1] == _snapshot(empty_neo4j)[1]
        q = "MATCH (m:Method) RETURN m.name AS name, m.aliases AS aliases ORDER BY m.key"
        assert driver.execute_query(q).records == empty_neo4j.execute_query(q).records
    finally:
        driver.close()
