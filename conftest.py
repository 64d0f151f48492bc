"""Root conftest. The suite's pytest plugin is registered by the package (`pytest11` entry point),
so nothing is wired here; this file marks the repository root for pytest."""
