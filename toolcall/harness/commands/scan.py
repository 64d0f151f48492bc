"""`toolcall scan`: secrets in cassettes, or in any file named."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..suite.profiles import Suite

HELP = "look for secrets in cassettes (fails on a hit)"
WRITES = False


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", type=Path, nargs="*", help="files or folders (default cassettes/)")


def run(suite: Suite, args: argparse.Namespace) -> int:
    """Exit 1 on a hit; a hit names the file and line, never the secret."""
    from ..recording import secrets

    paths: list[Path] = args.paths or [suite.cassettes]
    variables = [p.key_env for p in suite.providers.values()]
    hits = secrets.scan(paths, secrets.key_values(variables))
    for hit in hits:
        print(hit)
    print(f"secret scan: {len(hits)} hit(s) in {', '.join(map(str, paths))}")
    return 1 if hits else 0
