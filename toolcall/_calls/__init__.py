"""Calls: the values a turn's tool calls are made of, and one call's state while it is assembled.

Below the assembler and the turn, above nothing but the library's errors: the public value
types (`call_types`: `ToolCall`, `Delta`, ...), the one reading of a delta's fields
(`delta_fields`), one call's mutable state (`call_state`), the scan that tells when its
arguments close as one JSON object (`object_closer`), and an arguments object held to be
written as text only when somebody reads it (`held_arguments`).
"""
