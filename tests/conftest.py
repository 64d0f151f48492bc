"""Shared fixtures: a private copy of the suite that a test may edit freely."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# litellm fetches a price list from the internet when it is imported unless told not to; tests
# import it (importorskip) before its adapter could say so. Nothing here may leave the machine.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


@pytest.fixture
def suite_copy(tmp_path: Path) -> Path:
    """providers.yaml, routes.yaml, scenarios.yaml and cassettes/ copied to a temporary root."""
    for name in ("providers.yaml", "routes.yaml", "scenarios.yaml"):
        shutil.copy(ROOT / name, tmp_path / name)
    shutil.copytree(ROOT / "cassettes", tmp_path / "cassettes")
    return tmp_path
