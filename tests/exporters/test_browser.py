"""End to end: the Neo4j Browser, in headless Chromium driven by Playwright, draws a saved query."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from kg.exporters.jsonio import read_build_graph
from kg.exporters.neo4j import load_neo4j
from kg.query import Neo4jEngine, get_query, run_saved
from tests.conftest import ROOT, local_neo4j_ports
from tests.query.test_queries import _example_paper

BROWSER_DIR = ROOT / "tests" / "browser"
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")


def _require_tools() -> None:
    missing = []
    if shutil.which("node") is None:
        missing.append("Node.js")
    if not os.path.exists(CHROMIUM):
        missing.append(f"Chromium at {CHROMIUM} (Debian: apt-get install chromium)")
    if not (BROWSER_DIR / "node_modules" / "playwright-core").is_dir():
        missing.append("playwright-core (npm ci --prefix tests/browser)")
    if missing:
        reason = "browser test needs " + ", ".join(missing)
        if os.environ.get("KG_REQUIRE_BROWSER"):
            pytest.fail(reason + " (KG_REQUIRE_BROWSER is set)")
        pytest.skip(reason)


def test_neo4j_browser_draws_a_saved_query(example_build, empty_neo4j, neo4j_settings):
    _require_tools()
    bolt, http = local_neo4j_ports()
    if neo4j_settings.uri != f"bolt://127.0.0.1:{bolt}":
        pytest.skip("the Browser test runs against the local test server only")
    load_neo4j(read_build_graph(example_build[0]), empty_neo4j)
    params = {"paper": _example_paper("StrideTAD")}
    expected = run_saved(Neo4jEngine(empty_neo4j), "paper-graph", params)
    keys = {row[0]["key"] for row in expected.rows} | {row[2]["key"] for row in expected.rows}

    ARTIFACTS.mkdir(exist_ok=True)
    screenshot = ARTIFACTS / "neo4j-browser-paper-graph.png"
    screenshot.unlink(missing_ok=True)
    env = {
        **os.environ,
        "KG_BROWSER_URL": f"http://127.0.0.1:{http}/browser/",
        "KG_BOLT_URL": neo4j_settings.uri,
        "NEO4J_PASSWORD": neo4j_settings.password,
        "KG_QUERY": get_query("paper-graph").text_for("neo4j"),
        "KG_PARAMS": json.dumps(params),
        "KG_SCREENSHOT": str(screenshot),
        "CHROMIUM": CHROMIUM,
    }
    proc = subprocess.run(
        ["node", "neo4j_browser.mjs"],
        cwd=BROWSER_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    seen = json.loads(proc.stdout.strip().splitlines()[-1])
    assert seen["errors"] == []
    assert seen["nodes"] == len(keys)  # the paper and every entity it mentions, drawn
    assert seen["relationships"] >= len(expected.rows)
    assert screenshot.stat().st_size > 10_000
