"""What several commands share: the provider and scenario filters, and writing what they report."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from ..profiles import Suite


def add_filters(parser: argparse.ArgumentParser) -> None:
    """`--provider` and `--scenario`, which every command that walks the suite narrows by."""
    parser.add_argument("--provider", help="only this provider (a providers.yaml key)")
    parser.add_argument("--scenario", help="only this scenario (a scenarios.yaml key)")


def write_json(path: Path, document: object) -> None:
    """A report's JSON, indented for a reader's diff, its folder made first."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def write_text(path: Path, text: str) -> None:
    """A report's Markdown, its folder made first."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def shown(path: Path, suite: Suite) -> str:
    """A path relative to the suite when it is inside it (shorter in a terminal)."""
    try:
        return str(path.relative_to(suite.root))
    except ValueError:
        return str(path)
