"""Tests of `toolcall._framing`: the framings a body is cut into events by."""
