"""Tests of `toolcall._fast`: each fast path held to the plain path's answer."""
