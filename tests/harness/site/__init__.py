"""Tests of `toolcall report`, the static report site (`toolcall.harness.site`)."""
