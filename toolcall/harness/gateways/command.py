"""`toolcall gateways`: install, start, stream, judge and report, for each gateway asked for.

Exit status: 0 when the table was made (a gateway's changes are findings, not errors of the
run, and a gateway that will not install is listed as unavailable), 1 with `--strict` when any
stream failed, which is how a user gates on their own gateway (`make gateways GATEWAY_URL=...`).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from pathlib import Path

from .. import serve
from ..profiles import Suite
from . import clients, process, report
from .known import ByURL, Gateway, builtin
from .run import Clients, GatewayRun, cases, run_gateway


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--gateway",
        action="append",
        default=[],
        help="check only this built-in gateway (litellm, portkey, openai-forward); repeatable",
    )
    parser.add_argument(
        "--gateway-url",
        help="check your own gateway instead: it must forward every path to toolcall serve "
        "(started on --serve-port)",
    )
    parser.add_argument(
        "--serve-port",
        type=int,
        default=0,
        help="port for toolcall serve on 127.0.0.1 (default: any free one)",
    )
    parser.add_argument("--markdown", type=Path, help="write the report as Markdown here")
    parser.add_argument("--json", type=Path, help="write the report as JSON here")
    parser.add_argument("--strict", action="store_true", help="exit 1 when any stream failed")
    parser.add_argument(
        "--no-clients",
        action="store_true",
        help="skip the HTTP clients (openai SDK, openai-node, Vercel AI SDK) through each gateway",
    )


def chosen(args: argparse.Namespace) -> list[Gateway]:
    if args.gateway_url:
        return [ByURL(args.gateway_url)]
    gateways = builtin()
    unknown = sorted(set(args.gateway) - {g.name for g in gateways})
    if unknown:
        raise ValueError(f"unknown gateway(s) {unknown}; known: {[g.name for g in gateways]}")
    return [g for g in gateways if not args.gateway or g.name in args.gateway]


def check(
    suite: Suite,
    gateways: Sequence[Gateway],
    *,
    serve_port: int = 0,
    provider: str | None = None,
    scenario: str | None = None,
    say: Callable[[str], None] = print,
    with_clients: bool = True,
) -> list[GatewayRun]:
    """Serve the suite, run each gateway over every case, stop everything started."""
    todo = cases(suite, provider=provider, scenario=scenario)
    runner = Clients(*clients.available()) if with_clients else Clients()
    with process.terminating(), serve.serving(suite, port=serve_port) as running:
        say(f"toolcall serve on {running.base_url}: {len(todo)} streams per gateway")
        try:
            return [
                run_gateway(g, running, todo, suite.root, say=say, clients=runner) for g in gateways
            ]
        finally:
            for client in runner.available:
                close = getattr(client, "close", None)
                if callable(close):
                    close()  # a client program is told to stop, not left running


def main(suite: Suite, args: argparse.Namespace) -> int:
    try:
        gateways = chosen(args)
    except ValueError as exc:
        print(f"error: {exc}")
        return 2
    try:
        runs = check(
            suite,
            gateways,
            serve_port=args.serve_port,
            provider=args.provider,
            scenario=args.scenario,
            with_clients=not args.no_clients,
        )
    except KeyboardInterrupt:
        print("interrupted: every gateway this run started has been stopped")
        return 130
    print(report.text(runs), end="")
    if args.markdown:
        args.markdown.parent.mkdir(parents=True, exist_ok=True)
        args.markdown.write_text(report.markdown(runs), encoding="utf-8")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report.document(runs), indent=2) + "\n", encoding="utf-8")
    failed = any(not r.passed for run in runs for r in run.results)
    return 1 if args.strict and (failed or any(run.unavailable for run in runs)) else 0
