"""The model flavour: which library the generated message classes are built on.

Everything that differs between flavours is a fact here, and only here: the
``models`` template, how a message's decoder is built and what it raises, how
a typed event becomes plain data for the accumulator, the constraint spelling
of ``maxItems: 0``, the runtime module a flavour adds and the dependencies the
package docstring names.  The rest of the code model (class names, field
identifiers, annotations, decode order, accumulation plans) is the same for
every flavour, so both give the same message class for every payload.

* ``msgspec`` (the default): ``msgspec.Struct`` classes and one
  ``msgspec.json.Decoder`` per message.
* ``pydantic``: pydantic v2 ``BaseModel`` classes (``extra="ignore"``,
  ``strict=True`` so that a string is never coerced to a number or a bool, as
  msgspec does not, and discrimination stays the same) validated by one
  ``pydantic.TypeAdapter`` per message; the runtime (``sse.py``, ``stream.py``)
  stays msgspec-based and ``pydantic_support.py`` converts models to plain data
  for it (``ssegen/runtime/pydantic_support.py``).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Flavour:
    """The flavour-specific part of a :class:`~ssegen.codemodel.PackageSpec`.

    Attributes:
        name: ``msgspec`` or ``pydantic`` (``[tool.ssegen] model``).
        models_template: the template laying out ``models.py``.
        requests_template: the template laying out ``requests.py`` (the request bodies).
        depends: the package docstring's dependency list (``msgspec and the standard library``).
        imports: modules ``channels.py`` imports (``import <name>``), in order.
        support_module: the runtime module of the flavour's helpers (``pydantic_support``), or "".
        support_names: the names ``channels.py`` imports from it, sorted.
        runtime_modules: runtime files written besides ``ssegen.runtime.MODULES`` (in ``_runtime/``).
        adapter: the per-message validator object, ``{cls}`` standing for the class (imported by name).
        adapter_type: its type, as the tagged table's annotation.
        decode_method: the method of ``adapter`` taking JSON text (``str`` or ``bytes``).
        build_decoder: the runtime function building a class's decode function, the tables of
            decoders built at import are given (``tables.json_decoder``,
            ``pydantic_support.model_decoder``; :mod:`.channel_tables`).
        lines_method: the method of ``adapter`` decoding newline-delimited JSON text at once
            (msgspec's ``decode_lines``), or "" when it has none.
        decoder_doc: how ``channels.py``'s docstring names the validator.
        decode_errors: what a decoder raises on invalid JSON or a value that does not fit.
        validation_error: what a tagged decoder raises on a value that does not fit.
        reason: the function turning a caught error into ``UnknownEvent.reason`` text.
        plain: wraps a typed value the runtime turns into plain data (``{}`` is the value).
        error_handler: the accumulator method feeding one error message (``each(...)`` of it is the run function).
        vendor_handler: the accumulator method feeding one listed vendor message (likewise).
        empty_list: the annotation of an always-empty array (``maxItems: 0``), ``{item}`` the item type.
        lenient: the function decoding a payload leniently (``lenient_decode(data, classes)``,
            runtime ``lenient.py`` or ``pydantic_support.py``).
        tagged_union: the annotation of a tagged union, ``{variants}`` its classes joined by
            `` | `` and ``{member}`` the tag member's wire name as a literal.
        library: the runtime ``ModelLibrary`` each channel's ``Encoding`` is given, "" for
            the default (msgspec's).
        sends_set_members: a request model sends the members set, even to None (pydantic's
            ``exclude_unset``), so the client's typed methods pass only the arguments given; a
            msgspec Struct leaves a member at its None default out (``omit_defaults``).
    """

    name: str
    models_template: str
    requests_template: str
    depends: str
    imports: tuple[str, ...]
    support_module: str
    support_names: tuple[str, ...]
    runtime_modules: tuple[str, ...]
    adapter: str
    adapter_type: str
    decode_method: str
    build_decoder: str
    decoder_doc: str
    decode_errors: str
    validation_error: str
    reason: str
    plain: str
    error_handler: str
    vendor_handler: str
    empty_list: str
    tagged_union: str
    lenient: str = "lenient_decode"
    library: str = ""
    lines_method: str = ""
    sends_set_members: bool = False

    def lines_decoder(self, decoder: str, framing: str) -> str:
        """The module-level name of the decoder of an NDJSON read's lines at once (runtime
        ``framing.Lines``) for the message decoded by ``decoder``: ``<decoder>_lines``; "" for
        SSE and for a flavour without :attr:`lines_method`."""
        return f"{decoder}_lines" if framing == "ndjson" and self.lines_method else ""


MSGSPEC = Flavour(
    name="msgspec",
    models_template="models.py.jinja",
    requests_template="requests.py.jinja",
    depends="msgspec and the standard library",
    imports=("msgspec",),
    support_module="",
    support_names=(),
    runtime_modules=(),
    adapter="msgspec.json.Decoder({cls})",
    adapter_type="msgspec.json.Decoder[Any]",
    decode_method="decode",
    build_decoder="json_decoder",
    decoder_doc="``msgspec.json.Decoder``",
    decode_errors="(msgspec.ValidationError, msgspec.DecodeError)",
    validation_error="msgspec.ValidationError",
    reason="str",
    plain="{}",
    error_handler="on_error",
    vendor_handler="on_vendor",
    empty_list="Annotated[list[{item}], msgspec.Meta(max_length=0)]",
    tagged_union="{variants}",
    lines_method="decode_lines",
)

PYDANTIC = Flavour(
    name="pydantic",
    models_template="models_pydantic.py.jinja",
    requests_template="requests_pydantic.py.jinja",
    depends="pydantic, msgspec and the standard library",
    imports=("msgspec", "pydantic"),
    support_module="pydantic_support",
    support_names=(
        *("PYDANTIC", "error_event", "lenient_decode_models", "model_decoder", "plain", "validation_reason"),
        "vendor_event",
    ),
    runtime_modules=("pydantic_support.py",),
    adapter="pydantic.TypeAdapter({cls})",
    adapter_type="pydantic.TypeAdapter[Any]",
    decode_method="validate_json",
    build_decoder="model_decoder",
    decoder_doc="``pydantic.TypeAdapter``",
    decode_errors="pydantic.ValidationError",
    validation_error="pydantic.ValidationError",
    reason="validation_reason",
    plain="plain({})",
    error_handler="error_event",
    vendor_handler="vendor_event",
    empty_list="Annotated[list[{item}], pydantic.Field(max_length=0)]",
    tagged_union="Annotated[{variants}, pydantic.Field(discriminator={member})]",
    lenient="lenient_decode_models",
    library="PYDANTIC",
    sends_set_members=True,
)

#: The flavours by ``[tool.ssegen] model`` value.
FLAVOURS: dict[str, Flavour] = {f.name: f for f in (MSGSPEC, PYDANTIC)}
