"""`toolcall case ID`: one case of the suite, everything a person debugging it needs on one screen.

What it is (kind, wire, provider, route, column, framing), where it comes from (the file of the
suite and its provenance), the request a client sent, the answer a correct implementation gives,
and the stream: its first decoded events, or with `--body` the bytes as a client is served them,
or with `--protocol` the exact `assemble` message a program of the implementation protocol
receives for it (`peers.external.assemble_message`, the one the matrix sends). An id no case has
is one line naming the nearest ids (exit 2); a case whose stream cannot be made, one line (exit 1).
`--list` lists the ids (those a glob matches).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..suite.profiles import Suite

if TYPE_CHECKING:
    from ..matrix.verdict import Expected
    from ..suite.case import Case

HELP = "show one case: what it is, where it comes from, its stream and the expected answer"
WRITES = False

#: How long one shown value may be before it is cut (a long argument holds 855 KB).
WIDTH = 160
EVENTS = 8


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("id", nargs="?", help="the case's id, as the reports and pytest show it")
    shown = parser.add_mutually_exclusive_group()
    shown.add_argument(
        "--list",
        action="store_true",
        help="list the ids of the cases instead: those ID matches as a glob (*, ?, [...]), or all",
    )
    shown.add_argument(
        "--body", action="store_true", help="write the stream's bytes as served, nothing else"
    )
    shown.add_argument(
        "--protocol",
        action="store_true",
        help="write the exact assemble message an external program receives, nothing else",
    )
    parser.add_argument(
        "--events",
        type=int,
        default=EVENTS,
        metavar="N",
        help=f"how many of the stream's events to show (default {EVENTS}; 0 for all)",
    )


def run(suite: Suite, args: argparse.Namespace) -> int:
    """Exit 2 for an id no case has (raised as a `FilterError`), 1 for a case whose stream or
    expectation cannot be made, else 0."""
    from ..peers.external import assemble_message, escaped
    from ..suite.case import CaseError, Filters, cases, find

    if args.list:
        for listed in cases(suite, Filters(case=args.id)):
            print(escaped(listed.id))
        return 0
    if args.id is None:
        print("toolcall case: give a case's id, or --list", file=sys.stderr)
        return 2
    case = find(suite, args.id)
    if (args.body or args.protocol) and case.not_applicable:
        print(f"toolcall: {case.id} is not applicable: {case.not_applicable}", file=sys.stderr)
        return 1
    try:
        if args.body:
            sys.stdout.buffer.write(case.body)
            return 0
        if args.protocol:
            print(json.dumps(assemble_message(case.stream, 1), ensure_ascii=False))
            return 0
        lines = _about(case)
        if not case.not_applicable:
            lines += _expected(case.expected) + _events(case, args.events)
    except CaseError as exc:
        print(f"toolcall: {exc}", file=sys.stderr)
        return 1
    print(escaped("\n".join(lines)))
    return 0


def _about(case: Case) -> list[str]:
    """What the case is and where it comes from, one field a line."""
    fields = [
        ("case", case.id),
        ("kind", case.kind),
        ("wire", case.wire),
        (
            "provider",
            case.provider + (f" (offered by {case.offered_by})" if _offered(case) else ""),
        ),
        ("route", case.route),
        ("column", case.scenario),
        ("framing", case.framing or "the wire's own"),
        ("source", case.source),
    ]
    lines = [f"{name:<11}{value}" for name, value in fields]
    lines += _provenance(case.provenance)
    if case.not_applicable:
        return [*lines, f"{'status':<11}not applicable: {case.not_applicable}"]
    return [*lines, f"{'request':<11}{_cut(json.dumps(case.request, ensure_ascii=False))}"]


def _offered(case: Case) -> bool:
    return bool(case.offered_by) and case.offered_by != case.provider


def _provenance(provenance: Mapping[str, Any], indent: str = "") -> list[str]:
    """The provenance fields, one a line (a cut's recording's nested under it)."""
    if not provenance:
        return []
    lines = [] if indent else ["provenance"]
    for key, value in provenance.items():
        if isinstance(value, Mapping):
            lines.append(f"  {indent}{key}:")
            lines += _provenance(value, indent + "  ")
        else:
            shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
            lines.append(f"  {indent}{key}: {_cut(str(shown))}")
    return lines


def _expected(expected: Expected) -> list[str]:
    """The answer a correct implementation gives, as the matrix judges it."""
    if expected.truncated:
        return [
            f"{'expected':<11}the cut reported: an error, not calls (the stream says "
            f"{expected.cut_said})"
        ]
    if expected.error is not None:
        return [f"{'expected':<11}an error reported: the stream is {expected.error}"]
    lines = [f"{'expected':<11}{len(expected.calls)} call(s)"]
    lines += [
        f"  {call.id or '(no id)'} {call.name} {_cut(call.arguments)}" for call in expected.calls
    ]
    if expected.schema:
        lines.append("  and the scenario's expect schema (scenarios.yaml) holds for the turn")
    return lines


def _events(case: Case, count: int) -> list[str]:
    """The stream's first `count` decoded events (all with 0), one a line."""
    from ..reading.wires import UnreadableBody

    body = case.body
    try:
        events = case.stream.events
    except UnreadableBody as exc:
        return [f"{'stream':<11}{len(body)} bytes that do not decode: {exc} (--body shows them)"]
    lines = [f"{'stream':<11}{len(body)} bytes, {len(events)} events"]
    shown = events if count <= 0 else events[:count]
    lines += [
        f"  {n:>3} {_cut(json.dumps(event, ensure_ascii=False))}"
        for n, event in enumerate(shown, start=1)
    ]
    if len(shown) < len(events):
        lines.append(
            f"  ... {len(events) - len(shown)} more (--events 0 for all, --body for the bytes)"
        )
    return lines


def _cut(text: str, width: int = WIDTH) -> str:
    return text if len(text) <= width else f"{text[: width - 3]}... ({len(text)} chars)"
