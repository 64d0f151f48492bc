"""The turn: what a caller gets back, the checks at its end, and the events that report it.

Above the calls (`.._calls`), below the table of calls (`.._call_table`) and the wire
readers: the `Turn` and the checks that end it (`turn`), one reading of finish reasons
(`finish_reasons`), arguments read as one JSON object (`validation`), the diagnostics' codes
(`diagnostics`), tool-call markup left in the text (`markup`), the event classes (`events`),
the arguments read while they stream (`partial_arguments`), and what the table of calls did
to a call, as events (`call_watcher`).
"""
