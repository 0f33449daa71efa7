"""The request a documentation page shows in words and examples -> IR :class:`~ssegen.ir.Request`.

A page has no request schema object, but it shows the request that opens the stream, and
this module reads what it shows, line by line (each fact with its page line):

=====================================================  ===========================================
the page says                                          read as
=====================================================  ===========================================
``Method：POST`` / ``**URL**：https://.../v1/chat/...``  method; server (the URL without the
(``specs/siliconstorm/inference-api.md:8``, 10)        channel address)
``--request POST 'https://...'``, ``-X POST``,         method (the first stated wins)
``method: "POST"``
``POST /:project_id/:endpoint_slug/v1/chat/...``       the path template (``:name`` ->
(``specs/xerotier/streaming-api.md:236``)              ``{name}``, each a path parameter); the
                                                       server is the origin of a URL of as many
                                                       segments
``Authorization: Bearer {ApiKey}`` (a curl header,     auth: ``http`` ``bearer``
a fetch ``headers`` member)
``x-api-key: ...``                                     auth: an API key in that header
``Content-Type: application/json``                     the body's media type
``When stream: true is set in the request``            the stream member (prose)
``stream_options.include_usage``                       ``include_usage`` (prose)
``--data-raw '{...}'`` / ``-d '{...}'``                an example body (compact JSON)
=====================================================  ===========================================

Pointers are the page's line pointers (``/sections/<slug>/lines/<n>``, :mod:`ssegen.sources.pages`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from ...ir import AuthScheme, BodyMember, Parameter, Provenance, Request, RequestBody, Schema
from ..requests import include_usage_member, stream_member
from .messages import CHANNEL_ADDRESS
from .sections import PageText

#: A method stated as one: ``Method：POST`` (full-width or ASCII colon), ``--request POST``,
#: ``-X POST``, ``method: "POST"``.
_METHOD_MARKED = re.compile(
    r"(?:\bmethod\s*[:：]\s*[\"']?|(?:--request|-X)\s+)(GET|POST|PUT|PATCH|DELETE)\b", re.IGNORECASE
)
#: A method right before a path or URL (``POST /v1/chat``, ``POST/chat/completions``): the
#: request's when the path ends with the channel address (not ``GET /v1/mockups/{id}``).
_METHOD_PATH = re.compile(r"(?:^|\s)(GET|POST|PUT|PATCH|DELETE)\s*[\"']?((?:https?://|/)[^\s'\"`]*)")
_URL = re.compile(r"https?://[^\s'\"`<>)\\]+")
#: A path template with ``:name`` or ``{name}`` segments (``/:project_id/:endpoint_slug/v1/...``).
_TEMPLATE = re.compile(r"(?<![\w:/])(/(?:[\w.{}:-]+/)*[\w.{}:-]+)")
_BEARER = re.compile(r"[\"']?authorization[\"']?\s*:\s*[\"']?bearer\b", re.IGNORECASE)
_API_KEY_HEADER = re.compile(r"[\"']?(x-api-key|api-key|x-goog-api-key)[\"']?\s*:", re.IGNORECASE)
#: A request's ``Content-Type`` header: a curl ``-H``/``--header`` or a quoted ``headers`` member
#: (not the response headers a page lists).
_CONTENT_TYPE = re.compile(
    r"(?:(?:-H|--header)\s+[\"']|[\"'])content-type[\"']?\s*:\s*[\"']?([\w.+-]+/[\w.+-]+)", re.IGNORECASE
)
_DATA_START = re.compile(r"(?:--data-raw|--data|-d)\s+'(.*)$")

#: ``(line, text)`` pairs of a page, 1-based lines.
Lines = Sequence[tuple[int, str]]


@dataclass
class _Found:
    """What the lines show, each with its line (0: not shown)."""

    method: tuple[str, int] = ("", 0)
    urls: list[tuple[str, int]] = field(default_factory=list)
    template: tuple[str, int] = ("", 0)
    auth: list[AuthScheme] = field(default_factory=list)
    media_type: str = ""
    stream: BodyMember | None = None
    include_usage: BodyMember | None = None
    examples: list[str] = field(default_factory=list)


def page_request(page: PageText[Any], schema: Schema | None = None) -> Request | None:
    """The request a streaming page shows for its channel (:data:`.messages.CHANNEL_ADDRESS`):
    :func:`lines_request` of every line of ``page``, pointers its line pointers."""
    return lines_request(list(page.numbered()), CHANNEL_ADDRESS, lambda n: page.at(n, page.line_pointer(n)), schema)


def lines_request(
    lines: Lines, address: str, at: Callable[[int], Provenance], schema: Schema | None = None
) -> Request | None:
    """The request the page ``lines`` show for the channel at ``address`` (module docstring),
    with ``schema`` the body schema a parameter table states; ``at`` gives a line's provenance.
    None when the lines show neither a method, a URL, auth nor a body."""
    found = _read(lines, address, at)
    if not (found.method[0] or found.urls or found.auth or schema is not None or found.examples):
        return None
    path, servers, parameters = _endpoint(found, address, at)
    where = found.method[1] or found.template[1] or (found.urls[0][1] if found.urls else 0)
    body_at = at(where)
    return Request(
        method=found.method[0],
        path=path,
        provenance=at(where),
        parameters=parameters,
        body=RequestBody(
            found.media_type or "application/json",
            schema,
            True,
            schema.provenance if schema is not None else body_at,
            examples=tuple(found.examples),
        ),
        stream=found.stream,
        include_usage=found.include_usage,
        auth=tuple(found.auth),
        servers=servers,
    )


def _read(lines: Lines, address: str, at: Callable[[int], Provenance]) -> _Found:
    """Every fact of the module docstring's table the lines show (the lines of an example body
    too: its ``"stream": true`` names the stream member)."""
    found = _Found()
    for k, (number, text) in enumerate(lines):
        _line_facts(found, number, text, address, at)
        start = _DATA_START.search(text)
        if start is not None:
            _example(found, lines, k, start.group(1))
    return found


def _line_facts(found: _Found, number: int, text: str, address: str, at: Callable[[int], Provenance]) -> None:
    """The facts one line shows, each kept where no earlier line showed it."""
    _endpoint_facts(found, number, text, address)
    _header_facts(found, number, text, at)
    found.stream = found.stream or stream_member(text, at(number))
    found.include_usage = found.include_usage or include_usage_member(text, at(number))


def _endpoint_facts(found: _Found, number: int, text: str, address: str) -> None:
    """The method, the URLs ending with ``address`` and a path template, on one line."""
    pathed = _METHOD_PATH.search(text)
    if pathed is not None and not urlsplit(pathed.group(2).rstrip(".,;:")).path.rstrip("/").endswith(address):
        pathed = None
    method = _METHOD_MARKED.search(text) or pathed
    if method is not None and not found.method[0]:
        found.method = (method.group(1).upper(), number)
    found.urls += [(url, number) for url in _URL.findall(text) if urlsplit(url).path.rstrip("/").endswith(address)]
    templates = [p for p in _TEMPLATE.findall(text) if p.endswith(address) and (":" in p or "{" in p)]
    if templates and not found.template[0]:
        found.template = (templates[0], number)


def _header_facts(found: _Found, number: int, text: str, at: Callable[[int], Provenance]) -> None:
    """The auth header (bearer, or an API key header) and the body's ``Content-Type``, on one line."""
    key = _API_KEY_HEADER.search(text)
    if not found.auth and _BEARER.search(text):
        found.auth.append(AuthScheme("bearer", "http", "header", "Authorization", at(number), "bearer", text.strip()))
    elif not found.auth and key is not None:
        found.auth.append(
            AuthScheme(key.group(1).lower(), "apiKey", "header", key.group(1), at(number), "", text.strip())
        )
    content = _CONTENT_TYPE.search(text)
    if content is not None and not found.media_type:
        found.media_type = content.group(1).lower()


def _example(found: _Found, lines: Lines, k: int, first: str) -> None:
    """The JSON body of a curl ``-d '...'`` starting at line ``k`` (its text after the quote
    ``first``), kept as compact JSON when it parses."""
    parts = [first]
    end = k
    while "'" not in parts[-1] and end + 1 < len(lines):
        end += 1
        parts.append(lines[end][1])
    text = "\n".join(parts).split("'", 1)[0]
    try:
        value = json.loads(text)
    except ValueError:
        return
    found.examples.append(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


def _endpoint(
    found: _Found, address: str, at: Callable[[int], Provenance]
) -> tuple[str, tuple[str, ...], tuple[Parameter, ...]]:
    """``(path, servers, path parameters)``: a stated template (``:name`` -> ``{name}``) with the
    origin of a URL of as many segments; else the channel address, with each URL ending in it
    less that address."""
    template, line = found.template
    if template:
        path = re.sub(r":([A-Za-z_]\w*)", r"{\1}", template)
        depth = path.count("/")
        origins = [
            f"{parts.scheme}://{parts.netloc}"
            for url, _ in found.urls
            if (parts := urlsplit(url)).path.rstrip("/").count("/") == depth
        ]
        names = re.findall(r"\{([^{}]+)\}", path)
        params = tuple(Parameter(n, "path", Schema("string", at(line)), True, at(line)) for n in names)
        return path, tuple(dict.fromkeys(origins)), params
    servers = [url.rstrip("/")[: -len(address)] for url, _ in found.urls if url.rstrip("/").endswith(address)]
    return address, tuple(dict.fromkeys(s for s in servers if s)), ()
