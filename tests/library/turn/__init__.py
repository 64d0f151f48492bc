"""Tests of `toolcall._turn`: the turn, its events, findings and validation."""
