"""The request that opens an AsyncAPI channel's stream -> IR :class:`~ssegen.ir.Request`.

An AsyncAPI document describes the provider's server: what the client sends it is what the
application *receives* (docs/sources.md, "The request"). So the request of a streaming channel
is, in this order:

* AsyncAPI 3.0: the message of an ``action: receive`` operation whose ``reply`` is the stream
  (the "Operation Reply Object": the application answers the request over the same HTTP
  exchange), or of an ``action: receive`` operation on the channel a ``send`` operation streams
  on; the first of its ``messages`` (``request-message-ambiguous`` when it lists several);
* AsyncAPI 2.x: the ``message`` of the channel's ``publish`` operation (the client publishes,
  the application subscribes... to the request).

From those, and the channel:

* method: the HTTP operation binding's ``method`` (``bindings.http.method``, HTTP bindings
  0.1.0-0.3.0) of the request operation, else of the stream's, else the channel's (where the
  DeepSeek and Mistral pages write it);
* path: the channel address; its parameters the channel's ``parameters`` (2.x with a
  ``schema``; 3.0 with ``enum``/``default``); query parameters the operation binding's
  ``query`` schema; headers the request message's ``headers`` schema (and its HTTP message
  binding's ``headers``), each member one header (``anthropic-version``);
* body: the request message's payload (converted as payloads are), its ``contentType``, its
  examples;
* stream member and ``include_usage``: the body schema's (normalize step); else the channel's
  or operations' descriptions saying so (``stream: true``, ``stream_options.include_usage``:
  :mod:`ssegen.sources.requests`);
* auth: the request operation's ``security`` (2.5+ and 3.0), else the stream operation's, else
  that of the channel's servers;
* servers: the channel's ``servers`` (2.x names, 3.0 ``$ref`` s), else every server;
* resumption: ``x-ssegen-resume`` on the channel.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...diagnostics import Diagnostics, codes
from ...ir import Parameter, Request, RequestBody, Schema, Server
from ...naming import ClassName, pascal
from ..location import Location
from ..requests import SecurityReader, fixed_value, http_method, include_usage_member, read_resume, stream_member
from .common import diag, text
from .messages import MessageReader


@dataclass(frozen=True)
class Operation:
    """An operation taking part in a channel's request: the operation object and where it is."""

    node: dict[str, Any]
    loc: Location


class RequestReader:
    """Reads the request of each streaming channel of one AsyncAPI document (module docstring).

    Args:
        data: the document.
        root: where it is.
        reader: the document's message reader (``follow``, payload conversion).
        servers: the document's servers (their names and URLs).
        diagnostics: receives what is noticed, with file, line and pointer.
    """

    def __init__(
        self,
        data: dict[str, Any],
        root: Location,
        reader: MessageReader,
        servers: list[Server],
        diagnostics: Diagnostics,
    ) -> None:
        self.data = data
        self.root = root
        self.reader = reader
        self.servers = servers
        self.diagnostics = diagnostics
        components = data.get("components")
        schemes = components.get("securitySchemes") if isinstance(components, dict) else None
        self.security = SecurityReader(
            (schemes, root.child("components", "securitySchemes")), reader.follow, diagnostics
        )
        self.server_nodes: dict[str, tuple[dict[str, Any], Location]] = {}
        listed = data.get("servers")
        for name, node in listed.items() if isinstance(listed, dict) else ():
            resolved = reader.follow(node, root.child("servers", name)) if isinstance(node, dict) else None
            if resolved is not None and isinstance(resolved[0], dict):
                self.server_nodes[str(name)] = resolved

    def read(
        self,
        address: str,
        channel: tuple[dict[str, Any], Location],
        stream: Operation | None,
        request: Operation | None,
        messages: tuple[Any, Location] | None,
    ) -> Request:
        """The request of the channel ``channel`` at ``address``, streamed by ``stream``, whose
        request operation is ``request`` with its ``messages`` (a message, ``oneOf``, or list)."""
        item, cloc = channel
        ops = [op for op in (request, stream) if op is not None]
        message = self._message(messages)
        body = None
        if message is not None:
            body = RequestBody(
                message[0].content_type,
                message[0].payload,
                True,
                message[0].provenance,
                message[0].description or message[0].summary,
                tuple(example.data for example in message[0].examples),
            )
        texts = [(item.get("description"), cloc.child("description"))]
        texts += [(op.node.get("description"), op.loc.child("description")) for op in ops]
        return Request(
            method=self._method(ops, item, cloc),
            path=address,
            provenance=(request or Operation(item, cloc)).loc.provenance,
            parameters=(
                *self._path_parameters(item, cloc),
                *self._query(ops, item, cloc),
                *(self._headers(*message[1]) if message is not None else ()),
            ),
            body=body,
            stream=next((m for t, loc in texts if (m := stream_member(t, loc.provenance))), None),
            include_usage=next((m for t, loc in texts if (m := include_usage_member(t, loc.provenance))), None),
            auth=self._auth(ops, item, cloc),
            servers=tuple(server.url for server in self._channel_servers(item, cloc)),
            resume=(
                read_resume(item["x-ssegen-resume"], cloc.child("x-ssegen-resume"), self.diagnostics)
                if "x-ssegen-resume" in item
                else None
            ),
            operation_id=_operation_id(request),
        )

    # -- the request message -------------------------------------------------------------------

    def _message(self, messages: tuple[Any, Location] | None) -> tuple[Any, tuple[Any, Location]] | None:
        """``(message, (its object, where))`` of the request: the first of ``messages``
        (``request-message-ambiguous`` when there are several); None when there is none."""
        if messages is None:
            return None
        node, loc = messages
        if isinstance(node, dict) and isinstance(node.get("oneOf"), list):
            node, loc = node["oneOf"], loc.child("oneOf")
        if isinstance(node, list):
            if not node:
                return None
            if len(node) > 1:
                diag(
                    self.diagnostics,
                    loc,
                    codes.REQUEST_MESSAGE_AMBIGUOUS,
                    f"the request operation names {len(node)} messages; the first is the request body",
                )
            node, loc = node[0], loc.child(0)
        message = self.reader.read_message(node, loc, "")
        resolved = self.reader.follow(node, loc) if message is not None else None
        return (message, resolved) if message is not None and resolved is not None else None

    def _headers(self, node: Any, loc: Location) -> list[Parameter]:
        """The headers the request message declares: its ``headers`` schema's members, then its
        HTTP message binding's (AsyncAPI HTTP bindings, Message Binding ``headers``)."""
        found: list[Parameter] = []
        if not isinstance(node, dict):
            return found
        bindings = node.get("bindings")
        http = bindings.get("http") if isinstance(bindings, dict) else None
        sources = [(node.get("headers"), loc.child("headers"))]
        if isinstance(http, dict):
            sources.append((http.get("headers"), loc.child("bindings", "http", "headers")))
        for schema, sloc in sources:
            for param in self._members(schema, sloc, "header"):
                if all(param.name.lower() != other.name.lower() for other in found):
                    found.append(param)
        return found

    def _members(self, node: Any, loc: Location, where: Any) -> list[Parameter]:
        """One parameter in ``where`` per member of the object schema ``node`` (``required``
        listing the required ones; a ``const``, one-value ``enum`` or ``default`` is the value
        sent)."""
        resolved = self.reader.follow(node, loc) if node is not None else None
        if resolved is None or not isinstance(resolved[0], dict):
            return []
        schema, sloc = resolved
        properties = schema.get("properties")
        required = schema.get("required") if isinstance(schema.get("required"), list) else []
        found = []
        for name, raw in properties.items() if isinstance(properties, dict) else ():
            ploc = sloc.child("properties", name)
            converted, description = self.reader.converter.convert(raw, ploc, str(ClassName(pascal(str(name)))))
            followed = self.reader.follow(raw, ploc)
            default, fixed = fixed_value(followed[0] if followed is not None else None)
            found.append(
                Parameter(str(name), where, converted, name in required, ploc.provenance, description, default, fixed)
            )
        return found

    # -- method, parameters, auth, servers -----------------------------------------------------

    def _method(self, ops: list[Operation], item: dict[str, Any], cloc: Location) -> str:
        """The first ``bindings.http.method`` of the operations, then of the channel; ""."""
        for node, loc in [*((op.node, op.loc) for op in ops), (item, cloc)]:
            http = _http_binding(node)
            if http is not None and "method" in http:
                return http_method(http["method"], loc.child("bindings", "http", "method"), self.diagnostics)
        return ""

    def _path_parameters(self, item: dict[str, Any], cloc: Location) -> list[Parameter]:
        """The channel's ``parameters``: each a required path parameter, its schema the 2.x
        ``schema`` or, in 3.0, a string of the ``enum``/``default`` given."""
        found = []
        params = item.get("parameters")
        for name, raw in params.items() if isinstance(params, dict) else ():
            resolved = self.reader.follow(raw, cloc.child("parameters", name))
            if resolved is None or not isinstance(resolved[0], dict):
                continue
            node, ploc = resolved
            schema, default, fixed = self._parameter_schema(str(name), node, ploc)
            found.append(
                Parameter(
                    str(name), "path", schema, True, ploc.provenance, text(node.get("description")), default, fixed
                )
            )
        return found

    def _parameter_schema(self, name: str, node: dict[str, Any], ploc: Location) -> tuple[Schema, Any, bool]:
        """``(schema, default, fixed)`` of a channel parameter: its 2.x ``schema``, or a 3.0
        string of its ``enum`` and ``default``."""
        if "schema" in node:
            schema, _ = self.reader.converter.convert(node["schema"], ploc.child("schema"), str(ClassName(name)))
            followed = self.reader.follow(node["schema"], ploc.child("schema"))
            return (schema, *fixed_value(followed[0] if followed is not None else None))
        listed = node.get("enum")
        enum = tuple(v for v in listed if isinstance(v, str)) if isinstance(listed, list) else ()
        return (Schema("string", ploc.provenance, enum=enum), *fixed_value(node))

    def _query(self, ops: list[Operation], item: dict[str, Any], cloc: Location) -> list[Parameter]:
        """The query parameters of the first HTTP operation binding stating a ``query`` schema
        (the operations', then the channel's)."""
        for node, loc in [*((op.node, op.loc) for op in ops), (item, cloc)]:
            http = _http_binding(node)
            if http is not None and "query" in http:
                return self._members(http["query"], loc.child("bindings", "http", "query"), "query")
        return []

    def _auth(self, ops: list[Operation], item: dict[str, Any], cloc: Location) -> tuple[Any, ...]:
        for op in ops:
            if "security" in op.node:
                return self.security.requirements(op.node["security"], op.loc.child("security"))
        for server in self._channel_servers(item, cloc):
            node, sloc = self.server_nodes.get(server.name, ({}, self.root))
            if "security" in node:
                return self.security.requirements(node["security"], sloc.child("security"))
        return ()

    def _channel_servers(self, item: dict[str, Any], cloc: Location) -> list[Server]:
        """The servers the channel names (2.x names, 3.0 ``$ref`` s to ``servers``), else all."""
        listed = item.get("servers")
        if not isinstance(listed, list) or not listed:
            return self.servers
        names = [
            entry if isinstance(entry, str) else str(entry.get("$ref", "")).rsplit("/", 1)[-1]
            for entry in listed
            if isinstance(entry, (str, dict))
        ]
        return [server for name in names for server in self.servers if server.name == name]


def _http_binding(node: dict[str, Any]) -> dict[str, Any] | None:
    bindings = node.get("bindings")
    http = bindings.get("http") if isinstance(bindings, dict) else None
    return http if isinstance(http, dict) else None


def _operation_id(request: Operation | None) -> str:
    """The id of the operation sending the request: its ``operationId`` (AsyncAPI 2.x
    ``publish``), else its key under ``operations`` (AsyncAPI 3.0); "" with no request
    operation."""
    if request is None:
        return ""
    stated = text(request.node.get("operationId"))
    if stated:
        return stated
    parent, _, key = request.loc.pointer.rpartition("/")
    return key.replace("~1", "/").replace("~0", "~") if parent == "/operations" else ""
