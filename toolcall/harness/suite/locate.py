"""Where the suite's data is: the checkout you are in, or the copy shipped in the package.

Inside a checkout (a folder, or a parent of it, holding `providers.yaml`) the checkout's files win,
so an edit to a profile or a new cassette is what runs. Anywhere else, `pip install
'toolcall-streams[harness]'` brings the same data inside the package (`toolcall/suite/`, copied
there when the wheel is built), so `toolcall conformance` and `toolcall matrix` run from any
directory.
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

from .profiles import ProfileError

MARKER = "providers.yaml"
#: Names a checkout for every command, for a shell that is not inside one.
ENVIRONMENT = "TOOLCALL_ROOT"
HOW = (
    f"point it at a checkout with `toolcall --root PATH ...` or {ENVIRONMENT}=PATH, or run it "
    f"from inside one (a folder holding {MARKER})"
)


def packaged() -> Path | None:
    """The suite data shipped in the installed package, if this install has it."""
    folder = Path(str(resources.files("toolcall").joinpath("suite")))
    return folder if (folder / MARKER).is_file() else None


def suite_root(
    explicit: Path | None = None, start: Path | None = None, environ: dict[str, str] | None = None
) -> Path:
    """`explicit` if given; else `TOOLCALL_ROOT`; else the nearest folder from `start` (default:
    here) upwards that holds providers.yaml; else the packaged copy. Raises `ProfileError` saying
    how to point it at one."""
    env = os.environ if environ is None else environ
    named = (
        explicit
        if explicit is not None
        else Path(env[ENVIRONMENT])
        if env.get(ENVIRONMENT)
        else None
    )
    if named is not None:
        if not (named / MARKER).is_file():
            how = "--root" if explicit is not None else ENVIRONMENT
            raise ProfileError(f"{named} holds no {MARKER}; {how} names a toolcall checkout")
        return named
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / MARKER).is_file():
            return folder
    shipped = packaged()
    if shipped is not None:
        return shipped
    raise ProfileError(
        f"no toolcall suite in {here} or above: {HOW}; or install the package with its data: "
        "pip install 'toolcall-streams[harness]'"
    )


def require_checkout(root: Path, command: str) -> None:
    """Commands that write (record, accept, add-provider, synthesize, publish) need a checkout:
    the copy shipped in the package is read-only evidence, and an edit there is lost."""
    shipped = packaged()
    if shipped is not None and root.resolve() == shipped.resolve():
        raise ProfileError(
            f"`toolcall {command}` writes to a checkout, not the installed copy: {HOW}"
        )
