"""Root conftest: wires the conformance suite (tests generated from providers.yaml)."""

pytest_plugins = ["toolcall.harness.pytest_plugin"]
