"""Each channel's request, merged across sources and completed (the last normalize step).

:func:`merge_requests` combines two sources' views of one request (the first source in path
order wins each fact both state; the second fills what the first lacks), as the response side
merges messages. :func:`attach_request` merges a docs page's request into the channel of its
endpoint. :func:`complete_requests` then fills, for every channel:

* the method, ``POST`` when no source states one (``request-method-assumed``): every stream
  request of the providers ssegen reads carries a body;
* the member switching streaming on: a boolean ``stream`` member of the body schema (OpenAI,
  Anthropic, Cohere, Mistral, DeepSeek, Ollama), which wins over prose that names it;
* ``stream_options.include_usage``: a boolean ``include_usage`` member of the body's
  ``stream_options`` object (OpenAI's chat completions), set by default so that the last chunk
  carries the usage;
* the media types of the answer from the channel's framing (``text/event-stream``, or the
  NDJSON type its messages name) when the source states none;
* the resumption its family allows (``resume-recognized``): a stream of the ``responses``
  family whose events carry ``sequence_number`` resumes a background response with
  ``GET <path>/{response_id}?stream=true&starting_after=<sequence_number>`` (OpenAI
  "Streaming responses", "Background mode"); a stated ``x-ssegen-resume`` wins;

and reports what is missing: no body schema (``request-schema-missing``: the client takes a
plain mapping), no stream member (``request-stream-member-missing``: the operation always
streams, as Gemini's ``:streamGenerateContent``), no auth (``request-auth-missing``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..diagnostics import Diagnostics, codes
from ..ir import BodyMember, Channel, Provenance, Provider, Request, RequestBody, Resume, Schema
from ..sources.base import NDJSON_MEDIA_TYPES

#: How much a way of knowing a body member is trusted, most first: a schema or extension
#: states it; an example shows it; prose names it.
_RANK = {"schema": 0, "extension": 0, "family": 1, "example": 1, "prose": 2}


def merge_requests(old: Request | None, new: Request | None, diagnostics: Diagnostics) -> Request | None:
    """One request from two sources' views of it (``old`` the first source in path order).

    ``old``'s method, path, body schema, auth, servers, resumption, operation id and error
    responses are kept where it states them, ``new``'s fill the gaps; a method or body schema both state differently is
    ``request-conflict`` (warning). Parameters are joined by location and name (``old``'s
    first), media types joined; a body member stated by a schema wins over one prose names.
    """
    if old is None or new is None:
        return old or new
    _conflicts(old, new, diagnostics)
    names = {(p.location, _parameter_key(p.name, p.location)) for p in old.parameters}
    return replace(
        old,
        method=old.method or new.method,
        parameters=old.parameters
        + tuple(p for p in new.parameters if (p.location, _parameter_key(p.name, p.location)) not in names),
        body=_merged_body(old.body, new.body),
        stream=_better(old.stream, new.stream),
        include_usage=_better(old.include_usage, new.include_usage),
        auth=old.auth or new.auth,
        servers=old.servers or new.servers,
        media_types=tuple(dict.fromkeys(old.media_types + new.media_types)),
        resume=old.resume or new.resume,
        operation_id=old.operation_id or new.operation_id,
        errors=old.errors or new.errors,
    )


def attach_request(provider: Provider, address: str, request: Request | None, diagnostics: Diagnostics) -> Provider:
    """``provider`` with ``request`` (a docs page's, for the endpoint ``address``) merged into
    the request of the channel at ``address`` (after it: :func:`merge_requests`); unchanged
    when there is no request or no such channel (the page's ``docs-channel-missing`` says so)."""
    channel = provider.channel(address) if request is not None else None
    if channel is None:
        return provider
    merged = merge_requests(channel.request, request, diagnostics)
    channels = tuple(replace(c, request=merged) if c is channel else c for c in provider.channels)
    return replace(provider, channels=channels)


def complete_requests(provider: Provider, diagnostics: Diagnostics) -> Provider:
    """``provider`` with every channel's request completed and its gaps reported (module docstring)."""
    channels = tuple(replace(c, request=_complete(c, diagnostics)) for c in provider.channels)
    return replace(provider, channels=channels)


# -- merging ----------------------------------------------------------------------------------------


def _conflicts(old: Request, new: Request, diagnostics: Diagnostics) -> None:
    """``request-conflict`` for a method, or a body schema, both requests state differently."""
    if old.method and new.method and old.method != new.method:
        diagnostics.at(
            new.provenance,
            codes.REQUEST_CONFLICT,
            f"the request of {old.path} is {new.method} here but {old.method} in {old.provenance.file}; "
            f"{old.method} is kept",
        )
    ours, theirs = (old.body.schema if old.body else None), (new.body.schema if new.body else None)
    if ours is not None and theirs is not None and theirs is not ours and theirs.name != ours.name:
        diagnostics.at(
            theirs.provenance,
            codes.REQUEST_CONFLICT,
            f"the request body of {old.path} is {theirs.name or theirs.type} here but {ours.name or ours.type} in "
            f"{ours.provenance.file}; the first is kept",
        )


def _parameter_key(name: str, location: str) -> str:
    return name.lower() if location == "header" else name


def _merged_body(old: RequestBody | None, new: RequestBody | None) -> RequestBody | None:
    """``old``, with ``new``'s schema when it has none, and both sources' examples."""
    if old is None or new is None:
        return old or new
    if old.schema is None and new.schema is not None:
        return replace(new, examples=tuple(dict.fromkeys(old.examples + new.examples)))
    return replace(old, examples=tuple(dict.fromkeys(old.examples + new.examples)))


def _better(old: BodyMember | None, new: BodyMember | None) -> BodyMember | None:
    """The body member stated the surer way (:data:`_RANK`), ``old`` on a tie."""
    if old is None or new is None:
        return old or new
    return new if _RANK[new.stated] < _RANK[old.stated] else old


# -- completing -------------------------------------------------------------------------------------


def _complete(channel: Channel, diagnostics: Diagnostics) -> Request:
    """The channel's request with its method, body members, media types and resumption filled
    (module docstring), each gap reported."""
    request = channel.request or Request("", channel.address, channel.provenance)
    if not request.method:
        diagnostics.at(
            request.provenance,
            codes.REQUEST_METHOD_ASSUMED,
            f"no source states the HTTP method of the request opening {channel.address}; POST is assumed",
        )
        request = replace(request, method="POST")
    schema = request.body.schema if request.body is not None else None
    request = replace(
        request,
        stream=_better(request.stream, _boolean_member(schema, ("stream",))),
        include_usage=_better(request.include_usage, _boolean_member(schema, ("stream_options", "include_usage"))),
        media_types=request.media_types or _media_types(channel),
    )
    if request.resume is None:
        request = replace(request, resume=_family_resume(channel, request, diagnostics))
    _report_gaps(channel, request, diagnostics)
    return request


def _boolean_member(schema: Schema | None, path: tuple[str, ...]) -> BodyMember | None:
    """``path`` set to true, stated by ``schema`` when it leads to a boolean member there
    (through objects, a nullable object, or the object alternative of a union)."""
    node = schema
    provenance: Provenance | None = None
    for name in path:
        node = _object(node)
        prop = node.property(name) if node is not None else None
        if prop is None:
            return None
        node, provenance = prop.schema, prop.provenance
    if node is None or node.type != "boolean" or provenance is None:
        return None
    return BodyMember(path, True, provenance, "schema")


def _object(node: Schema | None) -> Schema | None:
    if node is None or node.type == "object":
        return node
    return node.alternative() if node.type == "union" else None


def _media_types(channel: Channel) -> tuple[str, ...]:
    """The media types the channel's framing answers with: ``text/event-stream``, or the
    NDJSON type its messages name (``application/x-ndjson`` when none does)."""
    if channel.framing == "sse":
        return ("text/event-stream",)
    named = [m.content_type for m in channel.messages if m.content_type.split(";")[0].strip() in NDJSON_MEDIA_TYPES]
    return (named[0] if named else "application/x-ndjson",)


def _family_resume(channel: Channel, request: Request, diagnostics: Diagnostics) -> Resume | None:
    """The ``starting-after`` resumption of a ``responses``-family stream whose events carry
    ``sequence_number`` (module docstring), reported ``resume-recognized``; else None."""
    if channel.accumulation is None or channel.accumulation.family != "responses":
        return None
    found = next(
        (p for m in channel.messages if (p := m.payload.property("sequence_number")) is not None),
        None,
    )
    if found is None:
        return None
    schema = request.body.schema if request.body is not None else None
    background = _boolean_member(schema, ("background",))
    resume = Resume(
        "starting-after",
        found.provenance,
        "family",
        cursor="sequence_number",
        method="GET",
        path=request.path.rstrip("/") + "/{response_id}",
        parameter="starting_after",
        id_path=("response", "id"),
        query=(("stream", "true"),),
        when=background,
    )
    diagnostics.at(
        found.provenance,
        codes.RESUME_RECOGNIZED,
        f"the events of {channel.address} carry `sequence_number` (Responses family): a cut stream resumes with "
        f"GET {resume.path}?stream=true&starting_after=N"
        + (" when the request set `background: true`" if background is not None else ""),
    )
    return resume


def _report_gaps(channel: Channel, request: Request, diagnostics: Diagnostics) -> None:
    """``request-schema-missing``, ``request-stream-member-missing`` and ``request-auth-missing``."""
    gaps: list[tuple[Any, str]] = []
    if request.body is None or request.body.schema is None:
        gaps.append(
            (codes.REQUEST_SCHEMA_MISSING, "no source states its body schema; the client takes a plain mapping")
        )
    if request.stream is None:
        gaps.append(
            (
                codes.REQUEST_STREAM_MEMBER_MISSING,
                "no source names a body member switching streaming on; the operation is taken to always stream",
            )
        )
    if not request.auth:
        gaps.append((codes.REQUEST_AUTH_MISSING, "no source states how to send the API key; the client sends none"))
    for code, text in gaps:
        diagnostics.at(request.provenance, code, f"the request opening {channel.address}: {text}")
