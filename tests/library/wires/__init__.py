"""Tests of `toolcall._wires`: each wire's reader."""
