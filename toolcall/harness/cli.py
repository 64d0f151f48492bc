"""`toolcall`: the command line of the harness.

The same checks the pytest suite runs, for users who want the matrix without pytest (another
project's CI, a quick look after editing a profile), and `matrix`, which runs other assemblers
over the same cassettes. Exit codes: 0 all good, 1 a check failed or drift was found (for
`matrix`: the run broke, the reference failed or an external program never started; failing peers
are data), 2 the invocation or the profiles were wrong.

Each subcommand owns its arguments and its run (`commands/`); this module only lists them.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from .commands import (
    add_provider,
    case,
    conformance,
    doctor,
    matrix,
    probe,
    publish,
    record,
    report,
    scan,
    serve,
    synthesize,
)
from .gateways import command as gateways
from .suite import recordings
from .suite.locate import require_checkout, suite_root
from .suite.profiles import ProfileError, Suite, load_suite


@dataclass(frozen=True)
class Command:
    """One subcommand: its help line, whether it writes into the checkout (cassettes/,
    providers.yaml; `gateways` installs into .gateways/ and needs the committed gateways/
    folder), and its two halves."""

    help: str
    writes: bool
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[Suite, argparse.Namespace], int]


COMMANDS: dict[str, Command] = {
    name: Command(module.HELP, module.WRITES, module.add_arguments, module.run)
    for name, module in {
        "conformance": conformance,
        "synthesize": synthesize,
        "record": record,
        "add-provider": add_provider,
        "matrix": matrix,
        "case": case,
        "publish": publish,
        "serve": serve,
        "gateways": gateways,
        "scan": scan,
        "probe": probe,
        "doctor": doctor,
        "report": report,
    }.items()
}


def parser() -> argparse.ArgumentParser:
    """The whole command line: `--root`, then one subparser per command."""
    top = argparse.ArgumentParser(prog="toolcall", description=__doc__.splitlines()[0])
    top.add_argument(
        "--root",
        type=Path,
        default=None,
        help="folder with providers.yaml (default: this checkout, else the data the package ships)",
    )
    subcommands = top.add_subparsers(dest="command", required=True)
    for name, command in COMMANDS.items():
        command.add_arguments(subcommands.add_parser(name, help=command.help))
    return top


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    command = COMMANDS[args.command]
    try:
        root = suite_root(args.root)
        if command.writes and not getattr(args, "out", None):
            require_checkout(root, args.command)
        return command.run(load_suite(root), args)
    except (ProfileError, recordings.RecordingError) as exc:
        print(f"toolcall: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
