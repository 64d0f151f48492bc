"""Tests of `toolcall serve` (`toolcall.harness.serving`)."""
