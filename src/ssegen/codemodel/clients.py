"""The ``requests`` and ``client`` modules' facts: the request body classes, and one operation per
streaming channel with its typed method.

Request bodies are emitted by the models builder of :mod:`.models` (a builder of their own, so the
``requests`` module's names never clash with ``models``'): the same classes, unions, aliases and
docstrings as messages, and the same leniency (an enum is ``Literal[...] | str``, so a value the
spec does not list yet is still typed ``str``), but for unions: a body is encoded, not decoded
leniently, so a union msgspec tells apart by JSON type (a string or a list of content blocks) is
typed as its alternatives (``exact_unions``); only a union of two objects no member tells apart
stays ``Any``: msgspec refuses a union of untagged Structs, and a request class stays a type
``msgspec.json.Decoder`` accepts (a server decodes requests with it). Every optional member
defaults to None, which the body leaves out (msgspec ``omit_defaults``; pydantic only dumps the
members set).

Each channel with a request (:class:`~ssegen.ir.Request`) becomes an :class:`OperationSpec`: the
runtime ``Operation`` it is written as (method, path relative to the client's base URL, fixed query,
stream member, ``include_usage``, the first auth scheme with its environment variable, required
headers, resumption), the client's ``stream`` overload for its address, and one typed method named
from the request's ``operationId`` in snake_case (from the channel address without one), whose
keyword arguments are the body's members.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from urllib.parse import urlsplit

from ..diagnostics import Diagnostics, codes
from ..ir import AuthScheme, Channel, Provider, Request
from ..naming import PythonIdentifier, snake
from .channels import ChannelSpec
from .client_errors import error_decoder
from .flavour import MSGSPEC, Flavour
from .models import AliasSpec, ClassSpec, ModelsBuilder
from .module_imports import TOKEN, used_names

#: Attributes and methods of the runtime ``Client``/``AsyncClient`` a typed method must not shadow.
CLIENT_MEMBERS = frozenset(
    {"stream", "close", "aclose", "build_request", "operations", "default_base_url", "http_client"}
    | {"base_url", "api_key", "headers", "timeout", "idle_timeout", "max_retries", "backoff"}
)

#: Keyword arguments every typed method has besides the body's members (a member of one of these
#: names gets a trailing underscore).
CALL_ARGUMENTS = frozenset({"self", "body", "headers", "extra_body", "path_params"})

#: A variable named in the text of an auth scheme (DeepSeek's ``Bearer <DEEPSEEK_API_KEY>``).
_ENV_NAMED = re.compile(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_API_KEY\b")


@dataclass(frozen=True)
class RequestModels:
    """The classes of the ``requests`` module, laid out as ``models``' are.

    Attributes:
        classes: the request body classes and the classes of their members, in first-use order.
        aliases: their enum ``Literal`` aliases, in first-use order.
        terminators: always empty (requests have no terminator literal): the models macros read it.
        shared: the names of the classes and aliases it imports from ``models`` instead, being
            the same (:func:`~.shared_requests.share_with_models`), sorted.
    """

    classes: tuple[ClassSpec, ...]
    aliases: tuple[AliasSpec, ...]
    terminators: tuple[ClassSpec, ...] = ()
    shared: tuple[str, ...] = ()

    @property
    def names(self) -> frozenset[str]:
        """Every class and alias name the module defines (not those it imports)."""
        return frozenset((*(c.name for c in self.classes), *(a.name for a in self.aliases)))


@dataclass(frozen=True)
class Argument:
    """One keyword argument of a typed method.

    Attributes:
        name: the argument's identifier.
        target: the body class field it sets, or the path parameter it fills (wire name).
        annotation: its type, request classes named bare (``list[InputMessage] | None``), as
            ``client.py`` imports them by name.
        required: no default (else ``= None``).
        doc: the spec's description, for the method's ``Args:`` section.
    """

    name: PythonIdentifier
    target: str
    annotation: str
    required: bool
    doc: str


@dataclass(frozen=True)
class OperationSpec:
    """One streaming operation of the ``client`` module.

    Attributes:
        address: the channel address (the key of ``operations`` and of ``stream``'s overloads).
        constant: the module-level ``Operation`` name (``CHAT_COMPLETIONS_OPERATION``).
        channel: the channel constant it streams (``CHAT_COMPLETIONS_CHANNEL``).
        event_type: the channel's event union (``CHAT_COMPLETIONS_EVENT``).
        method, path: the HTTP method and the path template, relative to the client's base URL.
        query: fixed query items (Gemini's ``alt=sse``).
        stream_member, stream_value: the body member switching streaming on, and its value; None
            when the path or query does it.
        include_usage: the client sets ``stream_options.include_usage``.
        auth: ``(scheme, name, env)`` of the runtime ``Auth``: ``bearer``, ``header``, ``query``
            or ``none``; the header or parameter; the environment variable of the key.
        headers: headers every request carries (required ones with a default:
            ``anthropic-version``).
        resume: the runtime ``Resume`` value (``none``, ``last-event-id``,
            ``responses-starting-after``).
        error_decoder: the ``error_decoder=`` expression (the spec's error body, typed:
            :func:`.client_errors.error_decoder`), or "" when the spec declares none.
        method_name: the typed method's name (``create_message``).
        body_class: the request body class (``CreateMessageParams``), or "" when no
            source states the body's schema (the method then takes ``body``, a mapping).
        path_arguments: the path parameters' keyword arguments, in path order.
        arguments: the body members' keyword arguments, required ones first.
        fixed: ``(field, literal)`` set in the body without an argument (a required ``stream``).
        doc: the typed method's docstring.
    """

    address: str
    constant: str
    channel: str
    event_type: str
    method: str
    path: str
    query: tuple[tuple[str, str], ...]
    stream_member: str | None
    stream_value: str | int | float | bool
    include_usage: bool
    auth: tuple[str, str, str]
    headers: tuple[tuple[str, str], ...]
    resume: str
    error_decoder: str
    method_name: PythonIdentifier
    body_class: str
    path_arguments: tuple[Argument, ...]
    arguments: tuple[Argument, ...]
    fixed: tuple[tuple[str, str], ...]
    doc: str

    @property
    def body_type(self) -> str:
        """The type ``stream`` takes as this operation's body."""
        plain = "Mapping[str, Any]"
        return f"{self.body_class} | {plain}" if self.body_class else plain

    @property
    def async_doc(self) -> str:
        """The ``AsyncClient`` method's docstring: what it sends, and a reference to the
        ``Client`` method's, which documents the arguments (one full copy per module)."""
        first = self.doc.splitlines()[0] if self.doc else f"Stream ``{self.address}``."
        reference = f":meth:`Client.{self.method_name}`'s"
        return f"{first}\n\nAn ``AsyncStream``, entered with ``async with``; the arguments are\n{reference}."

    @property
    def path_params(self) -> str:
        """The ``path_params=`` expression of the typed method: a dict of its path arguments,
        or ``None``."""
        if not self.path_arguments:
            return "None"
        return "{" + ", ".join(f"{a.target!r}: {a.name}" for a in self.path_arguments) + "}"


@dataclass(frozen=True)
class ClientSpec:
    """What the ``client`` module lays out.

    Attributes:
        base_url: the client's default base URL: the provider's first server, else the first
            server of a channel's request; "" when none is stated (``base_url=`` is then required).
        operations: one per channel with a request, in channel order.
        env: the environment variable the key is read from when none is given.
    """

    base_url: str
    operations: tuple[OperationSpec, ...]
    env: str

    @property
    def default_base_url(self) -> str | None:
        """``Client.default_base_url``: :attr:`base_url`, or None when no server is stated."""
        return self.base_url or None

    @property
    def base_url_doc(self) -> str:
        """The default base URL as the class docstring says it."""
        return self.base_url or "none: pass one"

    @property
    def usage_address(self) -> str:
        """The address the module docstring's example streams: the first operation's."""
        return self.operations[0].address if self.operations else "/"

    @property
    def usage_env(self) -> str:
        """The first operation's key variable, for the module docstring ("none" without one)."""
        return (self.operations[0].auth[2] if self.operations else "") or "none"


def request_models(
    provider: Provider, diagnostics: Diagnostics, flavour: Flavour = MSGSPEC
) -> tuple[RequestModels, dict[str, str]]:
    """The ``requests`` module's classes, and each channel address -> its body class ("" when the
    body states no object schema).

    The builder's diagnostics go to ``diagnostics``, but ``union-untagged``: it warns that a
    stream member is decoded as any JSON, while a request member whose alternatives no member tells
    apart is merely typed ``Any`` (the client sends what it is given; ``ssegen conform`` and the
    spec still say what is valid)."""
    found = Diagnostics()
    builder = ModelsBuilder(found, flavour, exact_unions=True)
    bodies: dict[str, str] = {}
    described: dict[str, str] = {}
    for channel in provider.channels:
        body = channel.request.body if channel.request is not None else None
        schema = body.schema if body is not None else None
        cls = builder.payload_class(schema) if schema is not None else None
        bodies[channel.address] = str(cls or "")
        if cls is not None and body is not None and not (schema and (schema.description or schema.title)):
            described.setdefault(cls, body.description)
    classes = tuple(replace(c, doc=described[c.name]) if described.get(c.name) else c for c in builder.classes)
    diagnostics.extend(d for d in found if d.code != codes.UNION_UNTAGGED.name)
    return RequestModels(classes, tuple(builder.named_aliases)), bodies


def client_spec(
    provider: Provider,
    channels: tuple[ChannelSpec, ...],
    models: RequestModels,
    bodies: dict[str, str],
    flavour: Flavour = MSGSPEC,
    declared: dict[str, str] | None = None,
) -> ClientSpec:
    """The ``client`` module's facts: ``channels`` are the package's (their constants and
    decoders), ``models`` and ``bodies`` :func:`request_models`', ``flavour`` the models';
    ``declared`` each channel address -> the error decoder of the error responses its request
    declares (:func:`.client_errors.declared_error_decoder`), which wins over its error message's."""
    base = provider.servers[0].url if provider.servers else ""
    if not base:
        base = next((c.request.servers[0] for c in provider.channels if c.request and c.request.servers), "")
    env = f"{provider.name.upper()}_API_KEY"
    specs = {c.address: c for c in channels}
    taken: set[str] = set()
    operations = []
    for channel in provider.channels:
        if channel.request is None or channel.address not in specs:
            continue
        op = _operation(provider, channel, channel.request, specs[channel.address], base, env)
        stated = (declared or {}).get(channel.address, "")
        op = replace(op, error_decoder=stated or error_decoder(channel, specs[channel.address], flavour))
        name = _method_name(channel, channel.request, taken)
        taken.add(name)
        body = bodies.get(channel.address, "")
        operations.append(_with_arguments(op, name, body, models, channel.request))
    return ClientSpec(base, tuple(operations), env)


def _operation(
    provider: Provider, channel: Channel, request: Request, spec: ChannelSpec, base: str, env: str
) -> OperationSpec:
    """The operation's plain facts (its method name and arguments come after)."""
    stream = request.stream
    return OperationSpec(
        address=channel.address,
        constant=f"{spec.constant.removesuffix('_CHANNEL')}_OPERATION",
        channel=spec.constant,
        event_type=spec.event_type,
        method=request.method or "POST",
        path=relative_path(request, base),
        query=tuple((p.name, str(p.default)) for p in request.parameters_in("query") if _sent(p.default, p)),
        stream_member=stream.path[0] if stream is not None and len(stream.path) == 1 else None,
        stream_value=stream.value if stream is not None else True,
        include_usage=request.include_usage is not None,
        auth=runtime_auth(request.auth[0], env) if request.auth else ("none", "", ""),
        headers=tuple(
            (p.name, _header_value(p.default)) for p in request.parameters_in("header") if _sent(p.default, p)
        ),
        resume={"last-event-id": "last-event-id", "starting-after": "responses-starting-after"}.get(
            request.resume.kind if request.resume else "", "none"
        ),
        error_decoder="",
        method_name=PythonIdentifier("stream"),
        body_class="",
        path_arguments=(),
        arguments=(),
        fixed=(),
        doc="",
    )


def _sent(default: object, param: object) -> bool:
    """A query or header parameter the client always sends: fixed, or required with a default."""
    return default is not None and (getattr(param, "fixed", False) or getattr(param, "required", False))


def _header_value(value: object) -> str:
    """A header's value as sent (``true`` for a JSON boolean)."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def relative_path(request: Request, base: str) -> str:
    """``request.path`` relative to ``base``: the request's own server joined as
    :func:`ssegen.replay.channel_paths` does (a path already under the server's path is taken
    whole: DeepSeek's ``/beta/completions`` on ``https://api.deepseek.com/beta``), less
    ``base``'s path; the path as is when the server is another host."""
    server = request.servers[0] if request.servers else base
    if not server or server == base:
        return request.path
    parts = urlsplit(server)
    origin, server_path = f"{parts.scheme}://{parts.netloc}", parts.path.rstrip("/")
    whole = not server_path or request.path.startswith(server_path + "/")
    full = origin + (request.path if whole else server_path + request.path)
    prefix = base.rstrip("/")
    return full[len(prefix) :] if full.startswith(prefix + "/") else request.path


def runtime_auth(scheme: AuthScheme, env: str) -> tuple[str, str, str]:
    """``(scheme, name, env)`` of the runtime ``Auth`` for an IR auth scheme: a bearer token
    (``http`` ``bearer``, ``oauth2``, ``openIdConnect``), else the header or query parameter the
    key goes in as is. ``env`` is the variable named in the scheme's description when it names
    one (``DEEPSEEK_API_KEY``), else the one given."""
    named = _ENV_NAMED.search(scheme.description)
    env = named.group(0) if named else env
    if scheme.scheme == "bearer" or scheme.type in ("oauth2", "openIdConnect"):
        return ("bearer", "", env)
    if scheme.location in ("header", "query") and scheme.parameter:
        return (scheme.location, scheme.parameter, env)
    return ("none", "", "")


def _method_name(channel: Channel, request: Request, taken: set[str]) -> PythonIdentifier:
    """The typed method's name: the operationId in snake_case, else the address's words
    (``/chat/completions`` -> ``chat_completions``); an underscore added while it is a client
    member or another operation's."""
    name = snake(request.operation_id) or snake(channel.address) or "stream_request"
    ident = str(PythonIdentifier(name))
    while ident in CLIENT_MEMBERS or ident in taken:
        ident += "_"
    return PythonIdentifier.verbatim(ident)


def _with_arguments(
    op: OperationSpec, name: PythonIdentifier, body: str, models: RequestModels, request: Request
) -> OperationSpec:
    """``op`` with its method's name, body class, arguments and docstring."""
    used = set(CALL_ARGUMENTS)
    path_args = []
    for param in request.parameters_in("path"):
        ident = _free(str(PythonIdentifier(param.name)), used)
        path_args.append(Argument(ident, param.name, "str", True, param.description))
    cls = next((c for c in models.classes if c.name == body), None)
    arguments: list[Argument] = []
    fixed: list[tuple[str, str]] = []
    for f in cls.fields if cls is not None else ():
        if f.fixed is not None:
            continue
        if op.stream_member is not None and f.wire == op.stream_member:
            if f.required:
                fixed.append((f.name, repr(op.stream_value)))
            continue
        ident = _free(str(f.name), used)
        arguments.append(Argument(ident, f.name, f.argument or f.annotation, f.required, f.doc))
    doc = _method_doc(op, request, cls, (*path_args, *arguments))
    return replace(
        op,
        method_name=name,
        body_class=body or "",
        path_arguments=tuple(path_args),
        arguments=tuple(sorted(arguments, key=lambda a: not a.required)),
        fixed=tuple(fixed),
        doc=doc,
    )


def _free(ident: str, used: set[str]) -> PythonIdentifier:
    """``ident``, with underscores added while it is used; then marked used."""
    while ident in used:
        ident += "_"
    used.add(ident)
    return PythonIdentifier.verbatim(ident)


def _method_doc(op: OperationSpec, request: Request, cls: ClassSpec | None, arguments: tuple[Argument, ...]) -> str:
    """The typed method's docstring: what it sends, its arguments, what it returns."""
    lines = [f"Stream ``{op.method} {request.path}``: the typed events of ``{op.address}``."]
    body = request.body
    schema = body.schema if body is not None else None
    summary = (body.description if body is not None else "") or (schema.description if schema is not None else "")
    if summary.strip():
        lines += ["", summary.strip()]
    lines += ["", "Use it as a context manager: entering sends the request."]
    lines += ["", "Args:"]
    if cls is None:
        lines.append("    body: the JSON object sent (no source states the body's schema).")
    for arg in (a for a in arguments if a.doc.strip()):
        first, *rest = [ln.strip() for ln in arg.doc.strip().splitlines() if ln.strip()]
        lines.append(f"    {arg.name}: {first}")
        lines += [f"        {ln}" for ln in rest]
    lines.append("    extra_body: members the spec does not list, added to the body.")
    lines.append("    headers: headers of this call (over the client's).")
    return "\n".join(lines)


def client_imports(
    client: ClientSpec, model_names: Iterable[str], request_names: Iterable[str], shared: Iterable[str] = ()
) -> tuple[ClientSpec, tuple[str, ...], tuple[str, ...]]:
    """``(client, request classes, model import clauses)`` that ``client.py`` imports:
    the request classes of its operations, and the ``models`` classes of their error decoders
    (``msgspec.json.Decoder(ErrorEvent).decode``) and of the request classes the ``requests``
    module shares with ``models`` (``shared``: imported from ``models``, where they are defined).
    A model class that a used request class's name takes is imported as ``_<Name>`` (clause
    ``Name as _Name``), and the decoders of ``client`` returned name it so."""
    typed = [replace(op, error_decoder="") for op in client.operations]
    requests = used_names(typed, request_names)
    decoders = used_names([op.error_decoder for op in client.operations], model_names)
    errors = sorted({*decoders, *used_names(typed, shared)})
    local = {name: f"_{name}" if name in requests else name for name in errors}
    operations = tuple(
        replace(op, error_decoder=TOKEN.sub(lambda m: local.get(m.group(0), m.group(0)), op.error_decoder))
        for op in client.operations
    )
    clauses = tuple(name if name == alias else f"{name} as {alias}" for name, alias in local.items())
    return replace(client, operations=operations), requests, clauses
