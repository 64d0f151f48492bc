"""Text that arrives a few characters at a time, held in runs.

An answer, its reasoning, a Vertex string value: each arrives in pieces of a few characters, and
a `str` held for each piece costs some fifty bytes beside its characters, sixteen to twenty times
the text it holds. Pieces are kept as they came only until `RUN` of them are, then joined into
one run, so a megabyte is a few thousand strings and each character is copied into a run once.
"""

from __future__ import annotations

#: Pieces kept as they came before they are joined into one run.
RUN = 64


class TextRuns:
    """The pieces of one text, the last few as they came and the rest in runs."""

    __slots__ = ("loose", "parts")

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.loose = 0

    def __bool__(self) -> bool:
        return bool(self.parts)

    def add(self, piece: str) -> None:
        parts = self.parts
        parts.append(piece)
        self.loose += 1
        if self.loose == RUN:
            parts[-RUN:] = ["".join(parts[-RUN:])]
            self.loose = 0

    def joined(self) -> str:
        """The whole text, joined once and kept as the one run: a holder that outlives the
        reader's need of it (a template the builder keeps) holds the text, not its pieces."""
        parts = self.parts
        if len(parts) != 1:
            parts[:] = ["".join(parts)]
            self.loose = 1
        return parts[0]
