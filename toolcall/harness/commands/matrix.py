"""`toolcall matrix`: every implementation (ours, the peers, external programs) over every case."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ..matrix.run import COLUMN_BUDGET
from ..peers.external import DEFAULT_TIMEOUT
from ..suite.profiles import Suite
from .common import add_case_filters, filters_of, write_json, write_text

HELP = "run every assembler (ours and its peers) over every cassette, side by side"
WRITES = False


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_case_filters(parser)
    parser.add_argument(
        "--implementation",
        action="append",
        metavar="NAME",
        help="only this implementation (repeatable; default: all)",
    )
    parser.add_argument(
        "--external",
        action="append",
        default=[],
        metavar="NAME=COMMAND",
        help="also run this program through the subprocess protocol (repeatable; docs/MATRIX.md)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        help=f"seconds an external program gets per stream (default {DEFAULT_TIMEOUT:g})",
    )
    parser.add_argument(
        "--column-budget",
        type=float,
        default=COLUMN_BUDGET,
        help="seconds one implementation gets for all its streams; the rest are skipped "
        f"(default {COLUMN_BUDGET:g})",
    )
    parser.add_argument("--markdown", type=Path, help="also write the matrix as Markdown here")
    parser.add_argument("--json", type=Path, help="also write the matrix as JSON here")


def run(suite: Suite, args: argparse.Namespace) -> int:
    """Peers that fail are data (exit 0); exit 1 when the run broke, the reference failed or an
    external program never started. External programs run in the caller's directory, where the
    relative paths of their commands were written; progress goes to standard error."""
    from ..matrix import run as matrix
    from ..peers.external import SpecError, environment_specs
    from ..recording import secrets
    from ..reports import matrix as matrix_report

    try:
        implementations, unavailable = matrix.roster(
            args.implementation,
            [*environment_specs(os.environ), *args.external],
            timeout=args.timeout,
            keys=secrets.key_values(p.key_env for p in suite.providers.values()),
        )
    except SpecError as exc:
        print(f"toolcall: --external {exc}", file=sys.stderr)
        return 2
    except matrix.UnknownImplementation as exc:
        print(f"toolcall: {exc}", file=sys.stderr)
        return 2
    try:
        result = matrix.run(
            suite,
            implementations,
            filters=filters_of(args),
            progress=sys.stderr,
            column_budget=args.column_budget,
        )
    except matrix.MatrixError as exc:
        print(f"toolcall: the matrix run broke: {exc}", file=sys.stderr)
        return 1
    result.unavailable.update(unavailable)
    print(matrix_report.text(result))
    if args.markdown:
        write_text(args.markdown, matrix_report.markdown(result))
    if args.json:
        write_json(args.json, matrix_report.document(result))
    if result.never_started:
        for name in result.never_started:
            print(f"toolcall: {name} never started: {result.unavailable[name]}", file=sys.stderr)
        return 1
    if result.reference_failed:
        print("toolcall: the reference implementation failed a cell", file=sys.stderr)
        return 1
    return 0
