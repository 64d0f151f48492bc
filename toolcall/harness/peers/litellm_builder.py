"""litellm's `stream_chunk_builder`, which rebuilds a whole response from the streamed chunks.

litellm's users hold the `ModelResponseStream` objects that `litellm.completion(stream=True)`
yields and pass the list, with the request's messages, to `litellm.stream_chunk_builder`; each
chunk here becomes such an object and goes the same way. litellm fetches a model price list over
the network when it is imported unless `LITELLM_LOCAL_MODEL_COST_MAP` is set, so it is set here
(the matrix runs offline), and its debug banners are turned off so they do not garble the table.
The warning pydantic gives the first time litellm's types are used (about `ReadOnly` items in
litellm's TypedDicts) is silenced: it is about litellm's code, not about the stream.
"""

from __future__ import annotations

import os
import warnings

from . import CHAT, Assembled, Call, Stream
from .installed import require


class LiteLLMBuilder:
    name = "litellm"
    wires = (CHAT,)

    def __init__(self) -> None:
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        warnings.filterwarnings("ignore", message=r".*`ReadOnly` qualifier", category=UserWarning)
        self._litellm, self.version = require("litellm", "litellm")
        self._litellm.suppress_debug_info = True

    def assemble(self, stream: Stream) -> Assembled:
        litellm = self._litellm
        objects = [litellm.ModelResponseStream(**chunk) for chunk in stream.chunks]
        response = litellm.stream_chunk_builder(
            chunks=objects, messages=list(stream.request.get("messages") or [])
        )
        if response is None or not response.choices:
            return Assembled()
        calls = response.choices[0].message.tool_calls or []
        return Assembled(
            calls=tuple(
                Call(c.id or "", c.function.name or "", c.function.arguments or "") for c in calls
            )
        )
