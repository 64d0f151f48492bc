"""`toolcall probe`: the scenarios against a live endpoint (a server, host or gateway), what its
tool-call handling does judged, reported, and on request kept as cassettes of a route.

Exit status: 0 sound, 1 with findings (failures; quirks and notes are said, not failed), 2 when it
could not run (a bad argument, a URL that is not http(s), a host that does not answer, a key
refused, an answer that is not a stream, every request refused).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from .. import peers
from ..matrix import run as matrix
from ..peers.external import SpecError, environment_specs
from ..probe import clients, compare, family, keep, report, scenarios, session
from ..probe.runner import Budget, CannotRun, Endpoint, Runner
from ..recording import scrub, secrets
from ..suite.locate import require_checkout
from ..suite.profiles import ProfileError, Suite
from .common import shown, write_json, write_text
from .record import PENDING

HELP = "run the scenarios against a live endpoint and judge its tool calls"
WRITES = False  # only with --accept, which checks for a checkout itself

DEFAULT_REQUESTS = 100
DEFAULT_SECONDS = 600.0
DEFAULT_TIMEOUT = 60.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--base-url",
        required=True,
        help="the base URL as the wire's SDK takes it (http://host:8000/v1 for chat and "
        "responses, the host's root for anthropic, gemini and ollama; the API root may be "
        "left out)",
    )
    parser.add_argument("--model", required=True, help="the model name the endpoint serves")
    parser.add_argument(
        "--key-env", help="the environment variable holding the key (never printed or saved)"
    )
    parser.add_argument("--wire", choices=scenarios.WIRES, default="chat", help="default chat")
    parser.add_argument(
        "--family",
        help="the model's family: a provider of providers.yaml, or `other` "
        "(default: guessed from the model's name)",
    )
    parser.add_argument("--repeat", type=int, default=1, help="ask each scenario N times")
    parser.add_argument(
        "--scenario", action="append", default=[], help="only this scenario (repeatable)"
    )
    parser.add_argument("--budget-requests", type=int, default=DEFAULT_REQUESTS)
    parser.add_argument("--budget-seconds", type=float, default=DEFAULT_SECONDS)
    parser.add_argument(
        "--timeout", type=float, default=DEFAULT_TIMEOUT, help="seconds one answer may take"
    )
    parser.add_argument("--markdown", type=Path, help="write a bug report here")
    parser.add_argument("--json", type=Path, help="write the findings as JSON here")
    parser.add_argument(
        "--compare-to",
        type=Path,
        metavar="REPORT",
        help="an earlier probe's --json report (the server without the gateway): say what "
        "changed, scenario by scenario",
    )
    parser.add_argument(
        "--client",
        action="append",
        default=None,
        help="judge only this implementation on the streams (repeatable; default all)",
    )
    parser.add_argument(
        "--external",
        action="append",
        default=[],
        metavar="NAME=COMMAND",
        help="also judge this program on the streams, through the subprocess protocol "
        "(repeatable; docs/MATRIX.md)",
    )
    parser.add_argument("--no-clients", action="store_true", help="do not run the clients")
    parser.add_argument(
        "--save",
        type=Path,
        nargs="?",
        const=PENDING,
        help=f"keep the streams as cassettes of the route under DIR (default {PENDING})",
    )
    parser.add_argument("--route", help="the route of routes.yaml the endpoint is (--accept)")
    parser.add_argument(
        "--accept",
        action="store_true",
        help="write the streams under cassettes/ and the route's facts into routes.yaml",
    )


class Refused(Exception):
    """The invocation cannot be run (exit 2); the message is one line."""


def run(suite: Suite, args: argparse.Namespace) -> int:
    try:
        endpoint, named, chosen = _prepare(suite, args)
        roster = None if args.no_clients else _roster(args, endpoint)
        before = compare.load(args.compare_to) if args.compare_to else None
    except (Refused, ProfileError, compare.CannotCompare) as exc:
        print(f"toolcall probe: {exc}", file=sys.stderr)
        return 2
    guessed = "" if args.family else " (guessed from the name; --family to change)"
    total = len(chosen) * 2 * args.repeat
    where = scrub.url(endpoint.url(streamed=True))
    print(
        f"probing {where} ({endpoint.wire}, model {endpoint.model}, "
        f"family {named}{guessed}): {len(chosen)} scenarios x 2 x {args.repeat} = {total} "
        f"requests; budget {args.budget_requests} requests, {args.budget_seconds:g} s; "
        f"timeout {args.timeout:g} s",
        flush=True,
    )
    runner = Runner(
        endpoint,
        Budget(args.budget_requests, args.budget_seconds),
        args.timeout,
        progress=sys.stderr,
        total=min(total, args.budget_requests),
    )
    profile = suite.providers.get(named)
    try:
        with runner:
            probe = session.run(runner, chosen, profile, args.repeat)
        _check_answered(probe)
    except CannotRun as exc:
        print(f"toolcall probe: {exc}", file=sys.stderr)
        return 2
    found = None
    if roster is not None:
        found = clients.run(endpoint.wire, probe.exchanges, *roster, progress=sys.stderr)
    budget = {"requests": args.budget_requests, "seconds": args.budget_seconds}
    done = report.Report(
        scrub.url(args.base_url), args.model, endpoint.wire, named, budget, probe, found
    )
    sys.stdout.write(report.terminal(done))
    changed = None
    if before is not None:
        changed = compare.changes(before, done.to_json())
        sys.stdout.write(compare.terminal(str(args.compare_to), changed))
    _write(suite, args, done, endpoint, changed)
    return 1 if done.failures else 0


def _prepare(
    suite: Suite, args: argparse.Namespace
) -> tuple[Endpoint, str, list[scenarios.Scenario]]:
    """The endpoint, the family and the scenarios, or `Refused` naming what is wrong."""
    problem = scrub.url_problem(args.base_url)
    if problem is not None:
        raise Refused(f"--base-url is not usable: {problem}")
    if args.repeat < 1 or args.budget_requests < 1 or args.budget_seconds <= 0 or args.timeout <= 0:
        raise Refused(
            "--repeat, --budget-requests, --budget-seconds and --timeout must be positive"
        )
    named = args.family or family.guess(suite, args.model)
    wrong = family.check(suite, named)
    if wrong is not None:
        raise Refused(wrong)
    if args.accept:
        require_checkout(suite.root, "probe --accept")
        wrong = keep.accept_problem(suite, named, args.route, args.wire)
        if wrong is not None:
            raise Refused(wrong)
    try:
        chosen = scenarios.select(scenarios.scenarios(suite, named), args.scenario)
    except ValueError as exc:
        raise Refused(str(exc)) from None
    key = _key(args.key_env)
    others = secrets.key_values([p.key_env for p in suite.providers.values()])
    masked = tuple(k for k in [key, *others] if k)
    return Endpoint(args.base_url, args.wire, args.model, key, masked), named, chosen


def _roster(
    args: argparse.Namespace, endpoint: Endpoint
) -> tuple[list[peers.Implementation], dict[str, str]]:
    """The implementations to judge the streams with, as `toolcall matrix` makes them (those
    named in the environment and with --external included), checked before any request."""
    try:
        return matrix.roster(
            args.client,
            [*environment_specs(os.environ), *args.external],
            timeout=args.timeout,
            keys=endpoint.secrets,
        )
    except SpecError as exc:
        raise Refused(f"--external {exc}") from None
    except matrix.UnknownImplementation as exc:
        raise Refused(f"--client: {exc}") from None


def _key(variable: str | None) -> str | None:
    """The key from the variable the user named; its value is never part of a message."""
    if variable is None:
        return None
    key = os.environ.get(variable, "")
    if not key:
        raise Refused(f"--key-env {variable}: the variable is not set or empty")
    if not (key.isascii() and key.isprintable()):
        raise Refused(
            f"--key-env {variable}: the value holds non-ASCII or control characters, which an "
            "HTTP header cannot carry"
        )
    return key


def _check_answered(probe: session.Probe) -> None:
    """A run where every request was refused could not probe anything."""
    if probe.exchanges and all(e.refused is not None for e in probe.exchanges):
        first = probe.exchanges[0]
        raise CannotRun(f"every request was refused (first: {first.scenario}: {first.refused})")


def _write(
    suite: Suite,
    args: argparse.Namespace,
    done: report.Report,
    endpoint: Endpoint,
    changed: list[dict[str, Any]] | None = None,
) -> None:
    """The report files (with `changes`, compared with `--compare-to`, when asked), the
    cassettes and the route's facts, each said in one line."""
    keys = list(endpoint.secrets)
    if args.markdown:
        write_text(args.markdown, report.markdown(done, keys))
        print(f"wrote {args.markdown}")
    if args.json:
        document = done.to_json()
        if changed is not None:
            document["changes"] = changed
        write_json(args.json, document)
        print(f"wrote {args.json}")
    if not (args.save or args.accept):
        return
    root = (
        suite.cassettes
        if args.accept
        else (
            args.save if args.save.is_absolute() or args.save != PENDING else suite.root / PENDING
        )
    )
    route = args.route or "probe"
    saved = keep.save(
        root, done.family, route, endpoint.wire, endpoint.model, done.probe.exchanges, keys
    )
    print(
        f"saved {len(saved)} cassette(s) under {shown(root, suite)}/{done.family}/routes/{route}/"
    )
    if args.accept:
        change = keep.accept_route(suite, done.family, route, saved)
        print(
            f"accepted into {shown(suite.root / 'routes.yaml', suite)}: "
            f"{sum(len(c) for c in change.changes.values())} change(s)"
        )
