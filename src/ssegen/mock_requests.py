"""The request side of the mock (``ssegen mock``, :mod:`ssegen.mock`, and the ``sse_mock``
transport, :mod:`ssegen.transport`, both through :mod:`ssegen.mock_serve`): a request is refused as the provider would
refuse it, in the provider's error shape, and the faults that act on whole requests (``status``,
``times``, ``ids``, :class:`ssegen.replay.Faults`) and the resuming requests are carried out.

The facts come from the generated package's ``schemas.json``, member ``"requests"`` (written by
:mod:`ssegen.codemodel.mock_requests` from the IR's :class:`ssegen.ir.request.Request`): per
channel address the method, path, body schema (JSON Schema 2020-12, ``$ref`` s into the
document's ``$defs``), auth schemes, required headers and query parameters, and resumption. A
package generated before them has none: its requests are answered without these checks.

Checks, in order (:func:`screen`): the method (405, ``Allow`` naming the spec's), the API key
(401 when the spec declares auth and the request carries no key where any scheme puts it), the
required headers and query parameters (400 naming the one missing, or one with a value its
schema does not allow: Anthropic's ``anthropic-version``, Gemini's ``alt=sse``), the body
against its schema (400 naming the JSON pointer of the failure, jsonschema's ``best_match``). A
request with no body at all is served (``curl -X POST URL``); a body sent is checked.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import threading
from collections import OrderedDict
from collections.abc import Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .replay import EncodedFrames, FaultError, Faults, package_of, path_matches
from .request_body import RequestBody

#: The file of a generated package holding the request facts (member ``"requests"``).
REQUESTS_FILE = "schemas.json"
#: Fault values ``times`` counts at once, the oldest forgotten first (each request may name new ones).
MAX_COUNTED = 4096
#: Responses the mock remembers for resuming (``GET /v1/responses/{id}``), the oldest forgotten first.
MAX_REMEMBERED = 1024
#: A key the mock takes whatever the spec's schemes (``Authorization: Bearer <key>``): the
#: anthropic SDK >= 2 sends its key so, where Anthropic's reference names ``x-api-key``.
BEARER = {"location": "header", "parameter": "Authorization", "scheme": "bearer"}
#: The google.rpc status name of an HTTP status (Gemini's error shape), by status.
GOOGLE_STATUS = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    405: "INVALID_ARGUMENT",
    409: "ABORTED",
    415: "INVALID_ARGUMENT",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}


class Refusal(Exception):
    """A request answered with an HTTP error before any byte of a stream.

    Attributes:
        status: the HTTP status.
        message: what is wrong (the error's ``message``).
        kind: the error's type (``invalid_request_error``, ``authentication_error``...).
        headers: headers of the answer (``Allow`` for a 405, ``Retry-After``).
        pointer: for a body its schema rejects: the RFC 6901 JSON pointer of the failure
            (``/messages/0/role``; ``""`` for the whole body), or None.
    """

    def __init__(
        self,
        status: int,
        message: str,
        kind: str = "invalid_request_error",
        headers: Mapping[str, str] | None = None,
        pointer: str | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.kind = kind
        self.headers = dict(headers or {})
        self.pointer = pointer


@dataclass
class RequestRules:
    """What a request opening one channel's stream must be (one entry of ``schemas.json``'s
    ``"requests"``, see :mod:`ssegen.codemodel.mock_requests`).

    Attributes:
        method: the HTTP method (``POST``).
        path: the path template (``/models/{model}:streamGenerateContent``).
        body: the body's JSON Schema, or None when the spec states none (any body is taken).
        defs: the document's ``$defs`` the body's ``$ref`` s point into.
        auth: where the API key may go, alternatives (``{"location", "parameter", "scheme"}``).
        resume: how a cut stream resumes (``{"kind": "starting-after", "path": ...}``), or None.
        parameters: the headers and query parameters a request must carry (``{"name",
            "location", "values"}``: ``values`` the only ones allowed, or None for any).
    """

    method: str
    path: str
    body: dict[str, Any] | None = None
    defs: dict[str, Any] = field(default_factory=dict, repr=False)
    auth: list[dict[str, str]] = field(default_factory=list)
    resume: dict[str, Any] | None = None
    parameters: list[dict[str, Any]] = field(default_factory=list)

    @functools.cached_property
    def validator(self) -> Any:
        """The body's validator (jsonschema ``Draft202012Validator``), made once; None without a schema."""
        if self.body is None:
            return None
        import jsonschema

        return jsonschema.Draft202012Validator({"$defs": self.defs, **self.body})


@functools.cache
def _document(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def request_rules(channel: Any, package: Any = None) -> RequestRules | None:
    """The rules of the request opening ``channel``'s stream, read from its generated package's
    ``schemas.json`` (``package``, default: :func:`ssegen.replay.package_of`), or None when the
    package states none (generated before request facts, or a spec with no request)."""
    package = package if package is not None else package_of(channel)
    where = getattr(package, "__file__", None)
    if where is None:
        return None
    document = _document(Path(where).parent / REQUESTS_FILE)
    fact = document.get("requests", {}).get(channel.address)
    if not isinstance(fact, dict):
        return None
    body = fact.get("body")
    return RequestRules(
        method=str(fact.get("method") or "POST").upper(),
        path=str(fact.get("path") or channel.address),
        body=body if isinstance(body, dict) else None,
        defs=document.get("$defs", {}),
        auth=[a for a in fact.get("auth") or () if isinstance(a, dict)],
        resume=fact.get("resume") if isinstance(fact.get("resume"), dict) else None,
        parameters=[p for p in fact.get("parameters") or () if isinstance(p, dict) and p.get("name")],
    )


def resume_rules(rules: RequestRules | None) -> RequestRules | None:
    """The rules of the request resuming a stream of ``rules``' channel (``GET
    /v1/responses/{id}?stream=true&starting_after=N``): the resume's method, no body, the
    resume's fixed query (``stream=true``) required in place of the first request's query
    parameters, its headers and API key as the first request's; None
    when the channel states no ``starting-after`` resume."""
    resume = rules.resume if rules is not None else None
    if rules is None or resume is None or resume.get("kind") != "starting-after":
        return None
    fixed = [{"name": name, "location": "query", "values": [value]} for name, value in resume.get("query") or ()]
    headers = [p for p in rules.parameters if p.get("location") == "header"]  # sent on every request
    return replace(rules, method=resume.get("method") or "GET", body=None, parameters=[*headers, *fixed])


def error_body(channel: Any, status: int, message: str, kind: str, pointer: str | None = None) -> Any:
    """An HTTP error's JSON body in the shape ``channel``'s provider answers with (by family and
    framing): Anthropic's ``{"type": "error", "error": {"type", "message"}}`` (messages),
    Google's ``{"error": {"code", "message", "status"}}`` (gemini), Ollama's ``{"error":
    message}`` (NDJSON), Cohere's ``{"message"}``, else OpenAI's ``{"error": {"message",
    "type", "param", "code"}}`` (``param`` the JSON pointer of a body's failure)."""
    family = getattr(channel, "family", "")
    framing = str(getattr(getattr(channel, "framing", None), "name", ""))
    if family == "messages":
        return {"type": "error", "error": {"type": kind, "message": message}}
    if family == "gemini":
        return {"error": {"code": status, "message": message, "status": GOOGLE_STATUS.get(status, "UNKNOWN")}}
    if framing == "ndjson":
        return {"error": message}
    if family == "cohere":
        return {"message": message}
    return {"error": {"message": message, "type": kind, "param": pointer, "code": None}}


def screen(
    rules: RequestRules | None, method: str, headers: Mapping[str, str], query: Mapping[str, str], asked: RequestBody
) -> None:
    """Refuse a request that opens a stream the way the provider would: the method, then the
    API key (where a scheme of the spec puts it, or as a bearer token: :data:`BEARER`), then
    the body (see the module docstring). ``headers`` is case-insensitive (as
    Starlette's and httpx's are).

    Raises:
        Refusal: 405 (a method other than the spec's; other than GET and POST without
            rules), 401 (no API key where the spec puts one), 400 (a required header or query
            parameter missing or with a value not allowed: it is named; a body its schema
            rejects: the pointer is named).
    """
    allowed = rules.method if rules is not None else "GET, POST"
    if method.upper() not in allowed.split(", "):
        message = f"ssegen mock: {method[:20]} is not allowed here; the spec's method is {allowed}"
        raise Refusal(405, message, headers={"allow": allowed})
    if rules is None:
        return
    schemes = [*rules.auth, BEARER] if rules.auth else []
    if schemes and not any(_carries_key(scheme, headers, query) for scheme in schemes):
        ways = " or ".join(dict.fromkeys(_auth_words(scheme) for scheme in schemes))
        raise Refusal(401, f"ssegen mock: no API key: send it as {ways}", "authentication_error")
    for parameter in rules.parameters:
        _check_parameter(rules, parameter, headers, query)
    if asked.sent and rules.validator is not None:
        _check_body(rules, asked.data)


def _carries_key(scheme: Mapping[str, str], headers: Mapping[str, str], query: Mapping[str, str]) -> bool:
    """The request carries a key where ``scheme`` puts it (a bearer token after ``Bearer``)."""
    name = scheme.get("parameter", "")
    if scheme.get("location") == "query":
        return bool(query.get(name))
    value = headers.get(name, "") if scheme.get("location") == "header" else ""
    if scheme.get("scheme"):
        given, _, token = value.partition(" ")
        return given.lower() == scheme["scheme"].lower() and bool(token.strip())
    return bool(value.strip())


def _check_parameter(
    rules: RequestRules, parameter: Mapping[str, Any], headers: Mapping[str, str], query: Mapping[str, str]
) -> None:
    """Raise a 400 naming ``parameter`` (a header or query parameter the request must carry)
    when the request lacks it or gives it a value not among its ``values``."""
    name, values = str(parameter["name"]), parameter.get("values")
    header = parameter.get("location") == "header"
    given = headers.get(name) if header else query.get(name)
    what = f"the header {name}" if header else f"the query parameter {name}"
    where = f"{rules.method} {rules.path}"
    if given is None:
        example = f" ({name}: {values[0]})" if header and values else f" (?{name}={values[0]})" if values else ""
        raise Refusal(400, f"ssegen mock: {what} is required by {where}{example}")
    if values and given not in values:
        allowed = ", ".join(values)
        raise Refusal(400, f"ssegen mock: {what}={given[:40]!r} is not allowed by {where}: it takes {allowed}")


def _auth_words(scheme: Mapping[str, str]) -> str:
    name = scheme.get("parameter", "")
    if scheme.get("location") == "query":
        return f"the query parameter ?{name}=<key>"
    if scheme.get("scheme"):
        return f"the header {name}: {scheme['scheme'].capitalize()} <key>"
    return f"the header {name}: <key>"


def _check_body(rules: RequestRules, data: dict[str, Any] | None) -> None:
    """Raise a 400 naming the JSON pointer of the body's most relevant failure (jsonschema's
    ``best_match``); a body that is not a JSON object is a failure at ``""``."""
    import jsonschema

    where = f"{rules.method} {rules.path}"
    if data is None:
        raise Refusal(400, f"ssegen mock: the body of {where} is not a JSON object", pointer="")
    failure = jsonschema.exceptions.best_match(rules.validator.iter_errors(data))
    if failure is None:
        return
    parts = [str(part) for part in failure.absolute_path]
    if failure.validator == "required" and isinstance(failure.instance, dict):
        missing = [name for name in failure.validator_value if name not in failure.instance]
        parts += missing[:1]
    pointer = "".join("/" + part.replace("~", "~0").replace("/", "~1") for part in parts)
    message = f"ssegen mock: the body of {where} does not match its schema at {pointer or '(the body)'}"
    raise Refusal(400, f"{message}: {failure.message[:300]}", pointer=pointer)


def status_refusal(faults: Faults) -> Refusal | None:
    """The HTTP error ``status=CODE`` asks for (its wait from ``retry_after``:
    :func:`retry_after_headers`), or None."""
    if faults.status is None:
        return None
    kind = {429: "rate_limit_error", 529: "overloaded_error"}.get(faults.status)
    kind = kind or ("server_error" if faults.status >= 500 else "invalid_request_error")
    headers = retry_after_headers(faults.retry_after)
    return Refusal(faults.status, f"ssegen mock: status={faults.status} (a fault)", kind, headers)


def retry_after_headers(seconds: float | None) -> dict[str, str]:
    """The headers asking a client to wait ``seconds`` before trying again: ``Retry-After`` in
    whole seconds (RFC 9110 10.2.3's delay-seconds is an integer: a fraction is rounded up, so a
    client reading it alone waits no less), and, for a fraction, ``retry-after-ms`` too, in
    milliseconds (OpenAI's servers send it; the openai SDK and ssegen's client read it first).
    None of them for None."""
    if seconds is None:
        return {}
    headers = {"retry-after": str(math.ceil(seconds))}
    if seconds != int(seconds):
        headers["retry-after-ms"] = f"{seconds * 1000:.3f}".rstrip("0").rstrip(".")
    return headers


class Times:
    """Counts the requests each ``times=N`` applies to: per channel served (any key naming it)
    and per fault value (the faults as :meth:`~ssegen.replay.Faults.describe` writes them), safe
    across threads (the transport serves threads). At most :data:`MAX_COUNTED` counts are kept,
    the oldest forgotten first: a client naming ever new fault values grows no memory."""

    def __init__(self) -> None:
        self._counts: dict[tuple[int, str], int] = {}
        self._lock = threading.Lock()

    def applied(self, route: Any, faults: Faults) -> Faults:
        """The faults a request on ``route`` gets: ``faults`` for the first ``faults.times``
        requests carrying them, then none (``ids`` kept, so a resumed stream keeps its ids)."""
        if faults.times is None:
            return faults
        key = (id(route), faults.describe())
        with self._lock:
            count = self._counts.pop(key, 0) + 1
            self._counts[key] = count  # last in the dict's order: the most recently used
            if len(self._counts) > MAX_COUNTED:
                del self._counts[next(iter(self._counts))]
        return faults if count <= faults.times else Faults(ids=faults.ids)


class IdFrames(Collection[bytes]):
    """Frames (one SSE event each) with an ``id:`` line before each event's fields, the id its
    1-based position in the whole stream, from after event ``after`` on (a ``Last-Event-ID``);
    a comment-only block is sent as is. Read lazily, as the frames are."""

    def __init__(self, frames: Collection[bytes], after: int = 0) -> None:
        self.frames = frames
        self.after = after

    def __len__(self) -> int:
        return max(0, len(self.frames) - self.after)

    def __iter__(self) -> Iterator[bytes]:
        for position, frame in enumerate(self.frames, 1):
            if position <= self.after:
                continue
            yield frame if frame.startswith(b":") else b"id: %d\n" % position + frame

    def __contains__(self, frame: object) -> bool:
        return any(frame == f for f in self)


def with_ids(frames: Collection[bytes], faults: Faults, last_event_id: str | None, framing: str) -> Collection[bytes]:
    """``frames`` as sent under ``ids=1`` (:class:`IdFrames`, resuming after ``last_event_id``),
    else unchanged.

    Raises:
        FaultError: ``ids`` on an NDJSON channel (lines carry no ids), or a ``Last-Event-ID``
            that is no id this stream sent.
    """
    if not faults.ids:
        return frames
    if framing == "ndjson":
        raise FaultError("ids=1: an NDJSON stream has no event ids")
    after = 0
    if last_event_id is not None:
        text = last_event_id.strip()
        if not text.isdigit() or int(text) > len(frames):
            raise FaultError(f"Last-Event-ID {text[:40]!r}: the stream's ids are 1 to {len(frames)}")
        after = int(text)
    return IdFrames(frames, after)


@dataclass(frozen=True)
class Sent:
    """What a remembered response was made from (for its resuming request)."""

    endpoint: Any
    text: str | None
    model: str | None
    stream: str | None


class Responses:
    """The responses the mock sent on a channel that resumes ``starting-after`` (OpenAI
    Responses): each stream's response id is derived from what it was made from (``resp_`` and
    24 hex digits of a SHA-256), the same for the same request, and remembered (at most
    :data:`MAX_REMEMBERED`), so ``GET /v1/responses/{id}?stream=true&starting_after=N`` sends
    the events after ``sequence_number`` N of that response."""

    def __init__(self) -> None:
        self._sent: OrderedDict[str, Sent] = OrderedDict()
        self._lock = threading.Lock()

    def stamp(
        self, frames: Collection[bytes], sent: Sent, rules: RequestRules | None, *, derive: bool = True
    ) -> Collection[bytes]:
        """``frames`` with the response id replaced by its derived one (``derive``: ``ssegen
        mock``, each request's own stream) or kept as the stream has it (``sse_mock``: a route
        sends what it was set up with, :attr:`ssegen.transport.Route.body`), remembered;
        unchanged when the channel does not resume so or the frames are a capture (sent as
        recorded)."""
        resume = rules.resume if rules is not None else None
        if resume is None or resume.get("kind") != "starting-after" or not isinstance(frames, EncodedFrames):
            return frames
        path = tuple(resume.get("id_path") or ("response", "id"))
        if derive:
            key = repr((id(sent.endpoint), sent.text, sent.model, sent.stream)).encode()
            response_id: str | None = f"resp_{hashlib.sha256(key).hexdigest()[:24]}"
        else:
            response_id = next((i for e in frames.events if isinstance(i := _member(e, path), str)), None)
        if response_id is None:
            return frames
        with self._lock:
            self._sent[response_id] = sent
            self._sent.move_to_end(response_id)
            while len(self._sent) > MAX_REMEMBERED:
                self._sent.popitem(last=False)
        if not derive:
            return frames
        return EncodedFrames(frames.channel, [_replaced(e, path, response_id) for e in frames.events])

    def resumed(
        self, path: str, query: Mapping[str, str], served: Iterable[Any], *, suffix: bool = False
    ) -> tuple[Any, Sent, int] | None:
        """For a resuming request (``path`` a channel's ``resume.path``, relative to the same
        server as one of the ``served`` endpoints' paths; with ``suffix``, after any prefix):
        the endpoint that sent the response, what it was made from, and the cursor to resume
        after; None when ``path`` resumes nothing served.

        Raises:
            Refusal: 404 for a response id not sent (or forgotten), 400 for a bad cursor.
        """
        served = list(served)
        for endpoint in served:
            rules = getattr(endpoint, "rules", None)
            resume = rules.resume if rules is not None else None
            if resume is None or resume.get("kind") != "starting-after":
                continue
            address = endpoint.channel.address  # the resuming path is relative to the same server
            templates = [p[: len(p) - len(address)] + resume["path"] for p in endpoint.paths if p.endswith(address)]
            if not any(path_matches(template, path, suffix=suffix) for template in templates):
                continue
            response_id = path.rpartition("/")[2]
            with self._lock:
                sent = self._sent.get(response_id)
            if sent is None or not any(sent.endpoint is e for e in served):  # sent, and by one served here
                raise Refusal(404, f"ssegen mock: no response {response_id[:80]!r} was sent", "not_found")
            parameter = resume.get("parameter") or "starting_after"
            cursor = query.get(parameter, "-1")
            if not cursor.lstrip("-").isdigit() or len(cursor) > 12:
                raise Refusal(400, f"ssegen mock: {parameter}={cursor[:40]!r}: a whole number")
            return sent.endpoint, sent, int(cursor)
        return None


def with_model(frames: Collection[bytes], model: str | None) -> Collection[bytes]:
    """``frames`` with the request's ``model`` in every event naming one (a chat chunk's
    ``model``, Anthropic's ``message.model``, a Responses ``response.model``), as a provider
    answers with the model asked for; unchanged without a model or for a capture (sent as
    recorded). A synthesized answer already carries it."""
    if not model or not isinstance(frames, EncodedFrames):
        return frames
    events = frames.events
    for path in (("model",), ("message", "model"), ("response", "model")):
        events = [_replaced(e, path, model) if isinstance(_member(e, path), str) else e for e in events]
    return EncodedFrames(frames.channel, events)


def _member(value: Any, path: tuple[str, ...]) -> Any:
    for name in path:
        value = getattr(value, name, None)
    return value


def events_after(frames: EncodedFrames, cursor_name: str, cursor: int) -> EncodedFrames:
    """The events of ``frames`` whose ``cursor_name`` member (``sequence_number``) is over ``cursor``."""
    kept = [e for e in frames.events if getattr(e, cursor_name, None) is None or getattr(e, cursor_name) > cursor]
    return EncodedFrames(frames.channel, kept)


def _replaced(value: Any, path: tuple[str, ...], new: str) -> Any:
    """``value`` (a typed event) with the member at ``path`` set to ``new``, when it has one."""
    if not path or not hasattr(value, path[0]):
        return value
    inner = getattr(value, path[0])
    changed = new if len(path) == 1 else _replaced(inner, path[1:], new)
    if changed is inner:
        return value
    if hasattr(value, "__struct_fields__"):
        import msgspec

        return msgspec.structs.replace(value, **{path[0]: changed})
    if hasattr(value, "model_copy"):
        return value.model_copy(update={path[0]: changed})
    return replace(value, **{path[0]: changed})
