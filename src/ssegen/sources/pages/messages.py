"""Messages built from a page's fields, and what a page loader returns.

Both streaming pages describe one channel, ``/chat/completions``, whose chunk
message is named after the ``object`` value its table states
(``Always "chat.completion.chunk"`` -> ``ChatCompletionChunk``,
``specs/xerotier/streaming-api.md:20``) and whose terminator is the literal
``data: [DONE]``.  The pieces both loaders build the same way are here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ...diagnostics import Code, codes
from ...ir import Channel, ErrorCode, Example, Message, Provenance, Schema
from ...naming import ClassName
from .fields import ALWAYS_VALUE
from .sections import PageText
from .wire import PageStream

#: The channel every streaming page describes.
CHANNEL_ADDRESS = "/chat/completions"

#: The ``object`` value of a chunk whose table states none.
CHUNK_OBJECT = "chat.completion.chunk"


@dataclass
class PageResult:
    """What one documentation page contributes.

    Attributes:
        channel: the ``/chat/completions`` channel (None when the page describes no stream).
        example_streams: harvested example streams, in page order, without repeats.
        error_codes: documented error codes, in page order.
        title: the page title ("" if none).
    """

    channel: Channel | None
    example_streams: list[PageStream] = field(default_factory=list)
    error_codes: list[ErrorCode] = field(default_factory=list)
    title: str = ""


def chunk_object(object_description: str) -> str:
    """The ``object`` value of the chunk from the description of its ``object`` row.

    :data:`CHUNK_OBJECT` if none is stated.
    """
    always = ALWAYS_VALUE.search(object_description)
    return always.group(1) if always else CHUNK_OBJECT


def chunk_name(object_description: str) -> str:
    """The chunk's class name: the stated ``object`` value as a class name (``ChatCompletionChunk``)."""
    always = ALWAYS_VALUE.search(object_description)
    return str(ClassName(always.group(1))) if always else "ChatCompletionChunk"


def done_message(provenance: Provenance, description: str = "") -> Message:
    """``StreamDone``: the terminator, kind ``terminator``.

    The text/plain literal ``[DONE]`` written at ``provenance``.
    """
    payload = Schema("string", provenance, name="StreamDone", description=description, enum=("[DONE]",))
    return Message(
        name="StreamDone",
        kind="terminator",
        payload=payload,
        provenance=provenance,
        description=description,
        content_type="text/plain",
        examples=(Example("", "", "[DONE]", provenance),),
    )


def unique_messages(messages: list[Message], report: Callable[[Code, str, Provenance], None]) -> list[Message]:
    """``messages`` without later ones whose name repeats an earlier one (``message-name-collision``, warning)."""
    out: list[Message] = []
    seen: dict[str, Message] = {}
    for message in messages:
        if message.name in seen:
            report(
                codes.MESSAGE_NAME_COLLISION,
                f"{message.title or message.name!r} is named {message.name} like the message at line "
                f"{seen[message.name].provenance.line}; the first is kept",
                message.provenance,
            )
            continue
        seen[message.name] = message
        out.append(message)
    return out


def channel_provenance(page: PageText) -> Provenance:
    """Where the page names the channel: its first line mentioning ``chat/completions`` (else line 1)."""
    for number, line in page.numbered():
        if "chat/completions" in line:
            return page.at(number, page.line_pointer(number))
    return page.at(1, "")


def page_channel(messages: list[Message], provenance: Provenance, title: str, lead: str) -> Channel:
    """The page's ``/chat/completions`` channel of ``messages``.

    Its summary is the page title, its description the page's lead paragraph.
    """
    return Channel(
        address=CHANNEL_ADDRESS, messages=tuple(messages), provenance=provenance, summary=title, description=lead
    )
