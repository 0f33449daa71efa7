"""Partial JSON: the value a cut-off JSON text (streamed tool arguments) says so far.

:func:`partial_json` closes what is open (strings, arrays, objects) and drops a dangling key or
scalar, so a consumer can read ``{"city": "Lis`` as ``{"city": "Lis"}`` while the arguments
stream; the complete text decodes as itself.

This module is ``src/ssegen/runtime/partial_json.py`` of ssegen, copied verbatim into every
generated package: edit it there, then run ``ssegen generate``.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec


def partial_json(text: str) -> Any:
    """The best-effort value of JSON text that may be cut short (a tool input stopped by
    ``max_tokens``): the text itself when it is valid JSON, else its longest prefix made
    whole: an open string closed (a dangling escape left out), open arrays and objects
    closed, and a dangling key, a trailing comma or a partial literal (``tru``, ``-``,
    ``1.``) left out. None when no prefix holds a value, or the text is not JSON (text
    after a whole value, nesting deeper than msgspec decodes). Never raises.

    The generated package depends only on msgspec and the standard library, so this
    small completer stands in for a partial-JSON parser (``jiter``'s
    ``partial_mode="trailing-strings"`` gives the same values; it would be a new
    runtime dependency).
    """
    try:
        return msgspec.json.decode(text)
    except (msgspec.DecodeError, RecursionError):
        pass
    completed = _complete_json(text)
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


class _Open:
    """An open array or object while a cut JSON text is read (a linked stack, so that a
    cut point keeps the brackets open there in constant time)."""

    __slots__ = ("bracket", "state", "outer")

    def __init__(self, bracket: str, outer: _Open | None) -> None:
        self.bracket = bracket
        self.state = "key" if bracket == "{" else "value"  # key, colon, value, comma
        self.outer = outer

    def closers(self) -> str:
        found: list[str] = []
        node: _Open | None = self
        while node is not None:
            found.append("}" if node.bracket == "{" else "]")
            node = node.outer
        return "".join(found)


def _complete_json(text: str) -> str | None:
    """``text`` cut at its last point where a value ended (or a container opened),
    with the containers open there closed; an open string value at the end closed.
    None when there is no such point, or text follows a whole value."""
    top: _Open | None = None
    cut: tuple[int, _Open | None] | None = None  # (length kept, the containers open there)
    whole = False  # a value at the top level has ended
    i, n = 0, len(text)
    while i < n:
        char = text[i]
        if char in " \t\r\n":
            i += 1
            continue
        if whole:
            return None
        if char in "{[":
            top = _Open(char, top)
            i += 1
            cut = (i, top)
            continue
        if char in "}]":
            if top is None:
                return None
            top = top.outer
            i += 1
        elif char == ",":
            if top is not None:
                top.state = "key" if top.bracket == "{" else "value"
            i += 1
            continue
        elif char == ":":
            if top is not None:
                top.state = "value"
            i += 1
            continue
        elif char == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            is_key = top is not None and top.bracket == "{" and top.state == "key"
            if j >= n:  # an open string: a value is closed, a key left out
                if is_key:
                    break
                body = text[i + 1 :]
                escape = _DANGLING_ESCAPE.search(body)
                if escape is not None and len(escape.group(1)) % 2:
                    body = body[: escape.end(1) - 1]
                return text[:i] + '"' + body + '"' + (top.closers() if top is not None else "")
            i = j + 1
            if is_key and top is not None:
                top.state = "colon"
                continue
        else:
            j = i
            while j < n and text[j] not in ",]} \t\r\n":
                j += 1
            if j >= n and not _WHOLE_SCALAR.fullmatch(text[i:j]):
                break  # a partial literal or number at the end
            i = j
        # a value ended at i
        if top is None:
            whole = True
        else:
            top.state = "comma"
        cut = (i, top)
    if cut is None:
        return None
    return text[: cut[0]] + (cut[1].closers() if cut[1] is not None else "")
