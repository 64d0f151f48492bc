"""What several commands share: the filters they narrow by, and writing what they report."""

from __future__ import annotations

import argparse
import errno
import json
from pathlib import Path
from typing import TYPE_CHECKING

from ..suite.profiles import Suite

if TYPE_CHECKING:
    from ..suite.case import Filters


def add_filters(parser: argparse.ArgumentParser) -> None:
    """`--provider` and `--scenario`, which every command that walks the suite narrows by."""
    parser.add_argument("--provider", help="only this provider (a providers.yaml key)")
    parser.add_argument("--scenario", help="only this scenario (a scenarios.yaml key)")


def add_case_filters(parser: argparse.ArgumentParser) -> None:
    """The filters of a command that runs over the suite's cases (`case.Filters`): any name a
    report shows, checked against the suite before anything runs."""
    parser.add_argument(
        "--provider",
        help="only this provider: any name a report shows (a providers.yaml key, a recording's "
        "provider such as anthropic, a row such as deepseek@anthropic)",
    )
    parser.add_argument(
        "--scenario",
        help="only this column: a scenarios.yaml key, long_arguments_truncated, or a "
        "recording's column (published/<name>, <wire>/<name>)",
    )
    parser.add_argument("--wire", help="only the cases of this wire (chat, responses, ...)")
    parser.add_argument("--route", help="only the cases that came through this route")
    parser.add_argument(
        "--case", metavar="ID", help="only this case: its exact id, or a glob (*, ?, [...])"
    )
    parser.add_argument(
        "--kind",
        help="only the cases of this kind (cell, route, published, wire-recording, cut)",
    )


def filters_of(args: argparse.Namespace) -> Filters:
    """The filters `add_case_filters` read from the command line."""
    from ..suite.case import Filters

    return Filters(
        wire=args.wire,
        provider=args.provider,
        route=args.route,
        scenario=args.scenario,
        case=args.case,
        kind=args.kind,
    )


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


def cannot_listen(host: str, port: int, exc: OSError) -> str:
    """Why `toolcall serve` could not listen, and what to change: said in one line by every
    command that starts it (`serve`, `gateways`), never as a traceback."""
    where = f"{host}:{port}"
    if exc.errno == errno.EADDRINUSE:
        return (
            f"{where} is already in use; stop what listens there, or "
            "choose another port with --port (0 picks a free one)"
        )
    return f"cannot listen on {where}: {exc.strerror or exc}; check --host and --port"
