"""`toolcall doctor`: a captured stream examined: what it is, what is wrong, who breaks on it.

Exit 0 when the turn is sound, 1 when a finding says it is not (or, with two captures, when a
layer changed the calls or made the turn unsound), 2 when a capture cannot be read.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ..doctor import compare, render
from ..doctor.capture import CaptureError
from ..doctor.opening import open_capture
from ..doctor.report import Options, dumps, examine
from ..matrix.run import UnknownImplementation
from ..reading import wires
from ..suite.profiles import Suite

HELP = (
    "examine a captured stream (body, curl -i/-v, HAR, cassette): what it is, what is wrong, "
    "who breaks on it"
)
WRITES = False


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="the capture, or - for standard input")
    parser.add_argument("file2", nargs="?", help="a second capture of the same turn, to compare")
    out = parser.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="the report as JSON (doctor.schema.json)")
    out.add_argument("--markdown", action="store_true", help="a bug report to paste")
    parser.add_argument(
        "--wire", choices=["auto", *wires.NAMES], default="auto", help="the wire, if not told"
    )
    parser.add_argument(
        "--request", type=Path, help="the request body (JSON), to check the calls against"
    )
    parser.add_argument("--entry", type=int, help="the entry of a HAR file or cassette to read")
    parser.add_argument(
        "--implementation",
        action="append",
        default=[],
        metavar="NAME",
        help="only these clients (repeatable; default: every one that can run here)",
    )
    parser.add_argument(
        "--external", action="append", default=[], metavar="NAME=COMMAND", help="a program of yours"
    )
    parser.add_argument(
        "--no-clients", action="store_true", help="do not hand the stream to clients"
    )
    parser.add_argument(
        "--body-out",
        type=Path,
        metavar="FILE",
        help="write the body alone there, as a client receives it (for toolcall publish)",
    )
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per external program")


def run(suite: Suite, args: argparse.Namespace) -> int:
    try:
        options = _options(args)
        first = _examine(suite, args.file, args, options)
        second = None if args.file2 is None else _examine(suite, args.file2, args, options)
    except (CaptureError, UnknownImplementation) as exc:
        print(f"toolcall doctor: {exc}", file=sys.stderr)
        return 2
    if second is not None:
        return _compared(first, second, args)
    if args.json:
        sys.stdout.write(dumps(first) + "\n")
    elif args.markdown:
        sys.stdout.write(render.markdown(first))
    else:
        sys.stdout.write(render.text(first))
    return 0 if first["sound"] else 1


def _options(args: argparse.Namespace) -> Options:
    asked = None
    if args.request is not None:
        try:
            asked = json.loads(args.request.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise CaptureError(
                f"--request {args.request}: not a JSON request body ({exc})"
            ) from None
        if not isinstance(asked, dict):
            raise CaptureError(f"--request {args.request}: not a JSON object")
    return Options(
        wire=args.wire,
        request=asked,
        implementations=args.implementation,
        externals=args.external,
        clients=not args.no_clients,
        timeout=args.timeout,
        body_out=args.body_out,
    )


def _examine(suite: Suite, name: str, args: argparse.Namespace, options: Options) -> dict[str, Any]:
    capture = open_capture(name, args.entry, sys.stdin.buffer)
    try:
        document = examine(suite, capture, options)
    except CaptureError as exc:
        raise CaptureError(f"{name}: {exc}") from None
    if not document["capture"]["events"]:
        raise CaptureError(f"{name}: no event could be read from it: is it a captured body?")
    return document


def _compared(a: dict[str, Any], b: dict[str, Any], args: argparse.Namespace) -> int:
    found = compare.changes(a, b)
    if args.json:
        sys.stdout.write(
            dumps({"report": "doctor-compare", "version": 1, "a": a, "b": b, "changes": found})
            + "\n"
        )
    elif args.markdown:
        sys.stdout.write(compare.markdown(a, b, found))
    else:
        sys.stdout.write(compare.text(a, b, found))
    return 1 if breaking(found) else 0


def breaking(found: list[dict[str, Any]]) -> bool:
    """Whether a layer changed what the application acts on: the calls, or the turn's soundness."""
    lost = {"calls", "ids", "names", "arguments"}
    return any(c["layer"] in lost or c["what"] == "the turn is sound" for c in found)
