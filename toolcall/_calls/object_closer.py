"""Tells, fragment by fragment, when a call's arguments close as one JSON object.

`ToolCallDone` must come as soon as a call's arguments are complete, and a turn streams them in
fragments of a few characters, so this watches only what decides closing: strings (where braces
do not count), escapes (a `\\"` does not end a string, even when the backslash ends one fragment
and the quote starts the next), and the depth of brackets outside strings. Each fragment is
scanned once, by a compiled pattern that jumps over everything else, and never read again: the
cost is linear in the arguments and a few hundred nanoseconds per fragment.

It does not validate: closing is only the moment to parse the text once, and whatever does not
parse then is left to the end of the turn, which reports it as always.
"""

from __future__ import annotations

import re

# Inside a string only a quote or a backslash matters; outside, brackets and the opening quote.
_IN_STRING = re.compile(r'["\\]')
_OUTSIDE = re.compile(r'[{}\[\]"]')
JSON_WHITESPACE = " \t\n\r"


class ObjectCloser:
    """State of one call's arguments: depth outside strings, whether inside one, and the end.

    `closed` is set when the first top-level value that opened with `{` has closed and nothing
    but JSON whitespace followed it; `spoiled` when anything else happened (the text did not
    start with `{`, or more text came after the close): then it will not be reported early.
    """

    __slots__ = ("closed", "depth", "end", "in_string", "skip", "spoiled")

    def __init__(self) -> None:
        self.depth = 0
        self.in_string = False
        self.skip = False  # the previous fragment ended inside an escape
        self.closed = False
        self.spoiled = False
        self.end = 0  # where the object closed, in the text that closed it

    def feed(self, text: str) -> bool:
        """Take the next fragment; True when this fragment closed the object."""
        if self.spoiled:
            return False
        if self.closed:
            if text.strip(JSON_WHITESPACE):
                self.spoiled = True
            return False
        if self.in_string and not self.skip and '"' not in text and "\\" not in text:
            return False  # the common fragment: a few more characters of a string value
        position = 0
        if self.skip:
            self.skip = False
            position = 1
        end = len(text)
        while position < end:
            if self.in_string:
                found = _IN_STRING.search(text, position)
                if found is None:
                    return False
                position = found.end()
                if text[found.start()] == '"':
                    self.in_string = False
                elif position == end:  # the escaped character is in the next fragment
                    self.skip = True
                    return False
                else:
                    position += 1
                continue
            if self.depth == 0 and text[position:].lstrip(JSON_WHITESPACE)[:1] not in ("{", ""):
                self.spoiled = True
                return False
            found = _OUTSIDE.search(text, position)
            if found is None:
                return False
            position = found.end()
            mark = text[found.start()]
            if mark == '"':
                self.in_string = True
            elif mark in "{[":
                self.depth += 1
            else:
                self.depth -= 1
                if self.depth == 0:
                    if text[position:].strip(JSON_WHITESPACE):
                        self.spoiled = True
                        return False
                    self.closed = True
                    self.end = position
                    return True
                if self.depth < 0:
                    self.spoiled = True
                    return False
        return False
