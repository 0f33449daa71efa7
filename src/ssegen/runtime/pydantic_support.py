"""pydantic models handed to the msgspec-based runtime (``model = "pydantic"`` packages only).

The runtime (``sse.py``, ``stream.py``) is the same in every package and turns
typed values into plain data with ``msgspec.to_builtins``, which knows msgspec
Structs but not pydantic models.  ``channels.py`` of a pydantic package passes
usage objects, error messages and vendor messages through :func:`plain` first, so
a :class:`~.stream.StreamResult` holds the same data in both flavours, and turns
validation errors into one-line ``UnknownEvent.reason`` texts with
:func:`validation_reason`.

This module is ``src/ssegen/runtime/pydantic_support.py`` of ssegen, copied verbatim
into every package generated with ``model = "pydantic"``: edit it there, then run
``ssegen generate``.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import UnionType
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import msgspec
import pydantic

from .stream import OFF_SPEC_WIRE, Accumulator


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


def error_event(acc: Accumulator, event: Any) -> None:
    """``acc.error`` of a typed error message, as plain data."""
    acc.error(plain(event))


def vendor_event(acc: Accumulator, event: Any) -> None:
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


def lenient_decode_models(data: str, classes: Sequence[type]) -> Any | None:
    """``stream.lenient_decode`` for pydantic models: the event of a payload that is
    clearly one of ``classes`` but did not validate, with the members that fit validated
    and each one that does not kept raw in ``off_spec`` (JSON pointer -> value as sent;
    None for a missing required member); None when no class is clearly it."""
    try:
        raw = msgspec.json.decode(data)
    except msgspec.DecodeError:
        return None
    if not isinstance(raw, dict):
        return None
    best: tuple[int, Any] | None = None
    for cls in classes:
        score = _closeness(cls, raw)
        if score > 0 and (best is None or score > best[0]):
            best = (score, cls)
    if best is None:
        return None
    off: dict[str, Any] = {}
    event = _lenient_model(best[1], raw, "", off)
    event.off_spec = off
    return event


def _wire(name: str, field: Any) -> str:
    return str(field.alias or name)


def _closeness(cls: Any, raw: dict[str, Any]) -> int:
    """``stream._closeness`` for a model: required members present, 0 below half or when
    a tag differs."""
    present = required = 0
    for name, field in cls.model_fields.items():
        wire = _wire(name, field)
        required += field.is_required()
        if wire in raw:
            literal = _literal(field.annotation)
            if literal is not None and raw[wire] not in literal and raw[wire] is not None:
                return 0
            present += field.is_required()
    return present if 2 * present >= required else 0


def _literal(tp: Any) -> tuple[Any, ...] | None:
    if get_origin(tp) is Literal:
        return get_args(tp)
    if get_origin(tp) in (Union, UnionType):
        options = [a for a in get_args(tp) if a is not type(None)]
        if len(options) == 1 and get_origin(options[0]) is Literal:
            return get_args(options[0])
    return None


def _lenient_model(cls: Any, raw: dict[str, Any], pointer: str, off: dict[str, Any]) -> Any:
    kwargs: dict[str, Any] = {}
    for name, field in cls.model_fields.items():
        wire = _wire(name, field)
        if wire == OFF_SPEC_WIRE:
            continue
        place = pointer + "/" + wire.replace("~", "~0").replace("/", "~1")
        if wire not in raw:
            if field.is_required():
                off[place] = None
                kwargs[name] = None
            continue
        kwargs[name] = _lenient_value(field.annotation, raw[wire], place, off)
    return cls.model_construct(**kwargs)


def _tagged_as(model: Any, value: dict[str, Any]) -> bool:
    """False when ``model`` is a tagged-union alternative (a required ``Literal`` member)
    and ``value`` lacks its tag or gives another value: msgspec's ``tag_field`` rule."""
    for name, field in model.model_fields.items():
        literal = _literal(field.annotation)
        if (
            literal is not None
            and field.is_required()
            and value.get(_wire(name, field)) not in literal
        ):
            return False
    return True


def _lenient_value(tp: Any, value: Any, pointer: str, off: dict[str, Any]) -> Any:
    try:
        return pydantic.TypeAdapter(tp).validate_python(value, strict=True)
    except pydantic.ValidationError:
        pass
    if get_origin(tp) is Annotated:
        tp = get_args(tp)[0]
    options = get_args(tp) if get_origin(tp) in (Union, UnionType) else (tp,)
    for option in options:
        if (
            isinstance(option, type)
            and issubclass(option, pydantic.BaseModel)
            and isinstance(value, dict)
        ):
            if not _tagged_as(option, value):
                continue
            return _lenient_model(option, value, pointer, off)
        if get_origin(option) is list and isinstance(value, list):
            item = get_args(option)[0] if get_args(option) else Any
            return [_lenient_value(item, v, f"{pointer}/{i}", off) for i, v in enumerate(value)]
    off[pointer] = value
    return None
