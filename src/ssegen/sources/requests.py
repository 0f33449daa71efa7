"""What every reader of a request shares (OpenAPI, AsyncAPI and the page loaders): security
schemes and requirements, a parameter's default and fixed value, ``x-ssegen-resume``, and the
prose that names the member switching streaming on.

Security schemes are read as OpenAPI 3.x and AsyncAPI 2.x/3.0 write them (Security Scheme
Object): ``http`` with a ``scheme`` (``bearer``: ``Authorization: Bearer <key>``, RFC 6750;
``basic``), OpenAPI ``apiKey`` and AsyncAPI ``httpApiKey`` with ``in`` (``header``, ``query``,
``cookie``) and ``name``, and ``oauth2``/``openIdConnect`` (a bearer token). AsyncAPI's
``apiKey`` (``in: user|password``), ``userPassword``, ``X509``, SASL and encryption schemes
carry no HTTP credential: ``auth-scheme-unsupported``, skipped.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from ..diagnostics import Diagnostics, codes
from ..ir import AuthScheme, BodyMember, Provenance, Resume, Scalar
from .location import Location

#: ``node`` with its ``$ref`` chain followed and where it was found; None when it cannot be.
Follow = Callable[[Any, Location], "tuple[Any, Location] | None"]

#: HTTP methods a request may have (RFC 9110 section 9, and ``QUERY``).
HTTP_METHODS = frozenset({"GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE", "QUERY"})

#: Prose saying a request sets ``stream`` to true: ``"stream": true``, ``stream: true``,
#: ``stream=true``, `` `stream` is `true` ``, ``the `stream` request parameter is set to `true` ``
#: (``specs/deepseek/asyncapi-page.txt:7``, ``specs/xerotier/streaming-api.md:4``).
STREAM_PROSE = re.compile(
    r"(?<![\w.])[`\"']?stream[`\"']?(?:\s+(?:request\s+)?(?:parameter|member|field|option))?"
    r"\s*(?::|=|\bis set to\b|\bset to\b|\bis\b)\s*[`\"']?true\b",
    re.IGNORECASE,
)

#: Prose naming ``stream_options.include_usage`` (``specs/mistral/asyncapi-page.txt:65``), or a
#: JSON example setting it (``"stream_options": {"include_usage": true}``).
INCLUDE_USAGE_PROSE = re.compile(
    r"stream_options\.include_usage|[\"']?stream_options[\"']?\s*:\s*\{\s*[\"']?include_usage[\"']?\s*:\s*true"
)

#: The ``x-ssegen-resume`` kinds and the members each takes (docs/sources.md, "Resuming").
RESUME_KINDS = ("last-event-id", "starting-after")
_RESUME_MEMBERS = ("cursor", "method", "path", "parameter", "id", "query", "when")


def stream_member(text: Any, provenance: Provenance) -> BodyMember | None:
    """``stream: true`` as :class:`~ssegen.ir.BodyMember` (stated in ``prose``) when ``text``
    says the request sets it (:data:`STREAM_PROSE`), else None."""
    if isinstance(text, str) and STREAM_PROSE.search(text):
        return BodyMember(("stream",), True, provenance, "prose")
    return None


def include_usage_member(text: Any, provenance: Provenance) -> BodyMember | None:
    """``stream_options.include_usage: true`` (stated in ``prose``) when ``text`` names it
    (:data:`INCLUDE_USAGE_PROSE`), else None."""
    if isinstance(text, str) and INCLUDE_USAGE_PROSE.search(text):
        return BodyMember(("stream_options", "include_usage"), True, provenance, "prose")
    return None


def fixed_value(node: Any) -> tuple[Scalar | None, bool]:
    """``(default, fixed)`` of a parameter's schema (or AsyncAPI 3.0 Parameter Object):
    its ``const`` or one-value ``enum`` (fixed), else its ``default`` (not fixed), else None."""
    if not isinstance(node, dict):
        return None, False
    if _scalar(node.get("const")):
        return node["const"], True
    enum = node.get("enum")
    if isinstance(enum, list) and len(enum) == 1 and _scalar(enum[0]):
        return enum[0], True
    return (node["default"], False) if _scalar(node.get("default")) else (None, False)


def _scalar(value: Any) -> bool:
    return isinstance(value, (str, int, float, bool))


def http_method(value: Any, loc: Location, diagnostics: Diagnostics) -> str:
    """``value`` as an upper-case HTTP method; "" (``request-method-invalid``) when it is no
    method (:data:`HTTP_METHODS`)."""
    method = value.strip().upper() if isinstance(value, str) else ""
    if method in HTTP_METHODS:
        return method
    diagnostics.at(
        loc.provenance, codes.REQUEST_METHOD_INVALID, f"{json.dumps(value)} is no HTTP method; the method is not read"
    )
    return ""


class SecurityReader:
    """Reads security requirements into :class:`~ssegen.ir.AuthScheme` alternatives.

    Args:
        schemes: the document's ``components.securitySchemes`` (or 2.x ``securitySchemes``)
            mapping, and where it is.
        follow: follows a ``$ref`` chain (the loader's).
        diagnostics: receives ``auth-scheme-unsupported``, ``auth-scheme-unknown`` and
            ``auth-combined``.
    """

    def __init__(self, schemes: tuple[Any, Location], follow: Follow, diagnostics: Diagnostics) -> None:
        self.schemes, self.schemes_loc = schemes
        self.follow = follow
        self.diagnostics = diagnostics

    def requirements(self, node: Any, loc: Location) -> tuple[AuthScheme, ...]:
        """The alternatives of a ``security`` list: each requirement (a mapping of scheme names,
        OpenAPI and AsyncAPI 2.x; a Security Scheme Object or ``$ref``, AsyncAPI 3.0) gives its
        scheme; a requirement of several schemes at once keeps its first (``auth-combined``)."""
        found: list[AuthScheme] = []
        for i, item in enumerate(node if isinstance(node, list) else []):
            scheme = self._requirement(item, loc.child(i))
            if scheme is not None and scheme not in found:
                found.append(scheme)
        return tuple(found)

    def _requirement(self, item: Any, loc: Location) -> AuthScheme | None:
        if isinstance(item, dict) and "$ref" not in item and "type" not in item:
            names = [str(name) for name in item]
            if len(names) > 1:
                self.diagnostics.at(
                    loc.provenance,
                    codes.AUTH_COMBINED,
                    f"the requirement asks for {', '.join(names)} at once; the client sends {names[0]} only",
                )
            return self.named(names[0], loc) if names else None
        resolved = self.follow(item, loc)
        if resolved is None:
            return None
        target, tloc = resolved
        # A scheme by reference is named by its key; one written in place has no name of its own.
        name = tloc.pointer.rsplit("/", 1)[-1] if isinstance(item, dict) and "$ref" in item else "auth"
        return self.scheme(name, target, tloc)

    def named(self, name: str, loc: Location) -> AuthScheme | None:
        """The scheme ``name`` of ``securitySchemes``; None (``auth-scheme-unknown``) when absent."""
        node = self.schemes.get(name) if isinstance(self.schemes, dict) else None
        if node is None:
            self.diagnostics.at(
                loc.provenance, codes.AUTH_SCHEME_UNKNOWN, f"security requirement {name!r} names no security scheme"
            )
            return None
        resolved = self.follow(node, self.schemes_loc.child(name))
        return self.scheme(name, resolved[0], resolved[1]) if resolved is not None else None

    def scheme(self, name: str, node: Any, loc: Location) -> AuthScheme | None:
        """The Security Scheme Object ``node`` (module docstring); None when it carries no HTTP
        credential (``auth-scheme-unsupported``)."""
        kind = node.get("type") if isinstance(node, dict) else None
        description = node.get("description") if isinstance(node, dict) else None
        text = description.strip() if isinstance(description, str) else ""
        if kind in ("http", "oauth2", "openIdConnect"):
            raw = node.get("scheme", "bearer") if kind == "http" else "bearer"
            scheme = raw.strip().lower() if isinstance(raw, str) else "bearer"
            return AuthScheme(name, kind, "header", "Authorization", loc.provenance, scheme, text)
        where, parameter = (node.get("in"), node.get("name")) if isinstance(node, dict) else (None, None)
        if kind in ("apiKey", "httpApiKey") and where in ("header", "query", "cookie") and isinstance(parameter, str):
            return AuthScheme(name, kind, where, parameter, loc.provenance, "", text)
        self.diagnostics.at(
            loc.provenance,
            codes.AUTH_SCHEME_UNSUPPORTED,
            f"security scheme {name!r} (type {json.dumps(kind)}"
            + (f", in {json.dumps(where)}" if where is not None else "")
            + ") carries no HTTP credential ssegen's client sends; skipped",
        )
        return None


def read_resume(node: Any, loc: Location, diagnostics: Diagnostics) -> Resume | None:
    """The ``x-ssegen-resume`` extension at ``loc``: a kind (``last-event-id``), or a mapping
    ``{kind, cursor, method, path, parameter, id, query, when}`` (docs/sources.md, "Resuming");
    None (``resume-invalid``) when it names no kind or a ``starting-after`` lacks its ``cursor``,
    ``path`` or ``parameter``."""
    spec: dict[str, Any] = {"kind": node} if isinstance(node, str) else node if isinstance(node, dict) else {}
    problem = _resume_problem(spec)
    if problem:
        diagnostics.at(loc.provenance, codes.RESUME_INVALID, f"x-ssegen-resume: {problem}; ignored")
        return None
    kind = spec["kind"]
    query = spec.get("query")
    when = spec.get("when")
    return Resume(
        kind,
        loc.provenance,
        "extension",
        cursor=str(spec.get("cursor", "")),
        method=str(spec.get("method", "GET" if kind == "starting-after" else "")).upper(),
        path=str(spec.get("path", "")),
        parameter=str(spec.get("parameter", "")),
        id_path=tuple(p for p in str(spec.get("id", "")).split(".") if p),
        query=tuple((str(k), _query_text(v)) for k, v in query.items()) if isinstance(query, dict) else (),
        when=_when(when, loc.child("when")) if isinstance(when, dict) and len(when) == 1 else None,
    )


def _resume_problem(spec: dict[str, Any]) -> str:
    """What is wrong with an ``x-ssegen-resume`` mapping; "" when nothing is."""
    kind = spec.get("kind")
    if kind not in RESUME_KINDS:
        return f"`kind` must be one of {', '.join(RESUME_KINDS)}, got {json.dumps(kind)}"
    if kind == "starting-after" and not all(isinstance(spec.get(k), str) for k in ("cursor", "path", "parameter")):
        return "a `starting-after` resumption needs `cursor`, `path` and `parameter` (strings)"
    unknown = sorted(str(k) for k in spec if k != "kind" and k not in _RESUME_MEMBERS)
    if unknown:
        return f"unknown member{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}"
    return ""


def _query_text(value: Any) -> str:
    """A query value as sent: JSON's ``true`` as ``true``, a string as is."""
    return value if isinstance(value, str) else json.dumps(value)


def _when(node: dict[str, Any], loc: Location) -> BodyMember | None:
    """``when: {background: true}``: the body member a resumable stream's request sets."""
    ((member, value),) = node.items()
    if not _scalar(value):
        return None
    return BodyMember(tuple(p for p in str(member).split(".") if p), value, loc.provenance, "extension")
