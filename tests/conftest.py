"""Shared fixtures: a private copy of the suite that a test may edit freely."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def suite_copy(tmp_path: Path) -> Path:
    """providers.yaml, scenarios.yaml and cassettes/ copied to a temporary root."""
    for name in ("providers.yaml", "scenarios.yaml"):
        shutil.copy(ROOT / name, tmp_path / name)
    shutil.copytree(ROOT / "cassettes", tmp_path / "cassettes")
    return tmp_path
