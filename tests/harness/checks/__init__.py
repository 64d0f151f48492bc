"""Tests of `toolcall.harness.checks`: the gate's findings and failure lines."""
