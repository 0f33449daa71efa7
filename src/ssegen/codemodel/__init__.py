"""IR -> code model: every decision the templates of one provider package need, made once.

Templates hold layout; this package holds the logic, derived from the IR
alone, deterministically (no dict/set iteration order leaks into output):

* :mod:`.models`: the Struct classes, enum aliases and terminator classes, each
  field's identifier and lenient type expression;
* :mod:`.channels`: per channel, the order messages are tried in, their
  decoders, the vendor-tag dispatch, the handler of each event class and the
  batch plan (fast path);
* :mod:`.accumulation`: which members of a data message feed the accumulator, and how;
* :mod:`.clients`: the request body classes and the client's operations and typed methods;
* :mod:`.conformance`: the examples and example streams the generated tests replay;
* :mod:`.flavour`: what differs between model flavours (msgspec, pydantic).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..diagnostics import Diagnostics
from ..ir import Provider
from ..naming import distinct_identifiers
from .channels import ChannelSpec, channel_spec
from .client_errors import declared_error_decoder
from .clients import ClientSpec, OperationSpec, RequestModels, client_imports, client_spec, request_models
from .conformance import ExampleCase, StreamCase, example_cases, stream_cases
from .encoding import EncodedChannel, EncodingSpec, encoded_channel
from .flavour import FLAVOURS, MSGSPEC, PYDANTIC, Flavour
from .models import AliasSpec, ClassSpec, FieldSpec, ModelsBuilder
from .module_imports import used_names
from .shared_requests import share_with_models

__all__ = [
    "AliasSpec",
    "ChannelSpec",
    "ClassSpec",
    "ClientSpec",
    "EncodedChannel",
    "EncodingSpec",
    "ExampleCase",
    "FLAVOURS",
    "FieldSpec",
    "Flavour",
    "MSGSPEC",
    "OperationSpec",
    "PYDANTIC",
    "PackageSpec",
    "RequestModels",
    "StreamCase",
    "build_package_spec",
    "package_summary",
    "package_usage",
]

#: The names every package's ``__init__`` exports besides the channel constants and the runtime's
#: (``public.__all__``, which its ``__all__`` adds). Not its ``requests`` module (``from <package>
#: import requests`` imports it all the same): a star import would shadow the ``requests``
#: library in the user's module.
PACKAGE_EXPORTS = ("CHANNELS", "ERROR_CODES", "PROVIDER", "SERVERS", "SPEC_TITLE", "SPEC_VERSION", "models", "sse")

#: The channel the package docstring's usage example opens when the provider has none.
DEFAULT_ADDRESS = "/chat/completions"


@dataclass(frozen=True)
class PackageSpec:
    """Everything the templates of one provider package lay out.

    Attributes:
        provider: the IR (names, title, version and error codes are read from it).
        title: the API's name as prose reads it (:func:`api_name`: the spec title, or the
            provider's name, followed by "streaming API" unless it already says API).
        classes: payload classes, in first-use order.
        aliases: enum ``Literal`` aliases, in first-use order.
        terminators: terminator classes (``[DONE]``), in first-use order.
        channels: one per IR channel, in IR order (sorted by address).
        usage_address: the channel the package docstring's usage example opens.
        error_codes_source: where ``ERROR_CODES`` come from (``from <file>`` or
            ``none documented``).
        examples: the examples the conformance tests decode: the spec's own, and one synthesized
            for each JSON message it gives none (:func:`~ssegen.codemodel.conformance.example_cases`).
        streams: the harvested example streams the conformance tests replay.
        flavour: the model flavour (msgspec or pydantic): what differs between them.
        summary: the package docstring's first line: what the package is (typed SSE
            decoding; models and a JSON-payload classifier when the spec declares
            another protocol, see :func:`package_summary`).
        usage: the lines of the docstring's usage example (after the import).
        requests: the ``requests`` module's classes (:func:`~.clients.request_models`).
        client: the ``client`` module's operations (:func:`~.clients.client_spec`).
        channel_imports: the ``models`` classes ``channels.py`` uses, which it imports by name
            (:func:`~.module_imports.used_names`: not the module, whose import through the
            package's ``__init__`` is a cycle).
        client_imports: the ``requests`` classes ``client.py`` uses, imported by name likewise.
        client_model_imports: the import clauses of the ``models`` classes ``client.py`` uses
            (its error bodies): ``Name``, or ``Name as _Name`` when a request class has the name.
    """

    provider: Provider
    title: str
    classes: tuple[ClassSpec, ...]
    aliases: tuple[AliasSpec, ...]
    terminators: tuple[ClassSpec, ...]
    channels: tuple[EncodedChannel, ...]
    usage_address: str
    error_codes_source: str
    examples: tuple[ExampleCase, ...]
    streams: tuple[StreamCase, ...]
    flavour: Flavour = MSGSPEC
    summary: str = ""
    usage: tuple[str, ...] = ()
    requests: RequestModels = RequestModels((), ())
    client: ClientSpec = ClientSpec("", (), "")
    channel_imports: tuple[str, ...] = ()
    client_imports: tuple[str, ...] = ()
    client_model_imports: tuple[str, ...] = ()

    @property
    def own_examples(self) -> tuple[ExampleCase, ...]:
        """The spec's own examples, in :attr:`examples` order."""
        return tuple(e for e in self.examples if not e.synthesized)

    @property
    def synthesized_examples(self) -> tuple[ExampleCase, ...]:
        """The examples ssegen synthesized for messages the spec gives none, in :attr:`examples` order."""
        return tuple(e for e in self.examples if e.synthesized)

    @property
    def payload_classes(self) -> tuple[str, ...]:
        """The message payload classes deriving from the runtime's ``MessagePayload``
        (:attr:`ClassSpec.off_spec`), in :attr:`classes` order: ``models.py`` imports that base
        when there is one."""
        return tuple(c.name for c in self.classes if c.off_spec)

    @property
    def closed_classes(self) -> tuple[str, ...]:
        """The classes refusing members they do not declare (:attr:`ClassSpec.closed`: the
        deltas), in :attr:`classes` order."""
        return tuple(c.name for c in self.classes if c.closed)

    @property
    def plan_helpers(self) -> tuple[str, ...]:
        """The runtime functions compiled plans call (``as_sent``, ``usage_of``), sorted."""
        statements = [code for ch in self.channels for plan in ch.plans for code in plan.statements]
        return tuple(name for name in ("as_sent", "usage_of") if any(f"{name}(" in s for s in statements))

    @property
    def exports(self) -> tuple[str, ...]:
        """The package's own ``__all__`` names (the runtime's, ``public.__all__``, are added
        to it): :data:`PACKAGE_EXPORTS`, each channel's constant (``CHAT_COMPLETIONS_CHANNEL``),
        and the typed lookup ``channel`` when the provider has a channel, sorted as strings."""
        lookup = ("channel",) if self.channels else ()
        return tuple(sorted((*PACKAGE_EXPORTS, *lookup, *(ch.constant for ch in self.channels))))

    @property
    def usage_import(self) -> str:
        """What the package docstring's usage example imports: the typed lookup ``channel``, or
        ``CHANNELS`` for a provider without channels (no lookup is generated then)."""
        return "channel" if self.channels else "CHANNELS"

    @property
    def lookup_overloaded(self) -> bool:
        """Whether the generated ``channel()`` lookup is overloaded, one ``@overload`` per
        address (two channels or more; a single channel's lookup is one plain signature, as
        ``typing.overload`` needs at least two)."""
        return len(self.channels) > 1

    @property
    def lookup_doc(self) -> str:
        """The docstring of the generated ``channel()`` lookup, its example taken from the
        first channel (the provider has one: without channels no lookup is generated)."""
        first = self.channels[0]
        return (
            "The channel at ``address``, typed for mypy and pyright: ``address`` must be one of the\n"
            "provider's channel addresses written as a literal (a misspelled one is a type error,\n"
            f"there is no ``str`` fallback), and ``channel({first.address!r})`` is a\n"
            f"``Channel[{first.event_type}]``, the same object as ``{first.constant}``.\n"
            "``CHANNELS`` is the dynamic mapping, for addresses known only at run time.\n\n"
            "Raises:\n"
            "    KeyError: ``address`` is no channel of the provider (a value the checkers did not\n"
            "        see, such as one cast to a literal); the message lists the channels."
        )

    @property
    def channels_doc(self) -> str:
        """The docstring of the generated ``Channels`` class (the type of ``CHANNELS``),
        its example taken from the first channel."""
        if not self.channels:
            return "The provider's channels by address (none)."
        first = self.channels[0]
        return (
            "The provider's channels by address: a ``dict`` whose item at an address written\n"
            "as a literal is typed with that channel's events for mypy and pyright\n"
            f"(``CHANNELS[{first.address!r}]`` is a ``Channel[{first.event_type}]``,\n"
            f"the same object as ``{first.constant}``, so a misspelled attribute of\n"
            "a decoded event is a type error); any other ``str`` key gives a ``Channel[Any]``:\n"
            f"``channel({first.address!r})`` is the lookup that rejects a misspelled address."
        )


_API_WORD = re.compile(r"\bAPIs?\b", re.IGNORECASE)


def api_name(provider: Provider) -> str:
    """The API's name as prose reads it: the spec's title (or the provider's folder name) when it
    already says API (``Anthropic Messages streaming API``, ``DeepSeek Streaming API (HTTP +
    SSE)``), else followed by ``streaming API`` (``API`` when the spec declares a protocol other
    than SSE), so generated docstrings never double the words."""
    title = provider.title or provider.name
    if _API_WORD.search(title):
        return title
    return f"{title} API" if provider.protocols else f"{title} streaming API"


def package_summary(provider: Provider, title: str) -> str:
    """What the package is, in one sentence: SSE decoding, or (for a spec over kafka, mqtt,
    ws, ...) the models and a classifier of JSON payloads, with no transport. ``title`` is
    :func:`api_name`'s."""
    if not provider.protocols:
        return f"Typed SSE decoding for the {title}."
    return (
        f"Models and a JSON-payload classifier for the {title}, whose spec declares "
        f"{', '.join(provider.protocols)} (not Server-Sent Events): bring the transport, "
        "pass each payload to ``Channel.parse``."
    )


def package_usage(provider: Provider, address: str) -> tuple[str, ...]:
    """The usage example's lines after the import (:attr:`PackageSpec.usage_import`): the
    channel opened through the typed lookup (``channel(address)``, whose misspelled address
    type checkers flag; ``CHANNELS[address]`` for a provider without channels, which has no
    lookup), then used."""
    opened = f"chan = channel({address!r})" if provider.channels else f"chan = CHANNELS[{address!r}]"
    if provider.protocols:
        return (
            opened,
            "event = chan.parse(payload)                   # a typed message, or UnknownEvent",
            "print(event)",
        )
    return (
        opened,
        "events = chan.decode(response.iter_bytes())   # typed events, lazily",
        "result = chan.accumulate(events)              # assembled StreamResult",
        "print(result.to_dict())",
    )


def build_package_spec(provider: Provider, diagnostics: Diagnostics, flavour: Flavour = MSGSPEC) -> PackageSpec:
    """The :class:`PackageSpec` of ``provider``; channels and messages are walked in IR order.

    Args:
        provider: the IR.
        diagnostics: receives the code model's warnings (``name-conflict``,
            ``identifier-collision``, ``identifier-lossy``, ``identifier-renamed``,
            ``message-not-object``, ``vendor-tag-fields``).
        flavour: the model flavour; class names, fields and decode order do not depend on it.
    """
    models = ModelsBuilder(diagnostics, flavour)
    idents = distinct_identifiers([channel.address for channel in provider.channels], "channel")
    channels = [channel_spec(channel, models, diagnostics, idents[channel.address]) for channel in provider.channels]
    title = api_name(provider)
    examples = example_cases(provider, [{m.name: m.cls for m in channel.messages} for channel in channels])
    encoded = tuple(encoded_channel(provider, channel, examples) for channel in channels)
    usage_address = provider.channels[0].address if provider.channels else DEFAULT_ADDRESS
    declared = {c.address: declared_error_decoder(c, models, flavour) for c in provider.channels}
    built, bodies = request_models(provider, diagnostics, flavour)
    requests = share_with_models(built, models.classes, models.named_aliases)
    model_names = [
        *(c.name for c in models.classes),
        *(t.name for t in models.terminators),
        *(a.name for a in models.named_aliases),
    ]
    client, request_imports, error_imports = client_imports(
        client_spec(provider, encoded, built, bodies, flavour, declared),
        model_names,
        requests.names,
        requests.shared,
    )
    return PackageSpec(
        provider=provider,
        title=title,
        classes=tuple(models.classes),
        aliases=tuple(models.named_aliases),
        terminators=tuple(models.terminators),
        channels=encoded,
        usage_address=usage_address,
        error_codes_source=(
            f"from {provider.error_codes[0].provenance.file}" if provider.error_codes else "none documented"
        ),
        examples=examples,
        streams=stream_cases(provider),
        flavour=flavour,
        summary=package_summary(provider, title),
        usage=package_usage(provider, usage_address),
        requests=requests,
        client=client,
        channel_imports=used_names(encoded, model_names),
        client_imports=request_imports,
        client_model_imports=error_imports,
    )
