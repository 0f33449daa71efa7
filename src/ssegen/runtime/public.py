"""The runtime's public names: what every provider package re-exports beside its own.

A provider package's ``__init__`` imports this module's names with one star import and adds
:data:`__all__` to its own (``__all__ += public.__all__``), as ``asyncio/__init__.py`` does with
its submodules: the list is written once here, not once per package. So
``from generated.deepseek import SSEError, StreamResult`` works for every package, and a name
added here reaches them all.

The names: the framing errors and the SSE event (``sse.py``, ``framing.py``), the accumulator and
its results (``accumulate.py``), the events no message matched or that the stream ended in
(``events.py``), the channel and its event streams (``stream.py``), the usage object as sent
(``usage.py``) and the client's errors (``client_errors.py``, which needs no httpx).

This module is ``src/ssegen/runtime/public.py`` of ssegen, written verbatim into every output
folder's runtime: edit it there, then run ``ssegen generate``.
"""

from __future__ import annotations

from .accumulate import Accumulator, BlockResult, ChoiceResult, StreamResult, ToolCallResult
from .client_errors import APIConnectionError, APIError, APIStatusError, APITimeoutError
from .events import StreamTruncated, UnknownEvent, VendorEvent
from .sse import (
    EventTooLargeError,
    InvalidFieldError,
    InvalidUTF8Error,
    PayloadError,
    ServerSentEvent,
    SSEError,
)
from .stream import AsyncEventStream, Channel, ConcurrentUseError, EventStream
from .usage import usage_as_sent

__all__ = [
    "APIConnectionError",
    "APIError",
    "APIStatusError",
    "APITimeoutError",
    "Accumulator",
    "AsyncEventStream",
    "BlockResult",
    "Channel",
    "ChoiceResult",
    "ConcurrentUseError",
    "EventStream",
    "EventTooLargeError",
    "InvalidFieldError",
    "InvalidUTF8Error",
    "PayloadError",
    "SSEError",
    "ServerSentEvent",
    "StreamResult",
    "StreamTruncated",
    "ToolCallResult",
    "UnknownEvent",
    "VendorEvent",
    "usage_as_sent",
]
