"""pydantic models handed to the msgspec-based runtime (``model = "pydantic"`` packages only).

The runtime (``sse.py``, ``accumulate.py``, ...) is the same in every package and turns
typed values into plain data with ``msgspec.to_builtins``, which knows msgspec
Structs but not pydantic models.  ``channels.py`` of a pydantic package passes
usage objects, error messages and vendor messages through :func:`plain` first, so
a :class:`~.accumulate.StreamResult` holds the same data in both flavours, and turns
validation errors into one-line ``UnknownEvent.reason`` texts with
:func:`validation_reason`.

This module is ``src/ssegen/runtime/pydantic_support.py`` of ssegen, written verbatim
into the runtime of every output folder generated with ``model = "pydantic"``: edit it there, then run
``ssegen generate``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

import msgspec
import pydantic

from .lenient import ModelLibrary, lenient_decode, literal_values
from .sink import Sink
from .tables import Decode

T = TypeVar("T")


class MessagePayloadModel(pydantic.BaseModel):
    """Base of every generated message payload model (pydantic flavour), as
    :class:`.lenient.MessagePayload` is of the msgspec flavour's classes: the member where an
    event decoded leniently keeps what did not fit. Each model sets its own ``model_config``.

    Attributes:
        off_spec: Not in the spec: set only on an event decoded leniently, the members that did
            not fit (JSON pointer -> the value as sent); the accumulator records each in
            ``errors`` (kind ``member_off_spec``).
    """

    # the alias is lenient.OFF_SPEC_WIRE, written out: the pydantic mypy plugin needs a literal
    off_spec: dict[str, Any] | None = pydantic.Field(default=None, alias="x-ssegen-off-spec")


def plain(value: Any) -> Any:
    """``value`` as plain data, as ``msgspec.to_builtins`` gives it for the msgspec flavour.

    A model becomes a dict keyed by wire names (aliases), without the members
    at their default (None), as msgspec's ``omit_defaults`` leaves them out;
    dicts, lists and scalars are converted as ``msgspec.to_builtins`` does.

    Raises:
        TypeError: ``value`` holds something neither msgspec nor pydantic converts.
    """
    return msgspec.to_builtins(value, enc_hook=_dump)


def _dump(value: Any) -> Any:
    if isinstance(value, pydantic.BaseModel):
        # warnings=False: a leniently decoded event may hold None where its type says otherwise
        return value.model_dump(by_alias=True, exclude_defaults=True, warnings=False)
    raise NotImplementedError(f"cannot convert {type(value).__name__} to plain data")


def error_event(acc: Sink, event: Any) -> None:
    """``acc.error`` of a typed error message, as plain data."""
    acc.error(plain(event))


def vendor_event(acc: Sink, event: Any) -> None:
    """``acc.vendor`` of a typed vendor message, as plain data."""
    acc.vendor(plain(event))


def validation_reason(exc: pydantic.ValidationError) -> str:
    """One line saying why a value does not fit, in msgspec's style.

    The first error pydantic reports, with its place as a JSON path
    (``Input should be a valid integer - at `$.usage.total_tokens```); a missing
    member reads ``Object missing required field `text` - at `$.choices[0]```, as
    msgspec says it.
    """
    errors = exc.errors(include_url=False)
    if not errors:
        return str(exc)
    first = errors[0]
    loc = list(first["loc"])
    if first["type"] == "missing" and loc:
        message = f"Object missing required field `{loc.pop()}`"
    else:
        message = first["msg"]
    if not loc:
        return message
    path = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in loc)
    return f"{message} - at `${path}`"


class _Pydantic(ModelLibrary):
    """The pydantic side of ``lenient.lenient_decode``: the same algorithm, the same
    results as with msgspec Structs (checked by the flavour differential tests)."""

    def read_fields(self, cls: Any) -> list[tuple[str, str, Any, bool]]:
        return [
            (n, f.alias or n, f.annotation, f.is_required()) for n, f in cls.model_fields.items()
        ]

    def convert(self, tp: Any, value: Any) -> Any:
        return pydantic.TypeAdapter(tp).validate_python(value, strict=True)

    def build(self, cls: Any, members: dict[str, Any]) -> Any:
        return cls.model_construct(**members)

    def plain(self, value: Any) -> Any:
        return plain(value)

    def carries_sent(self, cls: Any) -> bool:
        return True  # any model may be given the usage object as sent

    def is_class(self, tp: Any) -> bool:
        return isinstance(tp, type) and issubclass(tp, pydantic.BaseModel)

    def lists_every_member(self, cls: Any) -> bool:
        return bool(cls.model_config.get("extra") == "forbid")

    def declared(self, cls: Any) -> set[str]:
        return {wire for _, wire, _, _ in self.fields(cls)}  # a tag is a Literal member

    def tagged_as(self, cls: Any, value: dict[str, Any]) -> bool:
        # An alternative of a tagged union has its tag as a required ``Literal`` member.
        for _, wire, tp, required in self.fields(cls):
            literal = literal_values(tp)
            if literal is not None and required and value.get(wire) not in literal:
                return False
        return True


PYDANTIC = _Pydantic()


def model_decoder(cls: type[T]) -> Decode[T]:
    """The decode function of model ``cls``: the ``validate_json`` method of one
    ``pydantic.TypeAdapter(cls)``, built once (raises ``pydantic.ValidationError``); the
    pydantic flavour's ``tables.json_decoder``."""
    return pydantic.TypeAdapter(cls).validate_json


def lenient_decode_models(data: str, classes: Sequence[type[T]]) -> T | None:
    """``lenient.lenient_decode`` of pydantic models (see there)."""
    return lenient_decode(data, classes, PYDANTIC)
