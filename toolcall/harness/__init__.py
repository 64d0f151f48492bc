"""The conformance harness: profiles, cassettes, replay, fingerprints, checks and reports.

It is a layer on top of the library and the only part that knows of YAML, vcrpy or pytest; the
library itself never imports from here.
"""

from __future__ import annotations

#: Modules the command needs that only the `harness` extra installs.
_EXTRA_MODULES = frozenset(
    {"yaml", "jsonschema", "vcr", "httpx", "pytest", "ruamel", "ruamel.yaml"}
)


def missing_extra(exc: ModuleNotFoundError) -> str | None:
    """What to install, when the missing module is one the `harness` extra brings; else None."""
    if exc.name not in _EXTRA_MODULES:
        return None
    return f"(missing: {exc.name}); install it with: pip install 'toolcall-streams[harness]'"


def main() -> int:
    """The `toolcall` command. Without the `harness` extra it says what to install, because a
    traceback ending in `No module named 'yaml'` does not."""
    try:
        from .cli import main as run
    except ModuleNotFoundError as exc:
        hint = missing_extra(exc)
        if hint is None:
            raise
        import sys

        print(f"toolcall: the command needs the harness extra {hint}", file=sys.stderr)
        return 2
    return run()
