"""Installing the real gateways on first use, each in an environment of its own.

The gateways are other people's servers with heavy, conflicting dependencies (LiteLLM's proxy
alone is about 750 MB), so none of them goes near the suite's `.venv`: each gets a folder under
`.gateways/` (git-ignored), a Python virtual environment or an `npm ci` from a committed lock
file, and a stamp naming the pinned version once the install finished. A pin that moves makes a
new install; a stamp that exists makes none. An install that fails is not an error of the run:
the gateway is listed as unavailable with the last line its installer wrote, as `make matrix`
does for a peer that will not install, and the other gateways still run.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..peers import Unavailable
from .process import tail

#: Where the environments live, relative to the checkout.
FOLDER = ".gateways"
INSTALL_TIMEOUT = 1800.0


@dataclass(frozen=True)
class Pin:
    """What to install: a Python requirement list, or an npm folder with its lock file."""

    name: str
    version: str
    pip: tuple[str, ...] = ()
    npm_folder: Path | None = None

    def home(self, root: Path) -> Path:
        return root / FOLDER / self.name

    def stamp(self, root: Path) -> Path:
        return self.home(root) / f".installed-{self.version}"


def ensure(pin: Pin, root: Path, *, say: Callable[[str], None] = print) -> Path:
    """The gateway's folder, installed; `Unavailable` with the installer's last words if not."""
    home = pin.home(root)
    if pin.stamp(root).is_file():
        return home
    home.mkdir(parents=True, exist_ok=True)
    log = home / "install.log"
    log.write_text("")
    say(f"installing {pin.name} {pin.version} into {home} (first use; log: {log})")
    if pin.npm_folder is not None:
        _npm(pin.npm_folder, home, log)
    else:
        _pip(pin.pip, home, log)
    for old in home.glob(".installed-*"):
        old.unlink()
    pin.stamp(root).touch()
    return home


def python(home: Path) -> Path:
    return home / "venv" / "bin" / "python"


def _pip(requirements: Sequence[str], home: Path, log: Path) -> None:
    venv = home / "venv"
    if venv.exists():
        shutil.rmtree(venv)  # a half-made environment from an interrupted install
    _step([sys.executable, "-m", "venv", str(venv)], log, "python -m venv")
    _step(
        [
            str(python(home)),
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            *list(requirements),
        ],
        log,
        "pip install " + " ".join(requirements),
    )


def _npm(folder: Path, home: Path, log: Path) -> None:
    npm = shutil.which("npm")
    if npm is None:
        raise Unavailable("npm is not installed")
    for name in ("package.json", "package-lock.json"):
        try:
            shutil.copyfile(folder / name, home / name)
        except OSError as exc:
            raise Unavailable(f"cannot copy {folder / name}: {exc.strerror}") from None
    _step(
        [npm, "ci", "--prefix", str(home), "--no-audit", "--no-fund", "--loglevel=error"],
        log,
        "npm ci",
    )


def _step(command: Sequence[str], log: Path, what: str) -> None:
    with log.open("ab") as sink:
        try:
            done = subprocess.run(
                list(command),
                stdin=subprocess.DEVNULL,
                stdout=sink,
                stderr=subprocess.STDOUT,
                timeout=INSTALL_TIMEOUT,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise Unavailable(f"{what} took over {INSTALL_TIMEOUT:g} s") from None
        except OSError as exc:
            raise Unavailable(f"{what}: {exc}") from None
    if done.returncode != 0:
        raise Unavailable(f"{what} failed (status {done.returncode}): {tail(log, 2)}")
