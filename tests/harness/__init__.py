"""Tests of the harness (`toolcall.harness`): a folder per package; here the tests of its flat
modules."""
