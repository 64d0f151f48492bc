"""Tests of `toolcall doctor` (`toolcall.harness.doctor`)."""
