"""Where the suite's data is: the checkout you are in, or the copy shipped in the package.

Inside a checkout (a folder, or a parent of it, holding `providers.yaml`) the checkout's files win,
so an edit to a profile or a new cassette is what runs. Anywhere else, `pip install
'toolcall[harness]'` brings the same data inside the package (`toolcall/suite/`, copied there when
the wheel is built), so `toolcall conformance` and `toolcall matrix` run from any directory.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from .profiles import ProfileError

MARKER = "providers.yaml"


def packaged() -> Path | None:
    """The suite data shipped in the installed package, if this install has it."""
    folder = Path(str(resources.files("toolcall").joinpath("suite")))
    return folder if (folder / MARKER).is_file() else None


def suite_root(explicit: Path | None = None, start: Path | None = None) -> Path:
    """`explicit` if given; else the nearest folder from `start` (default: here) upwards that
    holds providers.yaml; else the packaged copy. Raises `ProfileError` saying how to get one."""
    if explicit is not None:
        if not (explicit / MARKER).is_file():
            raise ProfileError(f"{explicit} holds no {MARKER}; --root names a toolcall checkout")
        return explicit
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / MARKER).is_file():
            return folder
    shipped = packaged()
    if shipped is not None:
        return shipped
    raise ProfileError(
        f"no suite here: run inside a toolcall checkout (a folder with {MARKER}), pass --root, "
        "or install the package with its data: pip install 'toolcall[harness]'"
    )
