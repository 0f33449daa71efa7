"""The streaming client's exceptions: what ``client.py`` raises when no stream can be had.

::

    APIError                  no stream (base class): the request's method and URL
    +-- APIStatusError        the server answered a status other than 2xx: its code, headers,
    |                         body as sent, and the error object parsed from it
    +-- APIConnectionError    no answer: the connection failed (the httpx error is the cause)
        +-- APITimeoutError   no answer in time (connect, send or the response headers)

A stream that starts and then fails raises none of these: it ends, with what arrived kept, and
its :class:`~.accumulate_results.StreamResult` records why (``truncated``, ``stalled``,
``error_event``). The names and the hierarchy are the openai and anthropic SDKs' own, so code
catching theirs reads the same.

This module does not import httpx: the errors carry plain values, and the httpx response as
``response`` (typed ``Any``).

This module is ``src/ssegen/runtime/client_errors.py`` of ssegen, written verbatim into every
output folder's runtime: edit it there, then run ``ssegen generate``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import msgspec

from .json_values import is_object

__all__ = [
    "APIConnectionError",
    "APIError",
    "APIStatusError",
    "APITimeoutError",
    "error_message",
    "status_error",
]

#: The most characters of a provider's message an :class:`APIStatusError`'s text quotes.
MESSAGE_CHARS = 500


class APIError(Exception):
    """The streaming client got no stream: the base of its exceptions.

    Attributes:
        message: what happened, in words (also ``str(error)``).
        method: the HTTP method of the request (``POST``).
        url: the request's URL (its query included, so an API key sent as ``?key=`` shows as
            ``key=...``: the client masks it).
    """

    def __init__(self, message: str, *, method: str = "", url: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.method = method
        self.url = url


class APIStatusError(APIError):
    """The server answered with a status other than 2xx (after any retries: 408, 409, 429 and
    5xx are retried, any other status raises at once).

    Attributes:
        status_code: the HTTP status (``400``, ``401``, ``429``...).
        headers: the response headers, names in lower case.
        body: the response body exactly as sent (bytes).
        error: the error object parsed from the body: the operation's ``error_decoder``'s
            result (the spec's error schema, typed) when it has one that accepts the body,
            else the body as plain JSON data, else None (a body that is not JSON).
        response: the httpx response (closed, its body read).
    """

    def __init__(
        self,
        message: str,
        *,
        status_code: int,
        headers: Mapping[str, str],
        body: bytes,
        error: Any = None,
        response: Any = None,
        method: str = "",
        url: str = "",
    ) -> None:
        super().__init__(message, method=method, url=url)
        self.status_code = status_code
        self.headers = {name.lower(): value for name, value in headers.items()}
        self.body = body
        self.error = error
        self.response = response


class APIConnectionError(APIError):
    """No answer: the connection could not be made, or was lost before the response headers
    (after any retries). The transport's exception (an ``httpx.TransportError``) is the
    ``__cause__``."""


class APITimeoutError(APIConnectionError):
    """No answer in time: connecting, sending the request or waiting for the response headers
    took longer than the client's ``timeout`` (after any retries). The ``httpx.TimeoutException``
    is the ``__cause__``."""


def error_message(data: Any) -> str | None:
    """The provider's own message in an error body given as plain JSON data: ``message`` of
    its ``error`` object (OpenAI, Anthropic, Gemini: ``{"error": {"message": ...}}``), ``error``
    itself when it is a string (Ollama: ``{"error": "model not found"}``), or a top-level
    ``message`` or ``detail`` (FastAPI servers); None when it has none."""
    if not is_object(data):
        return None
    error = data.get("error")
    if isinstance(error, str):
        return error
    for holder in (error, data):
        if is_object(holder):
            for name in ("message", "detail"):
                value = holder.get(name)
                if isinstance(value, str):
                    return value
    return None


def status_error(
    status_code: int,
    reason: str,
    headers: Mapping[str, str],
    body: bytes,
    *,
    decoder: Callable[[bytes], Any] | None = None,
    hint: str = "",
    method: str = "",
    url: str = "",
    response: Any = None,
) -> APIStatusError:
    """The :class:`APIStatusError` of a response with status ``status_code`` (its reason
    phrase ``reason``) and body ``body``: the error object parsed (``decoder`` first, then
    plain JSON), and a message naming the request, the status and the provider's message, then
    ``hint`` (what to do: the API key's environment variable on a 401)."""
    data: Any = None
    try:
        data = msgspec.json.decode(body)
    except msgspec.DecodeError:
        pass
    error = data
    if decoder is not None:
        try:
            error = decoder(body)
        except Exception:  # a body the spec's error schema does not fit: kept as plain data
            error = data
    said = error_message(data)
    if said is None and data is None and body:
        said = body.decode("utf-8", "replace")
    text = f"{method} {url}: {status_code} {reason}".rstrip()
    if said:
        text += f": {said[:MESSAGE_CHARS]}"
    if hint:
        text += f" ({hint})"
    return APIStatusError(
        text,
        status_code=status_code,
        headers=headers,
        body=body,
        error=error,
        response=response,
        method=method,
        url=url,
    )
