"""Tests of `toolcall._calls`: a call's state as its pieces arrive."""
