"""Shared fixtures: the real kg pipeline (loaded once) and paths to shared data."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
EXAMPLES = ROOT / "examples" / "abstracts.txt"


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
    from kg.build import build

    out = tmp_path_factory.mktemp("example") / "out"
    summary = build([EXAMPLES], out)
    return out, summary
