"""Tests of the peers (`toolcall.harness.peers`): SDK adapters and external programs."""
