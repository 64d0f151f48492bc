"""A gateway that will not install is unavailable with the reason; one installed is not redone."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolcall.harness.gateways import install
from toolcall.harness.gateways.install import Pin, ensure
from toolcall.harness.peers import Unavailable


def test_a_failed_install_step_is_unavailable_with_its_last_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The interpreter that makes the environment is swapped for one that fails the way a
    broken install does (a message, a non-zero status), so no registry is asked."""
    failing = tmp_path / "python"
    failing.write_text("#!/bin/sh\necho 'No matching distribution found for litellm'\nexit 1\n")
    failing.chmod(0o755)
    monkeypatch.setattr(install.sys, "executable", str(failing))
    pin = Pin("broken", "1.0", pip=("litellm[proxy]==0",))
    with pytest.raises(Unavailable, match=r"python -m venv failed \(status 1\): No matching"):
        ensure(pin, tmp_path, say=lambda _: None)
    assert not pin.stamp(tmp_path).exists()


def test_an_npm_pin_without_its_lock_file_is_unavailable(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    pin = Pin("nolock", "1.0", npm_folder=tmp_path / "pkg")
    with pytest.raises(Unavailable, match=r"cannot copy .*package.json"):
        ensure(pin, tmp_path, say=lambda _: None)


def test_a_stamped_install_is_not_redone_and_a_new_pin_is(tmp_path: Path) -> None:
    pin = Pin("done", "2.0", npm_folder=tmp_path / "absent")
    pin.stamp(tmp_path).parent.mkdir(parents=True)
    pin.stamp(tmp_path).touch()
    said: list[str] = []
    assert ensure(pin, tmp_path, say=said.append) == pin.home(tmp_path)
    assert said == []
    moved = Pin("done", "2.1", npm_folder=tmp_path / "absent")
    with pytest.raises(Unavailable):
        ensure(moved, tmp_path, say=said.append)
    assert said and "installing done 2.1" in said[0]
