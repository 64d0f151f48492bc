"""Tests that run the README and docs/*.md as printed, and hold their citations and counts."""
