"""Tests of `toolcall probe` (`toolcall.harness.probe`)."""
