"""Tests of `toolcall gateways` (`toolcall.harness.gateways`)."""
