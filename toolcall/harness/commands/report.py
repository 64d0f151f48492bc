"""`toolcall report`: the last runs' JSON (reports/) made into a static site (reports/site/)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..suite.profiles import Suite

HELP = "build the report site from the last runs' JSON (conformance, matrix, gateways, probes)"
WRITES = False


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--reports",
        type=Path,
        default=Path("reports"),
        help="the folder the runs wrote their JSON into (default: reports)",
    )
    parser.add_argument(
        "--out", type=Path, help="the folder the site is written into (default: REPORTS/site)"
    )
    parser.add_argument(
        "--screenshot",
        type=Path,
        metavar="PNG",
        help="also save a picture of the overview, taken by Chromium through Playwright",
    )
    parser.add_argument(
        "--browser",
        type=Path,
        default=None,
        help="the Chromium to take the picture with (default: /usr/bin/chromium)",
    )


def run(suite: Suite, args: argparse.Namespace) -> int:
    """Exit 2 when an input is malformed or there is none; the site is written otherwise."""
    del suite  # the site is drawn from the reports alone
    from ..site import build, inputs, screenshot

    folder: Path = args.reports
    out: Path = args.out or folder / "site"
    try:
        found = inputs.load(folder)
    except inputs.InputError as exc:
        print(f"toolcall: {exc}", file=sys.stderr)
        return 2
    if found.empty:
        names = ", ".join(name for name, _schema, _def in inputs.FIXED.values())
        print(
            f"toolcall: {folder} holds no report ({names}, probe*.json, doctor*.json): "
            "run make conformance or make matrix first",
            file=sys.stderr,
        )
        return 2
    written = build.write(found, out)
    print(f"wrote {len(written)} pages into {out}; open {out / 'index.html'}")
    if args.screenshot is not None:
        try:
            screenshot.take(
                out / "index.html", args.screenshot, args.browser or screenshot.CHROMIUM
            )
        except screenshot.ScreenshotError as exc:
            print(f"toolcall: {exc}", file=sys.stderr)
            return 2
        print(f"wrote {args.screenshot}")
    return 0
