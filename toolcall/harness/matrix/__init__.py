"""The matrix: every implementation run on every case (run), its verdicts, and its docs page."""
