"""Tests of the synthesized cassettes (`toolcall.harness.synthesize`)."""
