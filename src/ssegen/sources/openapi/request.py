"""The request of a streaming OpenAPI operation (OpenAPI 3.x Operation Object) -> IR
:class:`~ssegen.ir.Request`.

* method: the operation's key (``post``), or its key under 3.2 ``additionalOperations``;
* path: the path (without a ``#...`` suffix; a ``?name=value`` suffix some documents add to
  tell a variant apart, OpenAI's ``/responses?beta=true``, is a fixed query parameter); its
  parameters are the path item's
  ``parameters`` with the operation's in front (the operation's win on the same ``name`` and
  ``in``, "Operation Object"); a ``{name}`` of the path no parameter declares is a required
  string (``request-path-parameter-undeclared``);
* body: the ``requestBody``'s JSON media type (``application/json`` or ``+json``), its
  ``schema`` converted as payloads are, its ``example``/``examples`` kept as compact JSON; a
  body with no JSON media type has no schema (``request-body-not-json``);
* stream member: Fern's ``x-fern-streaming.stream-condition`` (``$request.stream``); else the
  normalize step finds it in the schema (:mod:`ssegen.normalize.request`);
* auth: the operation's ``security``, else the document's, with ``components.securitySchemes``
  (:class:`~ssegen.sources.requests.SecurityReader`);
* servers: the operation's ``servers``, else the path item's, else the document's;
* media types: those of the streamed 2xx responses (``text/event-stream`` for Fern's
  ``format: sse``);
* resumption: ``x-ssegen-resume`` on the operation; else ``last-event-id`` when the 3.2
  ``itemSchema`` of a ``text/event-stream`` response declares the ``id`` field;
* errors: the responses of a ``4XX``/``5XX`` status (a code, or its range) or ``default``
  (``$ref`` followed) with a JSON media type and a schema, in source order: the error body
  the generated client decodes ``APIStatusError.error`` to.
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import parse_qsl

from ...diagnostics import codes
from ...ir import BodyMember, ErrorResponse, Parameter, ParameterLocation, Request, RequestBody, Resume, Schema
from ...naming import ClassName, pascal
from ..base import framing_of
from ..location import Location
from ..requests import SecurityReader, fixed_value, read_resume
from .events import EventSchemaReader, is_json
from .media import StreamMedia

_LOCATIONS: tuple[ParameterLocation, ...] = ("path", "query", "header", "cookie")
_TEMPLATE = re.compile(r"\{([^{}]+)\}")


class RequestReader:
    """Reads the request of each streaming operation of one OpenAPI document.

    Args:
        data: the document.
        root: where it is.
        reader: the loader's reader (``follow``, the schema converter, the diagnostics).
    """

    def __init__(self, data: dict[str, Any], root: Location, reader: EventSchemaReader) -> None:
        self.data = data
        self.root = root
        self.reader = reader
        self.diagnostics = reader.diagnostics
        components = data.get("components")
        schemes = components.get("securitySchemes") if isinstance(components, dict) else None
        self.security = SecurityReader(
            (schemes, root.child("components", "securitySchemes")), reader.follow, reader.diagnostics
        )

    def read(
        self,
        path: str,
        item: dict[str, Any],
        iloc: Location,
        op: dict[str, Any],
        oloc: Location,
        media: list[StreamMedia],
    ) -> Request:
        """The request of operation ``op`` (at ``oloc``) of path item ``item`` (at ``iloc``),
        whose streamed responses are ``media`` (module docstring)."""
        address, _, query = (path.split("#", 1)[0] or path).partition("?")
        parameters = self._parameters(address, item, iloc, op, oloc)
        parameters += tuple(
            Parameter(
                name, "query", Schema("string", oloc.provenance, enum=(value,)), True, oloc.provenance, "", value, True
            )
            for name, value in parse_qsl(query, keep_blank_values=True)
            if all((p.name, p.location) != (name, "query") for p in parameters)
        )
        security, sloc = (op, oloc) if "security" in op else (self.data, self.root)
        return Request(
            method=oloc.pointer.rsplit("/", 1)[-1].upper(),
            path=address,
            provenance=oloc.provenance,
            parameters=parameters,
            body=self._body(op, oloc),
            stream=_fern_condition(op, oloc),
            auth=self.security.requirements(security.get("security"), sloc.child("security")),
            servers=self._servers(item, op),
            media_types=tuple(dict.fromkeys(_media_type(found) for found in media)),
            resume=self._resume(op, oloc, media),
            operation_id=_text(op.get("operationId")),
            errors=self._errors(op, oloc),
        )

    # -- parameters ----------------------------------------------------------------------------

    def _parameters(
        self, address: str, item: dict[str, Any], iloc: Location, op: dict[str, Any], oloc: Location
    ) -> tuple[Parameter, ...]:
        """The operation's parameters, then the path item's not overridden, then the path's
        undeclared template variables."""
        found: dict[tuple[str, str], Parameter] = {}
        for node, loc in ((op, oloc), (item, iloc)):
            listed = node.get("parameters")
            for i, raw in enumerate(listed if isinstance(listed, list) else []):
                param = self._parameter(raw, loc.child("parameters", i))
                if param is not None:
                    found.setdefault((param.name, param.location), param)
        for name in _TEMPLATE.findall(address):
            if (name, "path") not in found:
                self.diagnostics.at(
                    oloc.provenance,
                    codes.REQUEST_PATH_PARAMETER_UNDECLARED,
                    f"the path {address} has {{{name}}} but no path parameter declares it; read as a required string",
                )
                found[(name, "path")] = Parameter(
                    name, "path", Schema("string", oloc.provenance), True, oloc.provenance
                )
        return tuple(found.values())

    def _parameter(self, raw: Any, loc: Location) -> Parameter | None:
        """One Parameter Object (``$ref`` followed); None (``request-parameter-invalid``) without
        a ``name`` or with an ``in`` that is no location."""
        resolved = self.reader.follow(raw, loc)
        if resolved is None:
            return None
        node, ploc = resolved
        name = node.get("name") if isinstance(node, dict) else None
        where = node.get("in") if isinstance(node, dict) else None
        if not isinstance(name, str) or where not in _LOCATIONS:
            self.diagnostics.at(
                ploc.provenance,
                codes.REQUEST_PARAMETER_INVALID,
                f"a parameter needs a `name` and an `in` among {', '.join(_LOCATIONS)}; got "
                f"{json.dumps(name)}, {json.dumps(where)}: skipped",
            )
            return None
        raw_schema = node.get("schema", {})
        schema, _ = self.reader.converter.convert(raw_schema, ploc.child("schema"), str(ClassName(pascal(name))))
        default, fixed = fixed_value(self._followed(raw_schema, ploc.child("schema")))
        description = node.get("description")
        return Parameter(
            name,
            where,
            schema,
            where == "path" or node.get("required") is True,
            ploc.provenance,
            description.strip() if isinstance(description, str) else "",
            default,
            fixed,
        )

    def _followed(self, node: Any, loc: Location) -> Any:
        resolved = self.reader.follow(node, loc) if isinstance(node, dict) and "$ref" in node else (node, loc)
        return resolved[0] if resolved is not None else None

    # -- body ----------------------------------------------------------------------------------

    def _body(self, op: dict[str, Any], oloc: Location) -> RequestBody | None:
        """The ``requestBody`` (``$ref`` followed): its first JSON media type's schema and
        examples; no schema when it has no JSON media type (``request-body-not-json``)."""
        if "requestBody" not in op:
            return None
        resolved = self.reader.follow(op["requestBody"], oloc.child("requestBody"))
        if resolved is None or not isinstance(resolved[0], dict):
            return None
        body, bloc = resolved
        content = body.get("content") if isinstance(body.get("content"), dict) else {}
        description = body.get("description").strip() if isinstance(body.get("description"), str) else ""
        required = body.get("required") is True
        json_type = next((t for t in content if is_json(t)), None)
        if json_type is None:
            listed = ", ".join(map(str, content)) or "none"
            self.diagnostics.at(
                bloc.provenance,
                codes.REQUEST_BODY_NOT_JSON,
                f"the request body has no JSON media type (it lists {listed}); the client takes a plain mapping",
            )
            first = next(iter(content), "application/json")
            return RequestBody(str(first), None, required, bloc.provenance, description)
        media = content[json_type] if isinstance(content[json_type], dict) else {}
        mloc = bloc.child("content", json_type)
        schema = None
        if "schema" in media:
            hint = str(ClassName((pascal(_text(op.get("operationId"))) or "Stream") + "Request"))
            schema, _ = self.reader.converter.convert(media["schema"], mloc.child("schema"), hint)
        return RequestBody(str(json_type), schema, required, bloc.provenance, description, _examples(media))

    def _errors(self, op: dict[str, Any], oloc: Location) -> tuple[ErrorResponse, ...]:
        """The error responses of the operation's ``responses`` (module docstring)."""
        responses = op.get("responses")
        found: list[ErrorResponse] = []
        for status, raw in responses.items() if isinstance(responses, dict) else ():
            key = str(status)
            resolved = self.reader.follow(raw, oloc.child("responses", key)) if _is_error(key) else None
            media = _json_media(resolved[0]) if resolved is not None else None
            if resolved is None or media is None:
                continue
            (node, rloc), (json_type, schema_node) = resolved, media
            hint = str(ClassName((pascal(_text(op.get("operationId"))) or "Stream") + "Error"))
            schema, _ = self.reader.converter.convert(schema_node, rloc.child("content", json_type, "schema"), hint)
            found.append(ErrorResponse(key, json_type, schema, rloc.provenance, _text(node.get("description"))))
        return tuple(found)

    # -- servers and resumption ----------------------------------------------------------------

    def _servers(self, item: dict[str, Any], op: dict[str, Any]) -> tuple[str, ...]:
        for node in (op, item, self.data):
            servers = node.get("servers")
            if isinstance(servers, list) and servers:
                return tuple(s["url"].strip() for s in servers if isinstance(s, dict) and isinstance(s.get("url"), str))
        return ()

    def _resume(self, op: dict[str, Any], oloc: Location, media: list[StreamMedia]) -> Resume | None:
        if "x-ssegen-resume" in op:
            return read_resume(op["x-ssegen-resume"], oloc.child("x-ssegen-resume"), self.diagnostics)
        for found in media:
            item = found.media.get("itemSchema") if found.framing == "sse" else None
            resolved = self.reader.follow(item, found.loc.child("itemSchema")) if item is not None else None
            properties = resolved[0].get("properties") if resolved and isinstance(resolved[0], dict) else None
            if isinstance(properties, dict) and "id" in properties:
                where = resolved[1].child("properties", "id") if resolved else found.loc
                return Resume("last-event-id", where.provenance, "schema")
        return None


def _fern_condition(op: dict[str, Any], oloc: Location) -> BodyMember | None:
    """The member Fern's ``x-fern-streaming.stream-condition`` names (``$request.stream``)."""
    marker = op.get("x-fern-streaming")
    condition = marker.get("stream-condition") if isinstance(marker, dict) else None
    if not isinstance(condition, str) or not condition.startswith("$request."):
        return None
    path = tuple(p for p in condition.removeprefix("$request.").split(".") if p)
    where = oloc.child("x-fern-streaming", "stream-condition").provenance
    return BodyMember(path, True, where, "extension") if path else None


def _is_error(status: str) -> bool:
    """A Responses Object key of an error: ``default``, or a 4xx/5xx code or range (``4XX``)."""
    return status == "default" or status[:1] in ("4", "5")


def _json_media(node: Any) -> tuple[str, Any] | None:
    """``(media type, schema)`` of a Response Object's first JSON media type stating a schema."""
    content = node.get("content") if isinstance(node, dict) else None
    for media_type, media in content.items() if isinstance(content, dict) else ():
        if is_json(str(media_type)) and isinstance(media, dict) and "schema" in media:
            return str(media_type), media["schema"]
    return None


def _media_type(found: StreamMedia) -> str:
    """The media type a streamed response states (the key of its ``content`` entry); for a
    stream an extension declares, the framing's own."""
    parent, _, key = found.loc.pointer.rpartition("/")
    stated = key.replace("~1", "/").replace("~0", "~").split(";", 1)[0].strip().lower()
    if parent.endswith("/content") and framing_of(stated) == found.framing:
        return stated
    return "text/event-stream" if found.framing == "sse" else "application/x-ndjson"


def _examples(media: dict[str, Any]) -> tuple[str, ...]:
    """The media type's ``example`` and each ``examples`` entry's ``value``, as compact JSON."""
    values = [media["example"]] if "example" in media else []
    examples = media.get("examples")
    if isinstance(examples, dict):
        values += [e["value"] for e in examples.values() if isinstance(e, dict) and "value" in e]
    return tuple(json.dumps(v, ensure_ascii=False, separators=(",", ":")) for v in values)


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""
