"""The operations and streams the streaming client's tests use: one operation per family of the
generated packages (chat, Messages, Responses, Gemini, Ollama NDJSON), each with a whole body and
the events it is made of."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any

from generated._runtime.client import Auth, Operation
from generated.anthropic import CHANNELS as ANTHROPIC
from generated.deepseek import CHANNELS as DEEPSEEK
from generated.gemini import CHANNELS as GEMINI
from generated.ollama import CHANNELS as OLLAMA
from generated.openai_responses import CHANNELS as RESPONSES
from helpers.scripted import Server, frames

CHAT = Operation(
    DEEPSEEK["/chat/completions"],
    path="/chat/completions",
    auth=Auth("bearer", env="DEEPSEEK_API_KEY"),
    include_usage=True,
    resume="last-event-id",
)
MESSAGES = Operation(
    ANTHROPIC["/v1/messages"],
    path="/messages",
    auth=Auth("header", "x-api-key", env="ANTHROPIC_API_KEY"),
    headers={"anthropic-version": "2023-06-01"},
)
RESPONSES_OP = Operation(
    RESPONSES["/v1/responses"],
    path="/responses",
    auth=Auth("bearer", env="OPENAI_API_KEY"),
    resume="responses-starting-after",
)
GEMINI_OP = Operation(
    GEMINI["/models/{model}:streamGenerateContent"],
    query=(("alt", "sse"),),
    stream_member=None,
    auth=Auth("header", "x-goog-api-key", env="GEMINI_API_KEY"),
)
OLLAMA_OP = Operation(OLLAMA["/api/chat"])

OLLAMA_BODY = b"".join(
    json.dumps(line, separators=(",", ":")).encode() + b"\n"
    for line in (
        {"model": "llama3.2", "created_at": "t0", "message": {"role": "assistant", "content": "Hi"}, "done": False},
        {"model": "llama3.2", "created_at": "t1", "message": {"role": "assistant", "content": " there"}, "done": False},
        {
            "model": "llama3.2",
            "created_at": "t2",
            "message": {"role": "assistant", "content": ""},
            "done": True,
            "done_reason": "stop",
        },
    )
)


@dataclass
class Case:
    """One family's operation, a request body for it, its path parameters and its answer."""

    name: str
    operation: Operation[Any]
    body: dict[str, Any]
    events: list[bytes]  # the answer's events (NDJSON: its lines), whole
    path_params: dict[str, str] | None = None

    @property
    def whole(self) -> bytes:
        return b"".join(self.events)

    @property
    def content_type(self) -> str:
        return self.operation.channel.framing.media_type

    def expected(self) -> dict[str, Any]:
        """The unbroken stream's result, as the channel assembles the whole body."""
        channel = self.operation.channel
        return channel.accumulate(channel.decode([self.whole])).to_dict()


def _sse(channel: Any, text: str = "Hi there") -> list[bytes]:
    return frames(b"".join(channel.encode_stream(channel.example_stream(text=text))))


MESSAGES_BODY = {"model": "claude-sonnet-4-5", "max_tokens": 64, "messages": [{"role": "user", "content": "Hi"}]}

CASES = [
    Case("chat", CHAT, {"model": "deepseek-chat", "messages": [{"role": "user", "content": "Hi"}]}, _sse(CHAT.channel)),
    Case("messages", MESSAGES, MESSAGES_BODY, _sse(MESSAGES.channel)),
    Case("responses", RESPONSES_OP, {"model": "gpt-4.1", "input": "Hi"}, _sse(RESPONSES_OP.channel)),
    Case("gemini", GEMINI_OP, {"contents": [{"parts": [{"text": "Hi"}]}]}, _sse(GEMINI_OP.channel), {"model": "g-2"}),
    Case("ollama", OLLAMA_OP, {"model": "llama3.2", "messages": []}, OLLAMA_BODY.splitlines(keepends=True)),
]
CASE = {case.name: case for case in CASES}

#: In-stream errors that say "try again", as each family sends them.
OVERLOADED = b'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n'
RATE_LIMITED = (
    b'event: error\ndata: {"type":"error","code":"rate_limit_exceeded","message":"slow down",'
    b'"param":null,"sequence_number":1}\n\n'
)
EXHAUSTED = b'data: {"error":{"code":429,"message":"Resource exhausted","status":"RESOURCE_EXHAUSTED"}}\n\n'


MODES = ["sync", "async"]


def stream(server: Server, case: Case, mode: str, *, iterate: bool = False, **kwargs: Any) -> Any:
    """The case's call through a client of ``server``: its result as plain data (or its typed
    events, ``iterate``), and the stream's retries."""
    call = {"path_params": case.path_params}
    if mode == "sync":
        with server.client(**kwargs) as client, client.stream(case.operation, case.body, **call) as events:
            out = list(events) if iterate else events.accumulate().to_dict()
            return out, events.retries

    async def run() -> Any:
        async with server.async_client(**kwargs) as client, client.stream(case.operation, case.body, **call) as events:
            out = [e async for e in events] if iterate else (await events.aaccumulate()).to_dict()
            return out, events.retries

    return asyncio.run(run())
