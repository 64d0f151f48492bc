"""`toolcall conformance`: every check of the suite, as the matrix on the terminal."""

from __future__ import annotations

import argparse
from pathlib import Path

from .. import cassettes, conformance_report, recordings, streams, synthesize
from ..checks import check_cell, check_cut, check_recording, check_route_cell, route_cassettes
from ..checks.outcome import Outcome
from ..profiles import Suite
from .common import add_filters, write_json, write_text

HELP = "replay every cassette and print the matrix"
WRITES = False


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_filters(parser)
    parser.add_argument("--markdown", type=Path, help="also write the matrix as Markdown here")
    parser.add_argument("--json", type=Path, help="also write the report as JSON here")


def run(suite: Suite, args: argparse.Namespace) -> int:
    """Exit 1 when any case fails."""
    outcomes = outcomes_of(suite, args.provider, args.scenario)
    print(conformance_report.text(outcomes))
    if args.markdown:
        write_text(args.markdown, conformance_report.markdown(outcomes))
    if args.json:
        write_json(args.json, conformance_report.document(outcomes))
    return 1 if any(o.status == "fail" for o in outcomes) else 0


def outcomes_of(suite: Suite, provider: str | None, scenario: str | None) -> list[Outcome]:
    """Every case the filters keep, checked: cells, route cassettes, the other wires' cells and,
    unless one scenario is asked for, the published recordings and the cut-off variants."""
    outcomes = [check_cell(suite, p, c) for p, _s, c in suite.cells(provider, scenario)]
    outcomes += [
        check_route_cell(suite, key, route, path)
        for key, route, _name, path in route_cassettes(suite, provider, scenario)
    ]
    outcomes += [
        check_cell(suite, p, c, wire)
        for p, c, wire in synthesize.cells(suite, provider, scenario)
        if wire != cassettes.CHAT
    ]
    if not scenario:
        found = recordings.selected(suite, provider)
        outcomes += [check_recording(suite, r) for r in found]
        outcomes += [check_cut(suite, c) for c in streams.cuts(suite, provider)]
    return outcomes
