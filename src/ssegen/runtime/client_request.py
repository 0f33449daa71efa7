"""The request that opens a stream, described as plain data, and built into HTTP requests.

An :class:`Operation` says what the contract says of one streaming operation: its channel (the
typed events), HTTP method and path template (``{param}`` path parameters: Gemini's
``/models/{model}:streamGenerateContent``), fixed query items (Gemini's ``alt=sse``), the body
member that switches streaming on (``"stream": true``) and ``stream_options.include_usage``,
the :class:`Auth` scheme, required headers (Anthropic's ``anthropic-version``), and how a cut
stream is resumed (:class:`Resume`). A generated package writes one per operation; the client
(``client.py``) takes any.

A :class:`RequestPlan` is one call's requests: the first (:meth:`RequestPlan.first`) and those
resuming it (:meth:`RequestPlan.after_event_id`, :meth:`RequestPlan.after_sequence_number`), as
:class:`HTTPRequest` values (method, URL, headers, body bytes) that any HTTP library can send.

This module does not import httpx.

This module is ``src/ssegen/runtime/client_request.py`` of ssegen, written verbatim into every
output folder's runtime: edit it there, then run ``ssegen generate``.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable, Mapping
from dataclasses import KW_ONLY, dataclass, field
from typing import Any, Generic, NamedTuple, TypeVar
from urllib.parse import quote, urlencode

import msgspec

from .accumulate import Accumulator
from .client_retry import has_content, retryable_error
from .json_values import is_mapping
from .stream import Channel

__all__ = [
    "Auth",
    "AuthScheme",
    "HTTPRequest",
    "Operation",
    "RequestPlan",
    "Resume",
    "request_body",
]

E = TypeVar("E")

_PARAM = re.compile(r"\{([^{}]+)\}")


class AuthScheme(enum.StrEnum):
    """Where the API key goes: ``bearer`` (``Authorization: Bearer <key>``), ``header`` (a
    header of its own: Anthropic's ``x-api-key``, Gemini's ``x-goog-api-key``), ``query`` (a
    query parameter: Gemini's ``?key=``), ``none`` (no key: a local Ollama)."""

    BEARER = "bearer"
    HEADER = "header"
    QUERY = "query"
    NONE = "none"


class Resume(enum.StrEnum):
    """How a stream cut short continues where the contract allows it.

    ``last-event-id``: the request is sent again with ``Last-Event-ID`` set to the last event
    ID the stream gave (WHATWG HTML 9.2.4, the ``EventSource`` reconnection); the server sends
    the events after it. ``responses-starting-after``: OpenAI Responses, for a background
    response (``"background": true``): ``GET <path>/{response id}?stream=true&starting_after=N``
    sends the events after sequence number ``N``. ``none``: the contract states no way; a cut
    stream ends ``truncated``, unless its events carried ids: any stream that gave an event ID
    resumes with ``Last-Event-ID``, as ``EventSource`` reconnects whatever the resource.
    """

    NONE = "none"
    LAST_EVENT_ID = "last-event-id"
    RESPONSES = "responses-starting-after"


@dataclass(frozen=True)
class Auth:
    """An operation's auth scheme (OpenAPI ``securitySchemes``; AsyncAPI ``securitySchemes``).

    Attributes:
        scheme: where the key goes (:class:`AuthScheme`, or its value).
        name: the header or query parameter carrying it (``x-api-key``, ``key``); ignored for
            ``bearer`` (``Authorization``) and ``none``.
        env: the environment variable holding the key when the client is given none
            (``ANTHROPIC_API_KEY``); "" for none.
    """

    scheme: AuthScheme | str = AuthScheme.NONE
    name: str = ""
    env: str = ""

    def __post_init__(self) -> None:
        scheme = AuthScheme(self.scheme)  # ValueError for an unknown scheme
        object.__setattr__(self, "scheme", scheme)
        if scheme in (AuthScheme.HEADER, AuthScheme.QUERY) and not self.name:
            raise ValueError(f"an auth scheme {scheme.value!r} names its header or parameter")


@dataclass(frozen=True)
class Operation(Generic[E]):
    """One streaming operation of a contract, as the client needs it.

    Attributes:
        channel: the channel its response streams (the typed events, their accumulation).
        method: the HTTP method (``POST``).
        path: the path template, appended to the client's base URL, ``{name}`` for a path
            parameter; by default the channel's address.
        query: fixed query items, in order (``(("alt", "sse"),)``).
        stream_member: the body member that switches streaming on (``stream``), set by the
            client; None when the path or query does it (Gemini).
        stream_value: the value it is set to (True).
        include_usage: the body gets ``stream_options.include_usage: true`` unless it says
            otherwise (chat completions: usage then comes in the last chunk).
        auth: the auth scheme (:class:`Auth`).
        headers: headers every request carries (``{"anthropic-version": "2023-06-01"}``).
        resume: how a cut stream continues (:class:`Resume`, or its value).
        error_decoder: the response body of a non-2xx status -> the spec's error object
            (``msgspec.json.Decoder(ErrorResponse).decode``), for ``APIStatusError.error``.
        retryable_error: an in-stream error's data (plain JSON) -> whether it is retried
            while no content has arrived (``client_retry.retryable_error``).
        content_arrived: the accumulator so far -> whether a reader has seen content
            (``client_retry.has_content``): until then the stream may start over.
    """

    channel: Channel[E]
    _: KW_ONLY
    method: str = "POST"
    path: str = ""
    query: tuple[tuple[str, str], ...] = ()
    stream_member: str | None = "stream"
    stream_value: Any = True
    include_usage: bool = False
    auth: Auth = field(default_factory=Auth)
    headers: Mapping[str, str] = field(default_factory=dict[str, str])
    resume: Resume | str = Resume.NONE
    error_decoder: Callable[[bytes], Any] | None = None
    retryable_error: Callable[[Any], bool] = retryable_error
    content_arrived: Callable[[Accumulator], bool] = has_content

    def __post_init__(self) -> None:
        object.__setattr__(self, "resume", Resume(self.resume))
        object.__setattr__(self, "path", self.path or self.channel.address)
        object.__setattr__(self, "method", self.method.upper())

    @property
    def path_params(self) -> list[str]:
        """The names of the path parameters, in order."""
        return _PARAM.findall(self.path)


class HTTPRequest(NamedTuple):
    """One HTTP request, as any library sends it.

    Attributes:
        method: ``POST``, ``GET``.
        url: the whole URL, query included.
        headers: the headers, names in lower case.
        content: the body bytes (JSON), or None.
        shown: the URL as messages show it: an API key in the query masked.
    """

    method: str
    url: str
    headers: dict[str, str]
    content: bytes | None
    shown: str


def request_body(
    operation: Operation[Any], body: Any, extra_body: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The JSON object sent: ``body`` (a mapping, a msgspec Struct, a dataclass, a pydantic
    model) as plain data, ``extra_body``'s members over it, then the stream member set and
    ``stream_options.include_usage`` defaulted (:class:`Operation`).

    Raises:
        TypeError: ``body`` is not a JSON object once plain.
    """
    dump = getattr(body, "model_dump", None)
    plain = dump(mode="json", by_alias=True, exclude_unset=True) if dump else body
    if not is_mapping(plain):
        plain = msgspec.to_builtins(plain)
    if not is_mapping(plain):
        raise TypeError(f"a request body is a JSON object; got {type(body).__name__}")
    data = {**plain, **(extra_body or {})}
    if operation.stream_member is not None:
        data[operation.stream_member] = operation.stream_value
    if operation.include_usage:
        options = data.get("stream_options")
        if options is None:
            data["stream_options"] = {"include_usage": True}
        elif is_mapping(options) and "include_usage" not in options:
            data["stream_options"] = {**options, "include_usage": True}
    return data


class RequestPlan:
    """One call's requests: the first, and those resuming it.

    Args:
        operation: the operation called.
        base_url: the server's URL (``https://api.deepseek.com``), the path appended to it.
        api_key: the key, or None (then read from ``operation.auth.env``; none found: sent
            without one, and a 401 says where to put it).
        body: the JSON object sent (:func:`request_body`).
        headers: the client's headers, then the call's (later ones win), over the
            operation's.
        path_params: the values of the path's ``{name}`` parameters (URL-quoted).

    Raises:
        ValueError: a path parameter is not given.
    """

    def __init__(
        self,
        operation: Operation[Any],
        base_url: str,
        api_key: str | None,
        body: Mapping[str, Any],
        headers: Mapping[str, str] | None = None,
        path_params: Mapping[str, Any] | None = None,
    ) -> None:
        self.operation = operation
        self.body = body
        self.url = base_url.rstrip("/") + _fill(operation.path, path_params or {})
        auth = operation.auth
        self.api_key = api_key
        self.key_hint = "" if api_key or auth.scheme is AuthScheme.NONE else _hint(auth)
        self._headers = {"accept": operation.channel.framing.media_type}
        self._headers.update({k.lower(): v for k, v in operation.headers.items()})
        self._auth: list[tuple[str, str]] = []  # query items carrying the key
        if api_key:
            self._authorize(auth, api_key)
        self._headers.update({k.lower(): v for k, v in (headers or {}).items()})

    def _authorize(self, auth: Auth, key: str) -> None:
        """Put ``key`` where ``auth`` says."""
        if auth.scheme is AuthScheme.BEARER:
            self._headers["authorization"] = f"Bearer {key}"
        elif auth.scheme is AuthScheme.HEADER:
            self._headers[auth.name.lower()] = key
        elif auth.scheme is AuthScheme.QUERY:
            self._auth.append((auth.name, key))

    def _request(
        self,
        method: str,
        url: str,
        query: list[tuple[str, str]],
        content: bytes | None,
        **extra: str,
    ) -> HTTPRequest:
        """An :class:`HTTPRequest` of ``url`` with ``query`` and the key's query item."""
        headers = {**self._headers, **extra}
        if content is not None:
            headers.setdefault("content-type", "application/json")
        items = query + self._auth
        shown_items = query + [(name, "...") for name, _ in self._auth]
        full = f"{url}?{urlencode(items)}" if items else url
        shown = f"{url}?{urlencode(shown_items, safe='.')}" if items else url
        return HTTPRequest(method, full, headers, content, shown)

    def first(self) -> HTTPRequest:
        """The request opening the stream."""
        content = msgspec.json.encode(self.body)
        return self._request(self.operation.method, self.url, list(self.operation.query), content)

    def after_event_id(self, last_event_id: str) -> HTTPRequest:
        """The first request again, with ``Last-Event-ID`` (:attr:`Resume.LAST_EVENT_ID`)."""
        request = self.first()
        return request._replace(headers={**request.headers, "last-event-id": last_event_id})

    def after_sequence_number(self, response_id: str, sequence_number: int) -> HTTPRequest:
        """``GET <url>/{response_id}?stream=true&starting_after=N`` (:attr:`Resume.RESPONSES`):
        the events of a background response after sequence number ``N``."""
        url = f"{self.url}/{quote(response_id, safe='')}"
        query = [("stream", "true"), ("starting_after", str(sequence_number))]
        return self._request("GET", url, query, None)

    @property
    def resumable(self) -> bool:
        """The operation resumes a cut stream, and this call's stream can be: any
        ``last-event-id`` one; a ``responses-starting-after`` one only for a background
        response (the body's ``background`` is true)."""
        resume = self.operation.resume
        if resume is Resume.RESPONSES:
            return self.body.get("background") is True
        return resume is Resume.LAST_EVENT_ID


def _fill(path: str, params: Mapping[str, Any]) -> str:
    """``path`` with each ``{name}`` replaced by ``params[name]``, URL-quoted.

    Raises:
        ValueError: a parameter is not given.
    """
    missing = [name for name in _PARAM.findall(path) if name not in params]
    if missing:
        raise ValueError(
            f"{path} needs the path parameter(s) {', '.join(missing)}: pass"
            f" path_params={{{', '.join(f'{n!r}: ...' for n in missing)}}}"
        )
    return _PARAM.sub(lambda m: quote(str(params[m.group(1)]), safe=""), path)


def _hint(auth: Auth) -> str:
    """What a 401 says when no key was sent."""
    where = f"or set {auth.env}" if auth.env else "to the client"
    return f"no API key was sent: pass api_key= {where}"
