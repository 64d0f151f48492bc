"""`toolcall gateways`: install, start, stream, judge and report, for each gateway asked for.

Exit status: 0 when the table was made (a gateway's changes are findings, not errors of the
run, and a gateway that will not install is listed as unavailable), 1 with `--strict` when any
stream failed, which is how a user gates on their own gateway (`make gateways GATEWAY_URL=...`).

`--from-json` renders a run written before (`--json`) instead of making one, and `--docs`
rewrites the gateway section of docs/MATRIX.md from it (`make gateways-docs`): the published
tables come from a run, dated and with its versions, never from an edit by hand.
"""

from __future__ import annotations

import argparse
import json
import platform
import shutil
import subprocess
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timezone
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as installed_version
from pathlib import Path
from typing import Any

from .. import serving
from ..commands.common import add_filters, cannot_listen
from ..suite.profiles import Suite
from . import clients, process, report
from .known import ByURL, Gateway, builtin
from .run import Clients, GatewayRun, cases, run_gateway

HELP = "stream every cassette through real gateways and judge what they change"
#: It installs into .gateways/ and needs the committed gateways/ folder.
WRITES = True


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_filters(parser)
    parser.add_argument(
        "--gateway",
        action="append",
        default=[],
        help="check only this built-in gateway (litellm, portkey, portkey-providers, "
        "openai-forward); repeatable",
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
        "--from-json",
        type=Path,
        help="make no run: render the run a previous --json wrote (for --markdown, --docs)",
    )
    parser.add_argument(
        "--docs",
        type=Path,
        help="rewrite the generated gateway section of this file (docs/MATRIX.md) from the run",
    )
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
    runner: Clients | None = None,
) -> list[GatewayRun]:
    """Serve the suite, run each gateway over every case (with `runner`'s HTTP clients, none
    by default), stop everything started."""
    todo = cases(suite, provider=provider, scenario=scenario)
    runner = runner or Clients()
    with process.terminating(), serving.serving(suite, port=serve_port) as running:
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


def about(
    runner: Clients, *, provider: str | None, scenario: str | None, gateways: Sequence[str]
) -> dict[str, Any]:
    """When the run was made, with what, over what: what docs/MATRIX.md says above its tables."""
    try:
        ours = installed_version("toolcall")
    except PackageNotFoundError:
        ours = "(not installed)"
    chosen = {"provider": provider, "scenario": scenario, "gateway": list(gateways)}
    return {
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "toolcall": ours,
        "python": platform.python_version(),
        "node": _node_version(),
        "clients": {c.name: c.version for c in runner.available},
        "selection": {k: v for k, v in chosen.items() if v},
    }


def _node_version() -> str:
    node = shutil.which("node")
    if node is None:
        return "not installed"
    try:
        done = subprocess.run([node, "--version"], capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return "(version unknown)"
    return done.stdout.decode("utf-8", "replace").strip() or "(version unknown)"


def run(suite: Suite, args: argparse.Namespace) -> int:
    if args.from_json:
        try:
            document = json.loads(args.from_json.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            print(f"error: cannot read the run {args.from_json}: {exc}")
            return 2
        return _write(document, args, failed=False)
    try:
        gateways = chosen(args)
    except ValueError as exc:
        print(f"error: {exc}")
        return 2
    runner = Clients(*clients.available()) if not args.no_clients else Clients()
    try:
        runs = check(
            suite,
            gateways,
            serve_port=args.serve_port,
            provider=args.provider,
            scenario=args.scenario,
            runner=runner,
        )
    except KeyboardInterrupt:
        print("interrupted: every gateway this run started has been stopped")
        return 130
    except serving.CannotListen as exc:
        print(f"error: toolcall serve: {cannot_listen(exc.host, exc.port, exc)}")
        return 2
    names = [g.name for g in gateways] if args.gateway or args.gateway_url else []
    made = about(runner, provider=args.provider, scenario=args.scenario, gateways=names)
    document = report.document(runs, made)
    failed = any(not r.passed for run in runs for r in run.results)
    return _write(document, args, failed=failed or any(run.unavailable for run in runs))


def _write(document: Mapping[str, Any], args: argparse.Namespace, *, failed: bool) -> int:
    print(report.text(document), end="")
    if args.markdown:
        args.markdown.parent.mkdir(parents=True, exist_ok=True)
        heading = "# Gateways in front of `toolcall serve`\n\n"
        args.markdown.write_text(heading + report.markdown(document), encoding="utf-8")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    if args.docs:
        try:
            args.docs.write_text(report.replace_section(args.docs, document), encoding="utf-8")
        except (OSError, report.SectionMissing) as exc:
            print(f"error: {exc}")
            return 2
        print(f"wrote the gateway section of {args.docs}")
    return 1 if args.strict and failed else 0
