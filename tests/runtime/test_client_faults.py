"""Faults inside a stream, through the streaming client over ``httpx.MockTransport``, sync and async:
an error event before and after content, a stall (the idle timeout), a cut, and resume by
``Last-Event-ID`` and by Responses ``starting_after``, each compared with the unbroken stream."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs

import httpx
import msgspec
import pytest
from helpers.client_cases import CASE, EXHAUSTED, MODES, OVERLOADED, RATE_LIMITED, Case, stream
from helpers.scripted import CUT, STALL, Body, Server, Status, half, with_ids

from generated._runtime.events import StreamStalled, StreamTruncated


def _plain(events: list[Any]) -> list[Any]:
    return [msgspec.to_builtins(e) for e in events]


def _unbroken(case: Case, events: list[bytes]) -> list[Any]:
    return _plain(list(case.operation.channel.decode([b"".join(events)])))


# An error event in the stream.


@pytest.mark.parametrize("mode", MODES)
def test_an_overload_before_content_starts_over_and_the_reader_sees_none_of_it(mode: str) -> None:
    case = CASE["messages"]
    first = [case.events[0], OVERLOADED]  # message_start, then the error, before any block
    server = Server(Body(first), Body(case.events))
    result, retries = stream(server, case, mode)
    assert result == case.expected() and len(server.requests) == 2
    assert [(r.kind, r.reason, r.delay) for r in retries] == [("retry", "error event overloaded_error", 0.5)]
    events, _ = stream(Server(Body(first), Body(case.events)), case, mode, iterate=True)
    assert _plain(events) == _unbroken(case, case.events)  # one message_start, no error


@pytest.mark.parametrize("mode", MODES)
def test_an_overload_after_content_is_recorded_and_not_retried(mode: str) -> None:
    case = CASE["messages"]
    server = Server(Body([*case.events[:3], OVERLOADED]), Body(case.events))
    result, retries = stream(server, case, mode)
    assert len(server.requests) == 1 and retries == []
    assert result["output"][0]["text"] == "Hi" and result["complete"] is False
    assert result["errors"] == [
        {
            "kind": "error_event",
            "data": {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
        }
    ]


@pytest.mark.parametrize(("name", "error"), [("responses", RATE_LIMITED), ("gemini", EXHAUSTED), ("chat", EXHAUSTED)])
def test_a_rate_limit_or_exhausted_resource_before_content_starts_over(name: str, error: bytes) -> None:
    case = CASE[name]
    server = Server(Body([*case.events[:1], error] if name == "responses" else [error]), Body(case.events))
    result, retries = stream(server, case, "sync")
    assert result == case.expected() and len(server.requests) == 2 and retries[0].kind == "retry"


def test_an_error_that_is_not_transient_is_recorded_not_retried() -> None:
    case = CASE["messages"]
    invalid = OVERLOADED.replace(b"overloaded_error", b"invalid_request_error")
    server = Server(Body([case.events[0], invalid]), Body(case.events))
    result, _ = stream(server, case, "sync")
    assert len(server.requests) == 1 and result["errors"][0]["data"]["error"]["type"] == "invalid_request_error"


def test_an_overload_with_no_retry_left_ends_the_stream_as_sent() -> None:
    case = CASE["messages"]
    server = Server(Body([case.events[0], OVERLOADED]))
    result, _ = stream(server, case, "sync", max_retries=0)
    assert len(server.requests) == 1 and result["errors"][0]["kind"] == "error_event"
    server = Server(Body([case.events[0], OVERLOADED]), Status(529, b'{"error": {"type": "overloaded_error"}}'))
    result, retries = stream(server, case, "sync", max_retries=1)  # the start over is refused
    assert len(server.requests) == 2 and [r.kind for r in retries] == ["retry"]
    assert result["errors"][0]["data"]["error"]["type"] == "overloaded_error"  # the first attempt's


# The idle timeout.


@pytest.mark.parametrize("mode", MODES)
def test_a_stall_after_content_ends_stalled_keeping_what_arrived(mode: str) -> None:
    case = CASE["messages"]  # no resume
    server = Server(Body([*case.events[:3], STALL]), Body(case.events))
    result, _ = stream(server, case, mode, idle_timeout=5.0)
    assert len(server.requests) == 1 and result["complete"] is False and result["output"][0]["text"] == "Hi"
    (error,) = result["errors"]
    assert error["kind"] == "stalled" and error["idle_timeout"] == 5.0 and error["bytes_discarded"] == 0
    assert error["bytes"] == len(b"".join(case.events[:3]))
    assert error["message"] == "no byte came for 5 s (idle_timeout): the connection was closed"
    events, _ = stream(Server(Body([*case.events[:3], STALL])), case, mode, iterate=True, idle_timeout=5.0)
    assert isinstance(events[-1], StreamStalled) and isinstance(events[-1], StreamTruncated)
    assert _plain(events[:-1]) == _unbroken(case, case.events[:3])
    assert case.operation.channel.accumulate(events).to_dict() == result  # the event records it too


@pytest.mark.parametrize("mode", MODES)
def test_a_stall_before_content_starts_over(mode: str) -> None:
    case = CASE["messages"]
    server = Server(Body([case.events[0], STALL]), Body(case.events))
    result, retries = stream(server, case, mode)
    assert result == case.expected() and [(r.kind, r.reason) for r in retries] == [("retry", "stalled")]


def test_the_body_is_read_with_the_idle_timeout_and_the_headers_with_the_timeout() -> None:
    case = CASE["chat"]
    server = Server(Body(case.events))
    stream(server, case, "sync", timeout=30.0, idle_timeout=5.0)
    assert server.bodies[0].read_timeout == 5.0
    assert server.requests[0].extensions["timeout"]["connect"] == 30.0
    server = Server(Body(case.events))
    stream(server, case, "async", timeout=30.0, idle_timeout=None)
    assert server.bodies[0].read_timeout is None


# A cut.


@pytest.mark.parametrize("mode", MODES)
def test_a_cut_after_content_ends_truncated_and_is_not_retried(mode: str) -> None:
    case = CASE["messages"]
    server = Server(Body([*case.events[:3], half(case.events[3]), CUT]), Body(case.events))
    result, retries = stream(server, case, mode)
    assert len(server.requests) == 1 and retries == [] and result["output"][0]["text"] == "Hi"
    (error,) = result["errors"]
    assert error["kind"] == "truncated" and error["bytes_discarded"] == len(half(case.events[3]))
    assert error["message"] == (
        "the connection was lost (RemoteProtocolError: peer closed connection without sending complete"
        " message body); the unterminated event was discarded"
    )


def test_a_body_closed_inside_an_event_ends_truncated_as_decode_says() -> None:
    case = CASE["chat"]
    body = [*case.events[:2], half(case.events[2])]
    result, _ = stream(Server(Body(body), Body(case.events)), case, "sync")  # no id: no resume
    channel = case.operation.channel
    assert result == channel.accumulate(channel.decode([b"".join(body)])).to_dict()
    assert result["errors"][-1]["kind"] == "truncated"


@pytest.mark.parametrize("name", ["chat", "messages", "responses", "gemini", "ollama"])
def test_a_connection_lost_after_the_last_event_cuts_nothing(name: str) -> None:
    case = CASE[name]
    server = Server(Body([*case.events, CUT], case.content_type))
    result, retries = stream(server, case, "sync")
    assert result == case.expected() and len(server.requests) == 1 and retries == []


@pytest.mark.parametrize("mode", MODES)
def test_a_cut_before_content_starts_over(mode: str) -> None:
    case = CASE["messages"]
    server = Server(Body([case.events[0], CUT]), Body(case.events))
    result, retries = stream(server, case, mode)
    assert result == case.expected() and retries[0].reason.startswith("cut: the connection was lost")


# Resume by Last-Event-ID.


def _by_last_event_id(events: list[bytes], cut_after: int, *, repeat: bool = False) -> Any:
    """Answers: the events from the one after ``Last-Event-ID`` (all without it); the first answer
    (every answer with ``repeat``) stops inside event ``cut_after`` (counted from where it starts)."""
    answered = []

    def answer(request: httpx.Request) -> Body:
        start = int(request.headers.get("last-event-id", "0"))
        rest = events[start:]
        answered.append(start)
        if (repeat or len(answered) == 1) and cut_after < len(rest):
            return Body([*rest[:cut_after], half(rest[cut_after]), CUT])
        return Body(rest)

    return answer


@pytest.mark.parametrize("mode", MODES)
def test_last_event_id_resumes_a_cut_stream_equal_to_the_unbroken_one(mode: str) -> None:
    case = CASE["chat"]
    events = with_ids(case.events)
    unbroken = Case(case.name, case.operation, case.body, events)
    server = Server(_by_last_event_id(events, 2))
    result, retries = stream(server, unbroken, mode)
    assert result == unbroken.expected() and result["choices"][0]["content"] == "Hi there"
    assert [r.kind for r in retries] == ["resume"] and "last-event-id" not in server.requests[0].headers
    assert (
        server.requests[1].headers["last-event-id"] == "2" and server.requests[1].content == server.requests[0].content
    )
    typed, _ = stream(Server(_by_last_event_id(events, 2)), unbroken, mode, iterate=True)
    assert _plain(typed) == _unbroken(case, events)  # no delta duplicated or missing


def test_last_event_id_resumes_a_stall_and_waits_the_streams_reconnection_time() -> None:
    case = CASE["chat"]
    events = [b"retry: 250\n\n", *with_ids(case.events)]
    answers = iter([Body([*events[:3], STALL]), None])

    def answer(request: httpx.Request) -> Body:
        first = next(answers)
        return first or Body(events[1 + int(request.headers["last-event-id"]) :])

    server = Server(answer)
    result, retries = stream(server, Case(case.name, case.operation, case.body, events), "sync")
    assert result == case.expected() and server.sleeps == [0.25]
    assert [(r.kind, r.reason) for r in retries] == [("resume", "stalled")]


@pytest.mark.parametrize("mode", MODES)
def test_a_stream_whose_events_carry_ids_resumes_though_its_operation_declares_no_resume(mode: str) -> None:
    """The Messages operation declares ``resume="none"``; its events carrying ids, a cut stream
    resumes with ``Last-Event-ID`` as ``EventSource`` would (issue 33: "any stream whose events
    carry ids ends equal to the unbroken stream after a cut")."""
    case = CASE["messages"]
    assert case.operation.resume == "none"
    events = with_ids(case.events)
    unbroken = Case(case.name, case.operation, case.body, events)
    server = Server(_by_last_event_id(events, 3))
    result, retries = stream(server, unbroken, mode)
    assert result == unbroken.expected() and result["complete"] and result["output"][0]["text"] == "Hi there"
    assert [r.kind for r in retries] == ["resume"] and server.requests[1].headers["last-event-id"] == "3"


def test_a_stream_resumes_as_often_as_each_connection_brings_events() -> None:
    case = CASE["chat"]
    events = with_ids(case.events)
    server = Server(_by_last_event_id(events, 1, repeat=True))  # each connection: one event, then a cut
    result, retries = stream(server, Case(case.name, case.operation, case.body, events), "sync", max_retries=1)
    assert result["choices"][0]["content"] == "Hi there" and result["errors"] == [] and result["complete"]
    assert len(retries) == len(server.requests) - 1 >= 3


def test_a_refused_resume_ends_truncated_with_what_arrived() -> None:
    case = CASE["chat"]
    events = with_ids(case.events)
    server = Server(Body([*events[:2], half(events[2]), CUT]), Status(404, b'{"error": {"message": "gone"}}'))
    result, _ = stream(server, Case(case.name, case.operation, case.body, events), "sync")
    assert len(server.requests) == 2 and result["choices"][0]["content"] == "Hi there"
    (error,) = result["errors"]
    assert error["kind"] == "truncated" and error["message"].endswith("404 Not Found: gone")


def test_without_ids_a_cut_chat_stream_ends_truncated() -> None:
    case = CASE["chat"]
    server = Server(Body([*case.events[:2], half(case.events[2]), CUT]), Body(case.events))
    result, retries = stream(server, case, "sync")
    assert len(server.requests) == 1 and retries == [] and result["errors"][0]["kind"] == "truncated"


# Resume by Responses sequence numbers.


def _responses_server(events: list[bytes], cut_after: int) -> Server:
    """``POST /responses`` answers the events up to ``cut_after`` and cuts; ``GET
    /responses/{id}?stream=true&starting_after=N`` the events numbered over N."""

    def answer(request: httpx.Request) -> Body | Status:
        if request.method == "POST":
            return Body([*events[:cut_after], half(events[cut_after]), CUT])
        query = parse_qs(request.url.query.decode())
        if query.get("stream") != ["true"]:
            return Status(400)
        after = int(query["starting_after"][0])
        return Body([e for e in events if msgspec.json.decode(e.split(b"data: ", 1)[1])["sequence_number"] > after])

    return Server(answer)


@pytest.mark.parametrize("mode", MODES)
def test_a_background_response_resumes_after_its_last_sequence_number(mode: str) -> None:
    case = CASE["responses"]
    background = Case(case.name, case.operation, {**case.body, "background": True}, case.events)
    server = _responses_server(case.events, 4)
    result, retries = stream(server, background, mode)
    assert result == case.expected() and [r.kind for r in retries] == ["resume"]
    resume = server.requests[1]
    response_id = msgspec.json.decode(case.events[0].split(b"data: ", 1)[1])["response"]["id"]
    assert resume.method == "GET" and resume.content == b""
    assert str(resume.url) == f"https://api.test/v1/responses/{response_id}?stream=true&starting_after=3"
    assert resume.headers["authorization"] == "Bearer sk-test"
    typed, _ = stream(_responses_server(case.events, 4), background, mode, iterate=True)
    assert _plain(typed) == _unbroken(case, case.events)


def test_a_response_not_in_the_background_ends_truncated() -> None:
    case = CASE["responses"]
    server = _responses_server(case.events, 4)
    result, retries = stream(server, case, "sync")
    assert len(server.requests) == 1 and retries == [] and result["errors"][0]["kind"] == "truncated"
