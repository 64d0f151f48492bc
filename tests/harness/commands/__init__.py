"""Tests of the commands (`toolcall.harness.commands`) as a user types them."""
