"""The state of one call while it is assembled, on its own so that the watcher that reports it
(`_turn.call_watcher`) and the assembler that fills it import it from below, not from each other."""

from __future__ import annotations

from typing import Any

from .held_arguments import HeldArguments
from .object_closer import ObjectCloser


class CallState:
    """Mutable state of one call being assembled: what the assembler keeps, what the watcher
    reads to report it, and what a wire reader may read back (name, text, characters received)."""

    __slots__ = (
        "chars",
        "chars_since_resend",
        "closer",
        "extra_content",
        "id",
        "index",
        "late",
        "late_at",
        "loose",
        "name_chars",
        "name_parts",
        "parts",
        "resend_at",
        "type",
        "unwritten",
        "value",
    )

    def __init__(self, index: int) -> None:
        self.index = index
        self.id = ""
        self.type = ""
        self.name_parts: list[str] = []
        self.name_chars = 0
        # Fragments, the last `loose` of them as they came and the rest joined in runs: one
        # `str` per 4-character fragment held to the end made memory twenty times the text.
        self.parts: list[str] = []
        self.loose = 0
        self.chars = 0
        self.chars_since_resend = 0
        # Where (in characters) each fragment that re-sent everything so far began.
        self.resend_at: list[int] = []
        self.extra_content: dict[str, Any] | None = None
        # Where the arguments stand, for a watcher (`_turn.call_watcher`) when the caller asked for
        # events.
        self.closer: ObjectCloser | None = None
        # The last of id, name or type that changed once arguments had begun, and how many
        # characters of them there were then: `complete()` checks it was not after they closed.
        self.late = ""
        self.late_at = 0
        # The object the arguments arrived as (Gemini, Ollama), while it is all they are: the
        # watcher and the turn take it rather than parse its text back.
        self.value: dict[str, Any] | None = None
        # While that object's text is not written into `parts` yet: the cell that writes it
        # (`_calls.held_arguments`), shared with the events and the turn that report it.
        self.unwritten: HeldArguments | None = None

    def write(self) -> None:
        """Write the arguments held as an object, as the fragment they would have been."""
        if self.unwritten is None:
            return
        text = self.unwritten.text()
        self.unwritten = None
        self.parts = [text]
        self.loose = 1
        self.chars = self.chars_since_resend = len(text)

    def text(self) -> str:
        """The arguments so far, joined once and kept joined until the next fragment."""
        if self.unwritten is not None:
            self.write()
        parts = self.parts
        if len(parts) > 1:
            parts[:] = ["".join(parts)]
            self.loose = 0
        return parts[0] if parts else ""

    def holds(self, text: str) -> bool:
        """Whether the arguments so far are `text`, compared piece by piece: a wire that repeats
        a megabyte of arguments whole (Responses' `.done`) is checked without a joined copy of
        them beside the repetition and the event it came in."""
        if self.unwritten is not None:
            self.write()
        if len(text) != self.chars:
            return False
        at = 0
        for part in self.parts:
            if not text.startswith(part, at):
                return False
            at += len(part)
        return True

    def name(self) -> str:
        """The name so far, joined once and kept joined until the next fragment."""
        parts = self.name_parts
        if len(parts) > 1:
            parts[:] = ["".join(parts)]
        return parts[0] if parts else ""
