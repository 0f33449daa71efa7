"""The streaming client's retry decisions, as pure functions: which statuses and in-stream errors
are worth another try, how long to wait, and when a stream has shown content.

- Statuses: 408, 409, 429 and 5xx are retried (:func:`retryable_status`), as the openai and
  anthropic SDKs retry them; a response's ``x-should-retry: true|false`` overrides that
  (:func:`should_retry`).
- Waiting: exponential backoff with full jitter (:class:`Backoff`: 0.5 s base, 8 s cap; AWS
  Architecture Blog, "Exponential Backoff And Jitter"), unless the response says how long:
  ``retry-after-ms`` (milliseconds), then ``Retry-After`` (RFC 9110 10.2.3: seconds, or an
  HTTP date).
- In-stream errors: an error event is retried only when it says the server is busy or
  failing (:func:`retryable_error`: Anthropic ``overloaded_error``, a Responses ``error`` with
  a rate-limit code, Google ``RESOURCE_EXHAUSTED``), and only while no content has arrived
  (:func:`has_content`).

Nothing here sleeps or reads a clock of its own: :class:`Backoff` holds the ``sleep``,
``clock`` and ``random`` it uses, so tests hand it fakes.

This module is ``src/ssegen/runtime/client_retry.py`` of ssegen, written verbatim into every
output folder's runtime: edit it there, then run ``ssegen generate``.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any

from .accumulate import Accumulator
from .json_values import is_object

__all__ = [
    "EMPTY_BLOCK_KINDS",
    "RETRYABLE_ERRORS",
    "Backoff",
    "has_content",
    "retryable_error",
    "retryable_status",
    "should_retry",
]

#: The error codes, types and statuses of an in-stream error that say "try again": Anthropic's
#: ``overloaded_error`` (HTTP 529), ``rate_limit_error`` (429) and ``api_error`` (500); OpenAI's
#: ``rate_limit_exceeded`` and ``server_error`` (a Responses ``error`` event's ``code``, a chat
#: chunk's ``error.type``); Google's ``RESOURCE_EXHAUSTED`` (429), ``UNAVAILABLE`` (503) and
#: ``INTERNAL`` (500) (``error.status`` of google.rpc.Status).
RETRYABLE_ERRORS = frozenset(
    {
        "overloaded_error",
        "rate_limit_error",
        "api_error",
        "rate_limit_exceeded",
        "server_error",
        "RESOURCE_EXHAUSTED",
        "UNAVAILABLE",
        "INTERNAL",
    }
)

#: The block kinds that are no content while empty: an opened text, thinking, message or
#: reasoning block holds nothing to show until its first delta.
EMPTY_BLOCK_KINDS = frozenset({None, "text", "thinking", "message", "reasoning"})


def retryable_status(status: int) -> bool:
    """True for the HTTP statuses worth another try: 408 (timeout), 409 (conflict: a lock),
    429 (rate limit) and every 5xx."""
    return status in (408, 409, 429) or 500 <= status <= 599


def should_retry(status: int, headers: Mapping[str, str]) -> bool:
    """Whether a response with ``status`` is retried: ``x-should-retry: true`` or ``false``
    when the server sends it (OpenAI and Anthropic do), else :func:`retryable_status`."""
    said = headers.get("x-should-retry")
    if said == "true":
        return True
    if said == "false":
        return False
    return retryable_status(status)


def _default_asleep(seconds: float) -> Awaitable[None]:
    """``asyncio.sleep(seconds)``."""
    return asyncio.sleep(seconds)


@dataclass(frozen=True)
class Backoff:
    """How long the client waits before another try, and what it waits with.

    Attributes:
        base: the first retry's longest wait, in seconds (0.5); each retry doubles it.
        cap: the longest wait of any retry, in seconds (8).
        max_retry_after: the longest wait a ``Retry-After`` or ``retry-after-ms`` is honoured
            for, in seconds (60); a longer one falls back to the backoff, as the openai SDK's
            does (a client does not hang for an hour because a header says so).
        sleep: waits in the synchronous client (``time.sleep``).
        asleep: waits in the asynchronous one (``asyncio.sleep``).
        clock: the wall clock, in seconds since the epoch (``time.time``): reads an HTTP-date
            ``Retry-After``.
        random: a number in [0, 1) (``random.random``): the jitter.
    """

    base: float = 0.5
    cap: float = 8.0
    max_retry_after: float = 60.0
    sleep: Callable[[float], None] = time.sleep
    asleep: Callable[[float], Awaitable[None]] = field(default=_default_asleep)
    clock: Callable[[], float] = time.time
    random: Callable[[], float] = random.random

    def delay(self, retry: int) -> float:
        """The wait before retry number ``retry`` (0 for the first), in seconds: full jitter,
        a uniform draw from 0 to ``min(cap, base * 2 ** retry)``."""
        return min(self.cap, self.base * 2.0 ** min(retry, 62)) * self.random()

    def retry_after(self, headers: Mapping[str, str]) -> float | None:
        """The wait a response asks for, in seconds, when it asks for one from 0 to
        :attr:`max_retry_after`: ``retry-after-ms`` (milliseconds, a number), else
        ``Retry-After`` (whole seconds, or an HTTP date read against :attr:`clock`); None
        when it asks for none, or for too long, or says it unreadably."""
        wait = _number(headers.get("retry-after-ms"))
        if wait is not None:
            wait /= 1000.0
        else:
            text = headers.get("retry-after")
            wait = _number(text)
            if wait is None and text:
                wait = self._until(text)
        if wait is None or not 0 <= wait <= self.max_retry_after:
            return None
        return wait

    def _until(self, date: str) -> float | None:
        """Seconds from :attr:`clock` to an HTTP date (RFC 9110 5.6.7), or None."""
        try:
            moment = parsedate_to_datetime(date)
        except (TypeError, ValueError, IndexError):
            return None
        return max(0.0, moment.timestamp() - self.clock())


def _number(text: str | None) -> float | None:
    """``text`` as a finite number, or None."""
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        return None
    return value if value == value and abs(value) != float("inf") else None


def retryable_error(data: Any) -> bool:
    """True for an in-stream error (an ``error_event`` or ``error_in_chunk`` entry's ``data``,
    plain JSON) that says the server is busy or failing: its error object (``data["error"]``;
    a Responses ``response.failed`` event's ``data["response"]["error"]``; or ``data`` itself:
    a Responses ``error`` event) has a ``type``, ``code`` or ``status`` in
    :data:`RETRYABLE_ERRORS`, or a number that is a retryable HTTP status (Gemini's
    ``"code": 429``, OpenRouter's ``"code": 502``)."""
    if not is_object(data):
        return False
    error = data.get("error")
    response = data.get("response")
    if not is_object(error) and is_object(response):
        error = response.get("error")  # response.failed: the failed response's error
    holder = error if is_object(error) else data
    for name in ("type", "code", "status"):
        value = holder.get(name)
        if isinstance(value, str) and value in RETRYABLE_ERRORS:
            return True
        if isinstance(value, int) and not isinstance(value, bool) and retryable_status(value):
            return True
    return False


def has_content(acc: Accumulator) -> bool:
    """True once ``acc`` holds something a reader would see: any text (a choice's content,
    reasoning or refusal, a block's text, thinking or arguments, a named text), a tool call,
    a content part, a collected value, a block of a kind other than an empty text, thinking,
    message or reasoning one (:data:`EMPTY_BLOCK_KINDS`), or the final text. An opened empty
    block, a role-only delta, usage and metadata are no content: a stream holding only them
    can be retried from its start without the reader seeing anything twice."""
    if acc.final_text or any(map(any, acc.texts.values())) or any(acc.lists.values()):
        return True
    for choice in acc.states.values():
        if choice.tool_calls or choice.content_parts or any(map(any, choice.texts.values())):
            return True
        if any(choice.content) or any(choice.reasoning_content) or any(choice.refusal):
            return True
    return any(_block_content(block) for block in acc.blocks.values())


def _block_content(block: Any) -> bool:
    """True for a block (``accumulate_blocks.BlockState``) holding content (:func:`has_content`)."""
    if block.kind not in EMPTY_BLOCK_KINDS or block.name or block.deltas:
        return True
    texts = (block.text, block.thinking, block.refusal, block.arguments, *block.texts.values())
    return any(map(any, texts))
