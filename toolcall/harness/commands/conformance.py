"""`toolcall conformance`: every check of the suite, as the matrix on the terminal."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..checks.outcome import Outcome
from ..reports import conformance as conformance_report
from ..suite.case import Filters, cases, check
from ..suite.profiles import Suite
from .common import add_case_filters, filters_of, write_json, write_text

HELP = "replay every cassette and print the matrix"
WRITES = False


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_case_filters(parser)
    parser.add_argument("--markdown", type=Path, help="also write the matrix as Markdown here")
    parser.add_argument("--json", type=Path, help="also write the report as JSON here")


def run(suite: Suite, args: argparse.Namespace) -> int:
    """Exit 1 when any case fails."""
    outcomes = outcomes_of(suite, filters_of(args))
    print(conformance_report.text(outcomes))
    if args.markdown:
        write_text(args.markdown, conformance_report.markdown(outcomes))
    if args.json:
        write_json(args.json, conformance_report.document(outcomes))
    return 1 if any(o.status == "fail" for o in outcomes) else 0


def outcomes_of(suite: Suite, filters: Filters) -> list[Outcome]:
    """Every case the filters keep (`case.cases`), checked."""
    return [check(suite, case) for case in cases(suite, filters)]
