"""scripts/neo4j-local: a changed NEO4J_PASSWORD is applied or refused, never ignored."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from tests.conftest import NEO4J_SCRIPT, local_neo4j_env


def _run(env: dict[str, str], command: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(NEO4J_SCRIPT), command], env=env, capture_output=True, text=True, timeout=300
    )


@pytest.mark.slow
def test_neo4j_local_changed_password_is_refused_or_applied(tmp_path):
    if shutil.which("java") is None or shutil.which("mvn") is None:
        if os.environ.get("KG_REQUIRE_NEO4J"):
            pytest.fail("Java and Maven are required (KG_REQUIRE_NEO4J is set)")
        pytest.skip("Java and Maven are needed for scripts/neo4j-local")
    first = {**local_neo4j_env("password", 17697, 17484), "KG_NEO4J_HOME": str(tmp_path)}
    first["NEO4J_PASSWORD"] = "first-password"
    changed = {**first, "NEO4J_PASSWORD": "second-password"}
    started = _run(first, "start")
    assert started.returncode == 0, started.stderr
    try:
        refused = _run(changed, "start")
        assert refused.returncode != 0
        assert "not the password this server has stored" in refused.stderr
        assert "NEO4J_OLD_PASSWORD" in refused.stderr  # and how to change it
        applied = _run({**changed, "NEO4J_OLD_PASSWORD": "first-password"}, "start")
        assert applied.returncode == 0, applied.stderr
        assert "password of user neo4j changed" in applied.stderr
        again = _run(changed, "start")
        assert again.returncode == 0, again.stderr

        from kg.exporters.neo4j import Neo4jSettings, connect

        driver = connect(Neo4jSettings(uri="bolt://127.0.0.1:17697", password="second-password"))
        try:
            records, _, _ = driver.execute_query("RETURN 1 AS one")
            assert records[0]["one"] == 1
        finally:
            driver.close()
        assert _run(first, "start").returncode != 0  # the old one no longer works
    finally:
        _run(first, "stop")
