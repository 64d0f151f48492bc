"""A real gateway of `make gateways` for a test: LiteLLM's folder under the test's `tmp_path`,
shared by the tests that run a stream or a probe through it."""

from __future__ import annotations

from pathlib import Path

from toolcall.harness.gateways.known import LiteLLM
from toolcall.harness.peers import Unavailable

ROOT = Path(__file__).resolve().parents[2]


def litellm_home(gateway: LiteLLM, tmp_path: Path) -> Path:
    """LiteLLM's folder under `tmp_path`: the checkout's environment linked in when `make
    gateways` installed it there (nothing is written into the checkout), else installed here as
    `make gateways` installs it on first use."""
    pin = gateway.pin
    if pin.stamp(ROOT).is_file():
        pin.home(tmp_path).mkdir(parents=True)
        (pin.home(tmp_path) / "venv").symlink_to(pin.home(ROOT) / "venv")
        pin.stamp(tmp_path).touch()
    try:
        return gateway.install(tmp_path)
    except Unavailable as exc:
        raise AssertionError(f"LiteLLM {gateway.version} would not install: {exc}") from None
