"""Importing an optional peer package, turning every way that fails into `Unavailable`."""

from __future__ import annotations

import importlib
from importlib import metadata
from typing import Any

from . import Unavailable, first_line


def require(module: str, distribution: str) -> tuple[Any, str]:
    """The imported module and `"<distribution> <version>"`, or `Unavailable` with the reason.

    The module is typed `Any`: the peers are optional, so their types cannot be relied on when
    the harness is type-checked, and their attributes are used the way their users use them.

    Any exception counts, not only ImportError: a package that is installed but breaks on import
    (a missing system library, a network call at import time) cannot run here either.
    """
    try:
        imported = importlib.import_module(module)
        version = metadata.version(distribution)
    except Exception as exc:
        raise Unavailable(f"{type(exc).__name__}: {first_line(str(exc))}") from exc
    return imported, f"{distribution} {version}"
