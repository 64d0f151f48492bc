"""`toolcall synthesize`: the synthesized cassettes rendered again from the profiles."""

from __future__ import annotations

import argparse
import sys

from ..suite.profiles import Suite
from .common import add_filters

HELP = "rewrite the synthesized cassettes"
WRITES = True


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_filters(parser)


def run(suite: Suite, args: argparse.Namespace) -> int:
    """Write what was rendered, and say which cassettes were kept as evidence."""
    from ..suite.cassettes import cassette_path, evidence_kind
    from ..synthesize import SynthesisError, synthesize

    try:
        paths, left_out = synthesize(suite, args.provider, args.scenario)
    except SynthesisError as exc:
        print(f"toolcall: {exc}", file=sys.stderr)
        return 1
    for path in paths:
        print(f"wrote {path.relative_to(suite.root)}")
    for line in left_out:
        print(f"left out {line}")
    for prov, _scen, cell in suite.cells(args.provider, args.scenario):
        kept = cassette_path(suite.cassettes, prov.key, cell.scenario)
        kind = evidence_kind(kept)
        if kind not in (None, "synthesized"):
            print(f"kept {kept.relative_to(suite.root)}: it is {kind} evidence, never re-rendered")
            if kind == "recorded" and cell.provenance.get("kind") != "recorded":
                print(
                    f"  providers.yaml does not say so yet: make record PROVIDER={prov.key} "
                    f"SCENARIO={cell.scenario} ACCEPT=1"
                )
    return 0
