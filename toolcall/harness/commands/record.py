"""`toolcall record`: fresh cassettes from a live API with the user's key, checked against the
profile, and what differs accepted into providers.yaml or routes.yaml when asked."""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..recording import accept
from ..recording.record import (
    DEFAULT_DEADLINE,
    DEFAULT_MAX_BYTES,
    Recorded,
    RecordError,
    RecordOptions,
)
from ..suite.profiles import DIRECT, ProfileError, Suite
from .common import add_filters, shown

HELP = "record cassettes from the live API with your key"
WRITES = True

#: Where `record` without `--accept` writes its cassettes: out of what git tracks (reports/ is
#: ignored), so a run that only looks never changes a committed cassette.
PENDING = Path("reports") / "pending" / "cassettes"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_filters(parser)
    parser.add_argument(
        "--base-url", help="send to this base URL instead (gateway, proxy, vLLM...)"
    )
    parser.add_argument(
        "--route",
        help="the route of routes.yaml the base URL is (a host, relay or gateway; `direct` for "
        "another domain of the vendor); required with a base URL that is not the provider's",
    )
    parser.add_argument(
        "--header",
        action="append",
        default=[],
        metavar="'NAME: VALUE'",
        help="send this request header too (repeatable; a gateway's routing headers); never "
        "written, its value masked in output",
    )
    parser.add_argument("--model", help="send this model name instead of the profile's (an alias)")
    parser.add_argument(
        "--out", type=Path, help="write cassettes under this folder (default cassettes/)"
    )
    parser.add_argument(
        "--timeout", type=float, default=120.0, help="seconds a connection or one read may take"
    )
    parser.add_argument(
        "--deadline",
        type=float,
        default=DEFAULT_DEADLINE,
        help=f"seconds one cell may take in all, retries included (default {DEFAULT_DEADLINE:g})",
    )
    parser.add_argument(
        "--max-bytes",
        type=int,
        default=DEFAULT_MAX_BYTES,
        help=f"bytes one response may have (default {DEFAULT_MAX_BYTES})",
    )
    parser.add_argument(
        "--skip-missing-keys",
        action="store_true",
        help="skip providers whose key variable is unset, saying so (for scheduled CI)",
    )
    parser.add_argument(
        "--accept",
        action="store_true",
        help="write what was observed into providers.yaml (quirks and provenance), or through a "
        "route into that route's changes in routes.yaml, comments kept",
    )


class Refused(Exception):
    """The invocation cannot be carried out; the message says why (exit 2)."""


@dataclass
class Run:
    """What one recording run did, cell by cell, for the closing lines and the exit code."""

    todo: list[tuple[Any, Any]] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    runs: dict[str, list[Recorded]] = field(default_factory=dict)
    failed: list[str] = field(default_factory=list)

    @property
    def drifted(self) -> list[Recorded]:
        return [r for recorded in self.runs.values() for r in recorded if r.drift]


def run(suite: Suite, args: argparse.Namespace) -> int:
    """Record the selected cells, one progress line each, then say what was checked.

    A run that recorded nothing says so in a line that does not read as success (and, under
    GitHub Actions, as a warning annotation): a gate that checked nothing must not look green.
    """
    try:
        options = _options(suite, args)
        done = _selected(suite, args, options)
    except Refused as exc:
        print(f"toolcall: {exc}", file=sys.stderr)
        return 2
    _record_all(suite, args, options, done)
    _say_drift(args, done)
    if args.route and args.route != DIRECT:
        return _accept_route(suite, args, done)
    answer = _accept_profiles(suite, args, done)
    if answer is not None:
        return answer
    if not done.todo:
        return _nothing_checked(done.missing)
    return _checked(args, done)


def _options(suite: Suite, args: argparse.Namespace) -> RecordOptions:
    """The run's options, or `Refused` for arguments that do not go together."""
    if args.base_url and not args.provider:
        raise Refused("--base-url needs --provider (one server plays one provider)")
    if args.accept and args.out:
        raise Refused(
            "--accept writes providers.yaml for the cassettes under cassettes/; "
            "it cannot go with --out"
        )
    headers = [_header(header) for header in args.header]
    options = RecordOptions(
        base_url=args.base_url,
        route=args.route,
        headers=headers,
        model=args.model,
        out_dir=args.out if args.out or args.accept else suite.root / PENDING,
        accept=args.accept,
        timeout=args.timeout,
        deadline=args.deadline,
        max_bytes=args.max_bytes,
    )
    if args.route:
        route = suite.route(args.route)  # an unknown route is a ProfileError naming the known
        masked = ", ".join(f"{name}: <{len(value)} characters>" for name, value in headers)
        print(f"route {route.key} ({route.kind})" + (f", headers {masked}" if masked else ""))
    return options


def _header(given: str) -> tuple[str, str]:
    """`name: value` as a pair; its value is printed as its length only, since a routing
    header may hold a key."""
    name, colon, value = given.partition(":")
    if not colon or not name.strip():
        raise Refused(f"--header {name.strip()!r}...: give it as 'name: value'")
    return name.strip(), value.strip()


def _selected(suite: Suite, args: argparse.Namespace, options: RecordOptions) -> Run:
    """The cells to record, with those not applicable or without a key said and left out; a
    provider the options cannot reach is refused before anything is sent."""
    from ..recording.record import route_for

    done = Run()
    for provider, _scenario, cell in suite.cells(args.provider, args.scenario):
        if cell.not_applicable:
            print(f"n/a  {cell.id}: {' '.join(cell.not_applicable.split())}")
        elif args.skip_missing_keys and not options.environ.get(provider.key_env):
            if provider.key_env not in done.missing:
                done.missing.append(provider.key_env)
                print(f"skip {provider.key}: {provider.key_env} is not set")
        else:
            done.todo.append((provider, cell))
    for provider in {provider.key: provider for provider, _cell in done.todo}.values():
        try:
            route_for(suite, provider, options)
        except RecordError as exc:
            raise Refused(str(exc)) from None
    return done


def _record_all(suite: Suite, args: argparse.Namespace, options: RecordOptions, done: Run) -> None:
    """Record each cell in turn, one line each; a cell that fails does not stop the others."""
    from ..recording.record import record_cell

    label = f"@{args.route}" if args.route and args.route != DIRECT else ""
    for number, (provider, cell) in enumerate(done.todo, start=1):
        print(
            f"[{number}/{len(done.todo)}] {provider.key}{label}/{cell.scenario} ...",
            end=" ",
            flush=True,
        )
        started = time.monotonic()
        try:
            recorded = record_cell(suite, provider, cell, options)
        except RecordError as exc:
            done.failed.append(cell.id)
            print("failed", flush=True)
            print(f"FAIL {exc}", file=sys.stderr, flush=True)
            continue
        seconds = time.monotonic() - started
        print(f"wrote {shown(recorded.path, suite)} ({recorded.size} bytes, {seconds:.1f}s)")
        done.runs.setdefault(provider.key, []).append(recorded)
    for recorded in (r for found in done.runs.values() for r in found if r.wrong_model):
        done.failed.append(f"{recorded.provider}/{recorded.scenario}")
        print(f"MODEL {recorded.provider}/{recorded.scenario}: {recorded.wrong_model}")
    if done.runs and not args.accept and not args.out:
        print(
            f"nothing committed changed: the cassettes are under {PENDING}/ "
            "(make record ... ACCEPT=1 records into cassettes/)"
        )


def _say_drift(args: argparse.Namespace, done: Run) -> None:
    """Each cell whose stream differs from what its profile (and route) declare."""
    for recorded in done.drifted:
        routed = recorded.route != DIRECT
        print(
            f"DRIFT {recorded.provider}{'@' + recorded.route if routed else ''}/"
            f"{recorded.scenario}: the stream differs from the profile"
            + (" and the route's changes" if routed else "")
        )
        for quirk, want, got in recorded.drift:
            print(f"  quirks.{quirk}: declared {want!r}, observed {got!r}")


def _accept_profiles(suite: Suite, args: argparse.Namespace, done: Run) -> int | None:
    """What the recordings say of providers.yaml, applied with `--accept` or shown to merge;
    an exit code when applying was refused, else None."""
    changes = [accept.plan(suite, suite.providers[key], found) for key, found in done.runs.items()]
    if changes and args.accept:
        try:
            accept.apply(suite.root / "providers.yaml", changes)
        except ProfileError as exc:
            print(f"toolcall: {exc}", file=sys.stderr)
            print("the cassettes are written; the change that was refused, to merge by hand:")
            print(accept.as_yaml(changes).rstrip())
            return 2
        print(f"accepted into {shown(suite.root / 'providers.yaml', suite)}:")
        print(accept.as_yaml(changes).rstrip())
    elif changes and not args.out:
        print("to accept, record again with --accept (make record ... ACCEPT=1), or merge this")
        print("into providers.yaml (null removes an override):")
        print(accept.as_yaml(changes).rstrip())
    return None


def _accept_route(suite: Suite, args: argparse.Namespace, done: Run) -> int:
    """A run through a route: its changes go to routes.yaml, never to providers.yaml."""
    recorded = [r for found in done.runs.values() for r in found]
    change = accept.plan_route(suite, suite.route(args.route), recorded)
    path = suite.root / "routes.yaml"
    if change.changes and args.accept:
        accept.apply_routes(path, [change])
        print(f"accepted into {shown(path, suite)} (providers.yaml untouched):")
        print(accept.route_yaml([change]).rstrip())
    elif change.changes and not args.out:
        print("to accept, record again with --accept (make record ... ACCEPT=1), or merge this")
        print("into routes.yaml (null removes a change):")
        print(accept.route_yaml([change]).rstrip())
    done.missing = []
    return _checked(args, done)


def _nothing_checked(missing: list[str]) -> int:
    """A run that recorded nothing, said so that it cannot pass for a green gate."""
    why = f"no keys set: {', '.join(missing)}" if missing else "every selected cell is n/a"
    warning = f"checked 0 providers ({why}); nothing was recorded or compared"
    print(f"WARNING: {warning}")
    if os.environ.get("GITHUB_ACTIONS") == "true":
        print(f"::warning title=toolcall record::{warning}")
    return 0 if missing else 2


def _checked(args: argparse.Namespace, done: Run) -> int:
    """The closing line of a recording run, per provider and route, and its exit code."""
    cells = sum(len(found) for found in done.runs.values())
    route = args.route or DIRECT
    checked = sorted({f"{provider.key}@{route}" for provider, _cell in done.todo})
    drifted = done.drifted
    print(
        f"checked {len(checked)} provider(s) ({', '.join(checked)}): {cells} cell(s) recorded, "
        f"{len(done.failed)} failed, {len(drifted)} drifted"
        + (" (accepted)" if args.accept and drifted else "")
        + (f"; skipped, no key: {', '.join(done.missing)}" if done.missing else "")
    )
    if done.failed:
        return 1
    return 1 if drifted and not args.accept else 0
