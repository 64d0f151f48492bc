"""`toolcall doctor`: a stream a user captured, examined with everything the suite knows.

One module per job, in the order a capture goes through them: `opening` and `documents` open
what people capture into one `capture.Capture`; `reading` feeds its body to the library one event
at a time, the events read by the harness's body reader a window at a time (`windows`); `identify`
names the wire, model, provider and route with their evidence; `findings`, `quirks` and `request`
say what happened, with codes listed once (`codes`, from `schemas/doctor.schema.json`) and the
recordings that show the same (`evidence`); `clients` hands the bytes to every implementation the
matrix can run; `compare` sets two captures side by side; `report` makes the JSON document and
`render` the text and Markdown from it.
"""
