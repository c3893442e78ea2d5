"""graph.ttl read by validators outside kg's Python stack: Apache Jena's riot (strict Turtle
parsing) and Jena's SHACL engine with schemas/shapes.ttl, besides pySHACL. On the sample
build and on a 2,000-abstract build of the shared arXiv corpus; and the saved SPARQL queries run
by Jena's ARQ, as Fuseki would run them."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pyshacl
import pytest
from rdflib import Graph, Namespace
from rdflib.namespace import SKOS

from kg.resources import schema_path
from tests.conftest import ROOT

JENA = ROOT / "scripts" / "jena-local"
SH = Namespace("http://www.w3.org/ns/shacl#")


@pytest.fixture(scope="session")
def jena() -> Path:
    """Apache Jena's jars, fetched from Maven Central by scripts/jena-local (cached)."""
    missing = [tool for tool in ("java", "mvn") if shutil.which(tool) is None]
    reason = f"{' and '.join(missing)} not installed" if missing else ""
    if not reason:
        done = subprocess.run([JENA, "fetch"], capture_output=True, text=True, timeout=900)
        reason = "" if done.returncode == 0 else f"scripts/jena-local fetch failed: {done.stderr}"
    if reason:
        if os.environ.get("KG_REQUIRE_JENA"):
            pytest.fail(f"Apache Jena is required (KG_REQUIRE_JENA is set) but {reason}")
        pytest.skip(f"no Apache Jena: {reason}")
    return JENA


def riot_validate(jena: Path, path: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [jena, "riot", "--validate", "--syntax=turtle", str(path)],
        capture_output=True,
        text=True,
        timeout=600,
    )


def assert_riot_clean(jena: Path, path: Path) -> None:
    """riot parses ``path`` with neither an error nor a warning."""
    done = riot_validate(jena, path)
    assert done.returncode == 0, done.stderr
    assert "ERROR" not in done.stderr and "WARN" not in done.stderr, done.stderr


def jena_shacl(jena: Path, path: Path) -> Graph:
    """Jena's SHACL validation report of ``path`` against kg's shapes, as a graph."""
    done = subprocess.run(
        [
            jena,
            "shacl",
            "validate",
            "--shapes",
            str(schema_path("shapes.ttl")),
            "--data",
            str(path),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    return Graph().parse(data=done.stdout, format="turtle")


def conforms(report: Graph) -> bool:
    (value,) = set(report.objects(None, SH.conforms))
    return value.toPython()


def test_sample_turtle_passes_riot_jena_shacl_and_pyshacl(sample_build, jena):
    path = sample_build / "graph.ttl"
    assert_riot_clean(jena, path)
    report = jena_shacl(jena, path)
    assert conforms(report), report.serialize(format="turtle")
    data = Graph().parse(path)
    ok, _, text = pyshacl.validate(
        data, shacl_graph=Graph().parse(schema_path("shapes.ttl")),
        ont_graph=Graph().parse(schema_path("kg.ttl")),
    )  # fmt: skip
    assert ok, text


@pytest.mark.slow
def test_2000_abstract_turtle_passes_riot_and_jena_shacl(build_2000, jena):
    path = build_2000 / "graph.ttl"
    assert_riot_clean(jena, path)
    report = jena_shacl(jena, path)
    assert conforms(report), report.serialize(format="turtle")[:5000]


def test_jena_catches_broken_turtle_and_a_shape_violation(sample_build, jena, tmp_path):
    broken = tmp_path / "broken.ttl"
    text = (sample_build / "graph.ttl").read_text(encoding="utf-8")
    broken.write_text(text + '\n<https://w3id.org/kg-abstracts/id/x> <urn:p> "open .\n')
    done = riot_validate(jena, broken)
    assert done.returncode != 0 and "line:" in done.stderr
    data = Graph().parse(sample_build / "graph.ttl")
    subject = next(data.subjects(SKOS.prefLabel, None))
    data.remove((subject, SKOS.prefLabel, None))
    unlabelled = tmp_path / "unlabelled.ttl"
    data.serialize(destination=str(unlabelled), format="turtle")
    report = jena_shacl(jena, unlabelled)
    assert not conforms(report)
    assert (None, SH.focusNode, subject) in report


def _cells(row) -> tuple[str, ...]:
    """A result row as text, the way SPARQL CSV writes it; numbers compared as numbers."""

    def cell(v) -> str:
        if v is None:
            return ""
        text = ("true" if v else "false") if isinstance(v, bool) else str(v)
        try:
            return f"{float(text):.6g}"
        except ValueError:
            return text

    return tuple(cell(v) for v in row)


@pytest.mark.slow
def test_saved_sparql_queries_give_the_same_rows_in_jena(sample_build, jena, tmp_path):
    """Each saved query, as `kg sparql --show` writes it for an endpoint, runs unchanged in
    Jena's ARQ (the engine and syntax of Fuseki) on graph.ttl and gives kg's rows."""
    import csv
    from concurrent.futures import ThreadPoolExecutor

    from kg.query.sparql import SparqlEngine, list_sparql_queries, render_query
    from tests.query.test_queries import _example_params

    engine, params = SparqlEngine(sample_build), _example_params(True)

    def compare(q) -> str | None:
        bound = q.bind(params.get(q.name, {}))
        path = tmp_path / f"{q.name}.rq"
        path.write_text(render_query(q.text, bound), encoding="utf-8")
        done = subprocess.run(
            [jena, "arq", "--data", str(sample_build / "graph.ttl"), "--query", str(path),
             "--results", "CSV"],
            capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        if done.returncode != 0:
            return f"{q.name}: Jena failed: {done.stderr}"
        header, *rows = list(csv.reader(done.stdout.splitlines()))
        ours = engine.run(q.text, bound)
        if header != ours.columns:
            return f"{q.name}: columns {header} != {ours.columns}"
        if sorted(map(_cells, rows)) != sorted(map(_cells, ours.rows)):
            return f"{q.name}: Jena's {len(rows)} rows differ from kg's {len(ours.rows)}"
        return None

    queries = list_sparql_queries()
    with ThreadPoolExecutor(2) as pool:
        problems = [p for p in pool.map(compare, queries) if p]
    assert not problems, "\n".join(problems)
