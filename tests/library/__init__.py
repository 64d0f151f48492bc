"""Tests of the library (`toolcall`): a folder per package (`_framing`, `_wires`, `_calls`,
`_turn`, `_fast`); here the tests that span several."""
