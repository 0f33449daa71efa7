"""Partial JSON: the value a cut-off JSON text (streamed tool arguments) says so far.

:func:`partial_json` closes what is open (arrays, objects) and drops a dangling key, scalar or
string, so a consumer can read ``{"n": 2, "city": "Lis`` as ``{"n": 2}`` while the arguments
stream (as the anthropic SDK does; ``{"n": 2, "city": "Lis"}`` with ``trailing_strings``); the
complete text decodes as itself.

This module is ``src/ssegen/runtime/partial_json.py`` of ssegen, written verbatim into every
output folder's runtime: edit it there, then run ``ssegen generate``.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec


def partial_json(text: str, *, trailing_strings: bool = False) -> Any:
    """The best-effort value of JSON text that may be cut short (a tool input stopped by
    ``max_tokens``): the text itself when it is valid JSON, else its longest prefix made
    whole: open arrays and objects closed, and a dangling key, a trailing comma, a partial
    literal (``tru``, ``-``, ``1.``) and an unfinished string left out (with the member
    or item it was the value of). With ``trailing_strings``, an unfinished string value is
    kept instead, closed (a dangling escape left out). None when no prefix holds a value,
    or the text is not JSON (text after a whole value, nesting deeper than msgspec
    decodes). Never raises.

    The default is the anthropic SDK's parsed view of a tool input being streamed
    (``jiter.from_json(buf, partial_mode=True)``, anthropic ``lib/streaming/_messages.py``:
    ``{"a": 1, "b": "Filing taxes`` is ``{"a": 1}``); ``trailing_strings`` is jiter's
    ``partial_mode="trailing-strings"`` (``{"a": 1, "b": "Filing taxes"}``). The generated
    package depends only on msgspec and the standard library, so this small completer
    stands in for jiter (a new runtime dependency).
    """
    try:
        return msgspec.json.decode(text)
    except (msgspec.DecodeError, RecursionError):
        pass
    completed = _complete_json(text, trailing_strings)
    if completed is None:
        return None
    try:
        return msgspec.json.decode(completed)
    except (msgspec.DecodeError, RecursionError):
        return None


#: A whole JSON number or literal (what may end a text cut short and still be a value).
_WHOLE_SCALAR = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?|true|false|null")
#: Backslashes (an odd number: the last one a dangling escape) ending an open string.
_DANGLING_ESCAPE = re.compile(r"(\\+)(?:u[0-9a-fA-F]{0,3})?$")


#: The bracket that closes each opening one.
_CLOSER = {"{": "}", "[": "]"}


class _Open:
    """An open array or object while a cut JSON text is read (a linked stack, so that a
    cut point keeps the brackets open there in constant time).

    ``state`` is what the container expects next: ``key`` (an object after ``{`` or
    ``,``), ``colon`` (after a key), ``value`` (after ``:``, or in an array after ``[``
    or ``,``) or ``comma`` (after a value)."""

    __slots__ = ("bracket", "state", "outer")

    def __init__(self, bracket: str, outer: _Open | None) -> None:
        self.bracket = bracket
        self.state = "key" if bracket == "{" else "value"
        self.outer = outer

    def closers(self) -> str:
        """The brackets closing this container and each one it is in, innermost first."""
        found: list[str] = []
        node: _Open | None = self
        while node is not None:
            found.append(_CLOSER[node.bracket])
            node = node.outer
        return "".join(found)


class _Reader:
    """The state of a cut JSON text read token by token (:func:`_complete_json` feeds
    it): the containers open (``top``, innermost), the last cut point and whether a
    value at the top level has ended (nothing but whitespace may follow it)."""

    __slots__ = ("text", "top", "cut", "whole")

    def __init__(self, text: str) -> None:
        self.text = text
        self.top: _Open | None = None
        #: (length kept, the containers open there), or None before any value or container
        self.cut: tuple[int, _Open | None] | None = None
        self.whole = False

    def completed(self) -> str | None:
        """The text kept at the last cut point, with the containers open there closed."""
        if self.cut is None:
            return None
        kept, top = self.cut
        return self.text[:kept] + (top.closers() if top is not None else "")

    def value_ended(self, end: int) -> None:
        """A value ended at ``end`` (exclusive): a cut point, where the container expects
        a comma next (at the top level: the end of the text)."""
        if self.top is None:
            self.whole = True
        else:
            self.top.state = "comma"
        self.cut = (end, self.top)

    def expects_key(self) -> bool:
        """Whether a string read now is an object's key (else it is a value)."""
        top = self.top
        return top is not None and top.bracket == "{" and top.state == "key"

    def punctuation(self, char: str, at: int) -> bool:
        """Apply a bracket, comma or colon at ``at``; False for a closing bracket with
        nothing open (not JSON). An opening bracket is a cut point too (``[`` alone
        completes to ``[]``); brackets are not matched (``[}`` reads as ``[]``, which
        the decode of the completed text then judges)."""
        top = self.top
        if char in "{[":
            self.top = _Open(char, top)
            self.cut = (at + 1, self.top)
        elif char in "}]":
            if top is None:
                return False
            self.top = top.outer
            self.value_ended(at + 1)
        elif top is None:
            pass  # a comma or colon outside any container: the decode judges it
        elif char == ",":
            top.state = "key" if top.bracket == "{" else "value"
        else:
            top.state = "value"
        return True

    def string_ended(self, end: int) -> None:
        """A whole string ended at ``end`` (exclusive): a key expects its colon, a value
        has ended."""
        if self.expects_key() and self.top is not None:
            self.top.state = "colon"
        else:
            self.value_ended(end)

    def string_cut(self, start: int, trailing_strings: bool) -> str | None:
        """The completed text when a string opened at ``start`` is cut by the end of the
        text: an open key left out, an open value too unless ``trailing_strings`` (then it
        is closed, a dangling escape left out)."""
        if self.expects_key() or not trailing_strings:
            return self.completed()
        body = self.text[start + 1 :]
        escape = _DANGLING_ESCAPE.search(body)
        if escape is not None and len(escape.group(1)) % 2:
            body = body[: escape.end(1) - 1]
        top = self.top
        return self.text[:start] + '"' + body + '"' + (top.closers() if top is not None else "")


def _complete_json(text: str, trailing_strings: bool) -> str | None:
    """``text`` cut at its last point where a value ended (or a container opened),
    with the containers open there closed; with ``trailing_strings``, an open string
    value at the end closed instead. None when there is no such point, or text follows a
    whole value."""
    reader = _Reader(text)
    i, n = 0, len(text)
    while i < n:
        char = text[i]
        if char in " \t\r\n":
            i += 1
        elif reader.whole:
            return None
        elif char in "{[}],:":
            if not reader.punctuation(char, i):
                return None
            i += 1
        elif char == '"':
            end = _string_end(text, i)
            if end >= n:
                return reader.string_cut(i, trailing_strings)
            i = end + 1
            reader.string_ended(i)
        else:
            end = _scalar_end(text, i)
            if end >= n and not _WHOLE_SCALAR.fullmatch(text[i:end]):
                break  # a partial literal or number at the end
            reader.value_ended(end)
            i = end
    return reader.completed()


def _string_end(text: str, start: int) -> int:
    """The index of the quote closing the string whose opening quote is at ``start``
    (an escape skips the character after the backslash); ``len(text)`` or more when the
    text ends inside the string."""
    end = start + 1
    while end < len(text) and text[end] != '"':
        end += 2 if text[end] == "\\" else 1
    return end


def _scalar_end(text: str, start: int) -> int:
    """The end (exclusive) of the number or literal starting at ``start``: the next
    comma, closing bracket or whitespace, else ``len(text)``."""
    end = start
    while end < len(text) and text[end] not in ",]} \t\r\n":
        end += 1
    return end
