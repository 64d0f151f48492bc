"""The reports: the conformance report and the matrix report, in one place."""
