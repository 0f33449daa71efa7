"""Answering one request for a channel's stream: the one implementation ``ssegen mock``
(:mod:`ssegen.mock`, a Starlette app) and the ``sse_mock`` transport (:mod:`ssegen.transport`, an
in-process httpx transport) share, so both answer the request side alike (issue 33, item 4).

Each server turns its request into an :class:`Incoming` (method, path, headers, query, the body
read by :func:`ssegen.request_body.read_request`), finds what answers it (a channel served, a
*target*: :class:`Target`; else the resuming ``GET`` of a response it sent,
:meth:`RequestSide.resumed`), and asks :meth:`RequestSide.answer` for the stream. In order:

1. the body's problem (``"stream": false``, JSON nested too deep): 400;
2. the checks of :func:`ssegen.mock_requests.screen` (method 405, API key 401, required headers
   and query parameters 400, body schema 400 naming the JSON pointer), for a resuming request
   with the resume's rules (:func:`ssegen.mock_requests.resume_rules`); the transport checks only
   a route asking for it (``route(..., check=True)``);
3. the faults: the server's, the request's query parameters named as faults (and
   ``fault=NAME=VALUE``), the ``x-ssegen-fault`` header; ``times`` counted per target
   (:class:`ssegen.mock_requests.Times`); ``status`` answers its HTTP error;
4. the frames: the target's (:meth:`Target.make_frames`), the response id stamped and
   remembered where the channel resumes ``starting-after`` (:class:`ssegen.mock_requests.Responses`),
   the events after the cursor for a resuming request, ``id:`` lines under ``ids=1`` (after a
   ``Last-Event-ID``), then the steps of :func:`ssegen.replay.iter_plan`.

Every refusal is a :class:`~ssegen.mock_requests.Refusal` (a fault the stream cannot carry is a
400), answered in the provider's error shape (:func:`error_parts`).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

from .mock_requests import (
    Refusal,
    RequestRules,
    Responses,
    Sent,
    Times,
    error_body,
    events_after,
    resume_rules,
    screen,
    status_refusal,
    with_ids,
)
from .replay import (
    FAULT_HEADER,
    EncodedFrames,
    FaultError,
    Faults,
    Step,
    error_frame,
    iter_plan,
    terminator_frame,
)
from .request_body import RequestBody


class Target(Protocol):
    """A channel a server answers (``ssegen mock``'s ``Endpoint``, ``sse_mock``'s ``Route``)."""

    channel: Any
    paths: list[str]
    #: A resumable response's id is derived per request and stamped into its stream (``ssegen
    #: mock``), else kept as the stream has it (``sse_mock``: a route sends what it was set up with).
    derive_ids: bool

    @property
    def rules(self) -> RequestRules | None:
        """What a request opening the stream must be (:func:`ssegen.mock_requests.request_rules`)."""

    def make_frames(self, text: str | None, model: str | None, stream: str | None) -> Collection[bytes]:
        """The frames answering a request naming ``text``, ``model`` and an example ``stream``
        (each None when it names none); the same arguments give the same frames, so a resumed
        response is made again as it was first made."""


@dataclass(frozen=True)
class Incoming:
    """A request as both servers see it.

    Attributes:
        method: the HTTP method.
        path: the URL path.
        headers: the headers, looked up case-insensitively (Starlette's and httpx's are).
        query: the query items in order (``fault`` may repeat).
        body: the body, read (:func:`ssegen.request_body.read_request`).
        text: a text to synthesize the request names (``ssegen mock``'s ``?text=``), or None.
    """

    method: str
    path: str
    headers: Mapping[str, str]
    query: Sequence[tuple[str, str]]
    body: RequestBody
    text: str | None = None

    @functools.cached_property
    def params(self) -> dict[str, str]:
        """The query by name, the last value of a repeated one (as Starlette's ``query_params``)."""
        return dict(self.query)


class Resumed(NamedTuple):
    """What a resuming request (``GET /v1/responses/{id}?stream=true&starting_after=N``) resumes:
    the target that sent the response, what it was made from, the cursor to resume after."""

    target: Any
    sent: Sent
    cursor: int


class Answer(NamedTuple):
    """A stream to send: the channel, its frames (counted for logs), the faults applied and the
    steps carrying them out (made as they are sent)."""

    channel: Any
    frames: Collection[bytes]
    faults: Faults
    steps: Iterator[Step]


def request_faults(base: Faults, incoming: Incoming) -> Faults:
    """``base`` with the faults ``incoming`` asks for: query parameters named as faults
    (``?cut_at=3``), ``fault=NAME=VALUE`` items, then the ``x-ssegen-fault`` header.

    Raises:
        FaultError: a bad fault (the message names it).
    """
    named = {name: value for name, value in incoming.params.items() if name in Faults.__dataclass_fields__}
    faults = Faults.from_mapping(named, base) if named else base
    items = [value for name, value in incoming.query if name == "fault"]
    faults = Faults.parse(items, faults) if items else faults
    header = incoming.headers.get(FAULT_HEADER)
    return Faults.parse(header, faults) if header else faults


def error_parts(refused: Refusal, channel: Any = None) -> tuple[int, dict[str, str], bytes]:
    """The HTTP answer to ``refused``: status, headers (``content-type``, ``Allow``,
    ``Retry-After``) and the JSON body in ``channel``'s provider's error shape
    (:func:`ssegen.mock_requests.error_body`; OpenAI's without a channel)."""
    body = error_body(channel, refused.status, refused.message, refused.kind, refused.pointer)
    return refused.status, {"content-type": "application/json", **refused.headers}, json.dumps(body).encode()


class RequestSide:
    """What a server keeps across requests, and the answer to each: the ``times`` counts and
    the responses sent for resuming. One per ``ssegen mock`` app, one per ``sse_mock``."""

    def __init__(self) -> None:
        self.times = Times()
        self.responses = Responses()

    def resumed(
        self, path: str, query: Mapping[str, str], targets: Iterable[Any], *, suffix: bool = False
    ) -> Resumed | None:
        """What ``path`` resumes: a response sent by one of ``targets`` whose channel resumes
        ``starting-after``, its path the target's resume path (relative to the same server;
        with ``suffix``, after any prefix, as the transport matches), or None.

        Raises:
            Refusal: 404 for a response id not sent (or forgotten), 400 for a bad cursor.
        """
        found = self.responses.resumed(path, query, targets, suffix=suffix)
        return Resumed(*found) if found is not None else None

    def answer(
        self, incoming: Incoming, target: Any, resumed: Resumed | None, base: Faults, *, check: bool = True
    ) -> Answer:
        """The stream answering ``incoming`` for ``target`` (or what ``resumed`` resumes), with
        ``base`` faults and the request's, checked as the module docstring says (``check``:
        :func:`ssegen.mock_requests.screen`).

        Raises:
            Refusal: the request refused, a fault the stream cannot carry (400), the error a
                ``status`` fault asks for.
        """
        try:
            if incoming.body.problem is not None:
                raise Refusal(400, incoming.body.problem)
            if check:
                rules = resume_rules(target.rules) if resumed is not None else target.rules
                screen(rules, incoming.method, incoming.headers, incoming.params, incoming.body)
            faults = self.times.applied(target, request_faults(base, incoming))
            refusal = status_refusal(faults)
            if refusal is not None:
                raise refusal
            channel = target.channel
            framing = str(getattr(channel.framing, "name", channel.framing))
            frames = self._frames(incoming, target, resumed)
            frames = with_ids(frames, faults, incoming.headers.get("last-event-id"), framing)
            error = error_frame(channel) if faults.error_event is not None else None
            steps = iter_plan(frames, faults, error=error, terminator=terminator_frame(channel))
        except FaultError as exc:
            raise Refusal(400, f"ssegen mock: {exc}") from None
        return Answer(channel, frames, faults, steps)

    def _frames(self, incoming: Incoming, target: Any, resumed: Resumed | None) -> Collection[bytes]:
        """The target's frames for the request, the response id stamped (a response that
        resumes ``starting-after``), only those after the cursor for a resuming request."""
        if resumed is not None:  # made as the response resumed was first made
            text, model, stream = resumed.sent.text, resumed.sent.model, resumed.sent.stream
        else:
            text, model, stream = incoming.text, incoming.body.model, incoming.params.get("stream")
        rules = target.rules
        frames = target.make_frames(text, model, stream)
        frames = self.responses.stamp(frames, Sent(target, text, model, stream), rules, derive=target.derive_ids)
        if resumed is not None and rules is not None and rules.resume is not None and isinstance(frames, EncodedFrames):
            frames = events_after(frames, str(rules.resume.get("cursor") or ""), resumed.cursor)
        return frames
