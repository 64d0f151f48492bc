"""Build step: ship the suite's data inside the wheel, so `toolcall-streams[harness]` works
anywhere.

The profiles, scenarios and cassettes live at the top of the repository, where people edit and
review them; a wheel can only carry files inside a package, so `build_py` copies them to
`toolcall/suite/` in the build tree. An editable install skips the copy: a checkout reads its own
files (`toolcall.harness.suite.locate`).
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
SUITE_FILES = ("providers.yaml", "routes.yaml", "scenarios.yaml")
SUITE_TREES = ("cassettes",)


class BuildWithSuite(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        target = Path(self.build_lib) / "toolcall" / "suite"
        # A previous build's copy may hold files deleted since; they must not ship again.
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir(parents=True)
        for name in SUITE_FILES:
            shutil.copy2(HERE / name, target / name)
        for tree in SUITE_TREES:
            shutil.copytree(HERE / tree, target / tree, dirs_exist_ok=True)


setup(cmdclass={"build_py": BuildWithSuite})
