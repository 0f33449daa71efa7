"""The request facts a generated package carries for ``ssegen mock`` and the ``sse_mock``
transport (:mod:`ssegen.mock_requests` reads them): per channel, what a request that opens its
stream must be, so the mock can refuse what the provider would refuse (a wrong method, a missing
API key, a body its schema rejects) and serve the resuming request.

They are written into the package's ``schemas.json`` as a top-level ``"requests"`` member
(:func:`schemas_document`), the body schemas sharing the document's ``$defs`` with the message
schemas, so the package needs no part of the generator to check a request.
"""

from __future__ import annotations

from typing import Any

from ..ir import Provider
from ..ir.request import AuthScheme, Parameter, Request, Resume
from ..normalize.jsonschema import export_provider


def schemas_document(provider: Provider) -> dict[str, Any]:
    """The package's ``schemas.json``: :func:`ssegen.normalize.jsonschema.export_provider` with
    a ``"requests"`` member, :func:`request_facts` (the body schemas written as JSON Schema,
    ``$ref`` s into the same ``$defs``)."""
    return export_provider(provider, {"requests": request_facts(provider)})


def request_facts(provider: Provider) -> dict[str, dict[str, Any]]:
    """Channel address -> the facts of the request that opens its stream, for each channel whose
    spec states one (:attr:`ssegen.ir.Channel.request`):

    - ``method``: upper case (``POST``); ``path``: the path template (``{name}`` per parameter);
    - ``body``: the body's schema (an IR :class:`~ssegen.ir.Schema`, exported as JSON Schema),
      or None when no source states one; ``body_required``: the request needs a body;
      ``media_type``: the body's (``application/json``), or None without a body;
    - ``stream``: the member names of the body member that switches streaming on
      (``["stream"]``), or None;
    - ``auth``: the ways to send the API key (:func:`auth_fact`), alternatives in order; ``[]``
      when the spec states none (the mock then asks for no key);
    - ``parameters``: the header and query parameters the request must carry
      (:func:`parameter_fact`), in source order; path parameters are in ``path``;
    - ``resume``: how a cut stream continues (:func:`resume_fact`), or None.
    """
    facts: dict[str, dict[str, Any]] = {}
    for channel in provider.channels:
        if channel.request is not None:
            facts[channel.address] = _request_fact(channel.request)
    return facts


def _request_fact(request: Request) -> dict[str, Any]:
    body = request.body
    return {
        "method": request.method,
        "path": request.path,
        "body": body.schema if body is not None else None,
        "body_required": body is not None and body.required,
        "media_type": body.media_type if body is not None else None,
        "stream": list(request.stream.path) if request.stream is not None else None,
        "auth": [auth_fact(scheme) for scheme in request.auth],
        "parameters": [
            parameter_fact(p) for p in request.parameters if p.required and p.location in ("header", "query")
        ],
        "resume": resume_fact(request.resume) if request.resume is not None else None,
    }


def auth_fact(scheme: AuthScheme) -> dict[str, str]:
    """Where a request carries the API key under ``scheme``: ``{"name", "location"`` (``header``,
    ``query`` or ``cookie``), ``"parameter"`` (``Authorization``, ``x-api-key``, ``key``),
    ``"scheme"`` (``bearer`` for ``Authorization: Bearer <key>``; ``""`` when sent as is)``}``."""
    return {"name": scheme.name, "location": scheme.location, "parameter": scheme.parameter, "scheme": scheme.scheme}


def parameter_fact(parameter: Parameter) -> dict[str, Any]:
    """A required header or query parameter (:class:`ssegen.ir.request.Parameter`):
    ``{"name"`` (``anthropic-version``, ``alt``), ``"location"`` (``header`` or ``query``),
    ``"values"``: the only values it may take (``["sse"]`` for Gemini's fixed ``alt``), or
    None when the spec allows any``}``. The mock refuses a request without it (Anthropic answers
    a request without ``anthropic-version`` with a 400)."""
    default = parameter.default
    text = str(default).lower() if isinstance(default, bool) else str(default)  # as the client sends it
    values = [text] if parameter.fixed and default is not None else None
    return {"name": parameter.name, "location": parameter.location, "values": values}


def resume_fact(resume: Resume) -> dict[str, Any]:
    """How a cut stream resumes (:class:`ssegen.ir.request.Resume`): ``{"kind"}``
    (``last-event-id`` or ``starting-after``) and, for ``starting-after``, the resuming request's
    ``method``, ``path`` template, the query ``parameter`` given the last ``cursor`` value, the
    fixed ``query`` pairs and ``id_path`` (where the events carry the path parameter's value)."""
    fact: dict[str, Any] = {"kind": resume.kind}
    if resume.kind == "starting-after":
        fact |= {
            "method": resume.method,
            "path": resume.path,
            "parameter": resume.parameter,
            "cursor": resume.cursor,
            "query": [list(pair) for pair in resume.query],
            "id_path": list(resume.id_path),
        }
    return fact
