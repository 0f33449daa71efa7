"""The request that opens a channel's stream (:class:`Request`): the HTTP method, the path
template and its parameters, the body schema and the members the client sets in it, the
auth schemes, the servers, the media types of the answer, and how a cut stream resumes.

Every fact carries a :class:`~ssegen.ir.Provenance`, as the response side does.  The loaders
read it from OpenAPI ``requestBody``/``parameters``/``security``, AsyncAPI request messages,
HTTP bindings and ``securitySchemes``, and documentation pages (docs/sources.md, "The
request"); :func:`ssegen.normalize.request.complete_requests` fills what follows from the
body schema (the ``stream`` member, ``stream_options.include_usage``) and the family
(resumption), and reports what is missing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .provenance import Provenance
from .schema import Scalar, Schema

#: Where a request parameter goes (OpenAPI 3.x Parameter Object ``in``): a ``{name}`` of the
#: path template, the query string, a header, or a cookie.
ParameterLocation = Literal["path", "query", "header", "cookie"]

#: How a fact of the request is known: written in a schema or parameter (``schema``), in an
#: ``x-ssegen-*`` extension (``extension``), in the prose of a description or page
#: (``prose``), in a request example (``example``), or from the stream family the channel's
#: events belong to (``family``).
Stated = Literal["schema", "extension", "prose", "example", "family"]

#: How a cut stream continues (:class:`Resume`): ``last-event-id`` (WHATWG HTML 9.2,
#: "Server-sent events": reconnect with the ``Last-Event-ID`` header holding the last ``id:``
#: field received) or ``starting-after`` (OpenAI Responses: ``GET /responses/{id}`` with
#: ``stream=true&starting_after=<sequence_number>`` for a background response).
ResumeKind = Literal["last-event-id", "starting-after"]


@dataclass(frozen=True)
class Parameter:
    """One parameter of the request: a path template variable, a query parameter or a header.

    Attributes:
        name: the parameter name as sent (``model``, ``alt``, ``anthropic-version``).
        location: one of :data:`ParameterLocation`.
        schema: its schema (a ``string`` when the source states none).
        required: the request is invalid without it (path parameters always are).
        provenance: where the parameter is declared.
        description: the source's description.
        default: the value the client sends unless told otherwise: the only value the schema
            allows (``const``, a one-value ``enum``), else its ``default``; None when neither.
        fixed: the schema allows ``default`` only (Gemini's ``alt=sse``): the client always
            sends it and offers no argument for it.
    """

    name: str
    location: ParameterLocation
    schema: Schema
    required: bool
    provenance: Provenance
    description: str = ""
    default: Scalar | None = None
    fixed: bool = False


@dataclass(frozen=True)
class RequestBody:
    """The body of the request.

    Attributes:
        media_type: its media type (``application/json``).
        schema: the body's schema, resolved like payloads (``$ref`` targets converted once);
            None when no source states one (the client then takes a plain mapping,
            ``request-schema-missing``).
        required: the request needs a body.
        provenance: where the body (or the message carrying it) is declared.
        description: the source's description.
        examples: documented example bodies, each compact JSON text, in source order.
    """

    media_type: str
    schema: Schema | None
    required: bool
    provenance: Provenance
    description: str = ""
    examples: tuple[str, ...] = ()


@dataclass(frozen=True)
class BodyMember:
    """A member of the body the client sets itself: the one that switches streaming on
    (``stream: true``) or ``stream_options.include_usage``.

    Attributes:
        path: member names from the body's root (``("stream",)``,
            ``("stream_options", "include_usage")``).
        value: the value the client sets (``True``).
        provenance: where the member (or the text naming it) is written.
        stated: how it is known (:data:`Stated`).
    """

    path: tuple[str, ...]
    value: Scalar
    provenance: Provenance
    stated: Stated = "schema"


@dataclass(frozen=True)
class AuthScheme:
    """One way to send the API key (OpenAPI/AsyncAPI Security Scheme Object).

    Attributes:
        name: the scheme's key in ``securitySchemes`` (``bearerAuth``), or a name for one a page
            shows (``bearer``).
        type: the scheme's ``type`` as written: ``http`` (``scheme`` says how), ``apiKey`` or
            AsyncAPI's ``httpApiKey`` (``location`` and ``parameter`` say where), ``oauth2``
            and ``openIdConnect`` (a bearer token, sent as ``http`` ``bearer`` is).
        location: where the credential goes: ``header``, ``query`` or ``cookie``.
        parameter: the header, query parameter or cookie holding it (``Authorization``,
            ``x-api-key``, ``x-goog-api-key``, ``key``).
        scheme: for ``http`` (and tokens): the HTTP authentication scheme, lower case
            (``bearer``: ``Authorization: Bearer <key>``, RFC 6750; ``basic``); "" when the
            credential is sent as is.
        provenance: where the scheme is declared.
        description: the source's description.
    """

    name: str
    type: str
    location: str
    parameter: str
    provenance: Provenance
    scheme: str = ""
    description: str = ""


@dataclass(frozen=True)
class ErrorResponse:
    """An error response the operation declares: the JSON body a non-2xx status answers with
    (OpenAPI 3.x Responses Object: a ``4XX``, ``5XX`` or ``4xx``/``5xx`` status code, or
    ``default``, with a JSON media type and a schema).

    Attributes:
        status: the Responses Object key as written (``400``, ``4XX``, ``default``).
        media_type: the JSON media type (``application/json``).
        schema: the body's schema, converted as payloads are.
        provenance: where the Response Object is declared.
        description: the response's description.
    """

    status: str
    media_type: str
    schema: Schema
    provenance: Provenance
    description: str = ""


@dataclass(frozen=True)
class Resume:
    """How a cut or stalled stream continues where it stopped.

    Attributes:
        kind: one of :data:`ResumeKind`.
        provenance: where it is stated (the extension, or the message the family reads).
        stated: ``extension`` (``x-ssegen-resume``) or ``family`` (recognized from the events).
        cursor: for ``starting-after``: the event member counting the events
            (``sequence_number``); "" for ``last-event-id`` (the SSE ``id:`` field).
        method: for ``starting-after``: the method of the request that resumes (``GET``).
        path: for ``starting-after``: its path template (``/v1/responses/{response_id}``).
        parameter: for ``starting-after``: the query parameter given the last cursor value
            (``starting_after``).
        id_path: for ``starting-after``: where the events carry the value of the path's
            parameter (``("response", "id")``).
        query: fixed query parameters of the resuming request (``(("stream", "true"),)``).
        when: a body member the request must set for the stream to be resumable (Responses:
            ``background: true``); None when any stream is.
    """

    kind: ResumeKind
    provenance: Provenance
    stated: Stated = "extension"
    cursor: str = ""
    method: str = ""
    path: str = ""
    parameter: str = ""
    id_path: tuple[str, ...] = ()
    query: tuple[tuple[str, str], ...] = ()
    when: BodyMember | None = None


@dataclass(frozen=True)
class Request:
    """The HTTP request that opens a channel's stream.

    Attributes:
        method: the HTTP method, upper case (``POST``).
        path: the path template, relative to a server URL, with ``{name}`` for each path
            parameter (``/models/{model}:streamGenerateContent``); usually the channel's
            address.
        provenance: where the method and path are stated.
        parameters: path, query and header parameters, in source order.
        body: the request body; None when the request has none.
        stream: the body member that switches streaming on (``stream: true``); None when the
            operation always streams (Gemini's ``:streamGenerateContent``) or none is known.
        include_usage: ``stream_options.include_usage`` when the body schema (or the source's
            prose) has it; the client sets it by default, so the last chunk carries usage.
        auth: the ways to send the API key, alternatives in the source's order (the first is
            the default); () when the source states none.
        servers: the URLs the request may be sent to, the default first; () when the source
            states none for it (the provider's servers apply).
        media_types: the media types of the streamed answer (``text/event-stream``,
            ``application/x-ndjson``), for the ``Accept`` header.
        resume: how a cut stream resumes; None when it cannot (it ends ``truncated``).
        errors: the error responses it declares (OpenAPI non-2xx ``responses`` with a JSON
            schema), in source order; the generated client decodes ``APIStatusError.error`` with
            the first one's schema.
        operation_id: the id of the operation sending the request: OpenAPI ``operationId``,
            AsyncAPI 3.0 the ``receive`` operation's key (or the ``send`` operation's with a
            ``reply``), AsyncAPI 2.x the ``publish`` operation's ``operationId``; "" when no
            source names it (the generated client's method is then named after the path).
    """

    method: str
    path: str
    provenance: Provenance
    parameters: tuple[Parameter, ...] = ()
    body: RequestBody | None = None
    stream: BodyMember | None = None
    include_usage: BodyMember | None = None
    auth: tuple[AuthScheme, ...] = ()
    servers: tuple[str, ...] = ()
    media_types: tuple[str, ...] = ()
    resume: Resume | None = None
    operation_id: str = ""
    errors: tuple[ErrorResponse, ...] = ()

    def parameters_in(self, location: ParameterLocation) -> tuple[Parameter, ...]:
        """The parameters that go in ``location`` (``path``, ``query``, ``header``), in order."""
        return tuple(p for p in self.parameters if p.location == location)

    def parameter(self, name: str, location: ParameterLocation) -> Parameter | None:
        """The parameter ``name`` in ``location`` (header names compared case-insensitively), or None."""
        for param in self.parameters:
            same = param.name.lower() == name.lower() if location == "header" else param.name == name
            if same and param.location == location:
                return param
        return None
