"""Reconcile a provider's schemas with its own examples (a merge step).

When a documented example contradicts the schema, the example is what the
provider really sends (``specs/deepseek/api-docs.txt:395``: DeepSeek's docs stream ends with
``"delta": {"role": null}``, which the AsyncAPI schema does not allow).  The
schema is widened to admit it, and an ``example-widened`` warning names both
places: the example's file:line (the diagnostic's place) and the schema's JSON
pointer and file:line (in the message).  ``ssegen generate --strict`` turns
these warnings into errors.

Widening is by named object and member (``ChatCompletionDelta.role``), applied
to every use of that object, so one class stays one class.  Fixes: ``null`` ->
nullable; an unknown enum value -> added; a missing required member -> optional;
an unlisted member where ``additionalProperties: false`` -> allowed; a value of
another JSON type -> the member becomes a union of both types.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any

import jsonschema

from ..diagnostics import Diagnostics, codes
from ..ir import (
    Channel,
    Message,
    Property,
    Provenance,
    Provider,
    Schema,
    json_type,
    rewrite_payloads,
)
from .jsonschema import export_provider


@dataclass(frozen=True)
class _Fix:
    """A widening of member ``member`` of the object named ``owner`` ("" = root payload of ``message``)."""

    owner: str
    message: str
    member: str
    kind: str  # nullable | enum | optional | open | type
    value: Any = None


def reconcile_examples(provider: Provider, diagnostics: Diagnostics) -> Provider:
    """Widen ``provider``'s schemas until every example event validates.

    Examples are the messages' own ``examples`` and the harvested example
    streams.  Events that match no message of their channel are left for the
    generated decoder (they decode as unknown or vendor events) and reported
    as ``example-unmatched`` (info).

    Returns:
        A new :class:`Provider` (the same object when nothing needed widening).
    """
    for _ in range(5):  # a widening can expose a deeper violation; a few rounds settle it
        fixes = _collect(provider, diagnostics)
        if not fixes:
            return provider
        provider = _apply(provider, fixes)
    return provider


def _samples(provider: Provider) -> list[tuple[Channel, str, str, Provenance, Message | None]]:
    """(channel, SSE event type, data, where, message) for every example event; ``message``
    is the one a message's own example documents (None for an example stream's event,
    which is matched to the message it fits best)."""
    samples: list[tuple[Channel, str, str, Provenance, Message | None]] = []
    for channel in provider.channels:
        for message in channel.messages:
            for example in message.examples:
                samples.append((channel, message.event, example.data, example.provenance, message))
        for stream in provider.example_streams:
            if stream.channel != channel.address:
                continue
            for event in stream.events:
                if event.comment is None:
                    prov = Provenance(stream.provenance.file, event.line or stream.provenance.line, "")
                    samples.append((channel, event.event, event.data, prov, None))
    return samples


def _collect(provider: Provider, diagnostics: Diagnostics) -> list[_Fix]:
    """The fixes the provider's example events need, in example order, one each: for each
    JSON example, the errors of the message it comes closest to (:func:`_closest`), each
    one ``example-widened``; ``example-unmatched`` for data that is neither a literal
    message's nor JSON, and for JSON no candidate message claims."""
    schemas = export_provider(provider)
    fixes: list[_Fix] = []
    for channel, event_type, data, where, owner in _samples(provider):
        candidates = [owner] if owner is not None else [m for m in channel.messages if m.event == event_type]
        if any(m.kind in ("terminator", "keepalive") and data in m.payload.enum for m in candidates):
            continue
        try:
            instance = json.loads(data)
        except ValueError:
            diagnostics.add(
                codes.EXAMPLE_UNMATCHED,
                f"example data on {channel.address} is not JSON and matches no literal message",
                file=where.file,
                line=where.line,
            )
            continue
        best = _closest(candidates, instance, schemas, channel.address)
        if best is None:
            diagnostics.add(
                codes.EXAMPLE_UNMATCHED,
                f"example event {event_type!r} on {channel.address} matches no message",
                file=where.file,
                line=where.line,
            )
            continue
        _add_fixes(best[0], best[1], instance, where, fixes, diagnostics)
    return fixes


def _closest(
    candidates: list[Message], instance: Any, schemas: dict[str, Any], address: str
) -> tuple[Message, list[Any]] | None:
    """``(message, errors)``: of the JSON ``candidates`` that may claim ``instance`` (a vendor
    message only with its tag), the first with the fewest leaf validation errors against its
    exported JSON Schema (``schemas``, by channel ``address``), errors in instance path order;
    None when none may claim it."""
    best: tuple[Message, list[Any]] | None = None
    for message in candidates:
        if message.kind in ("terminator", "keepalive") or not _tag_matches(message, instance):
            continue
        schema = {"$defs": schemas["$defs"], **schemas["channels"][address][message.name]}
        errors = sorted(
            _leaf_errors(jsonschema.Draft202012Validator(schema).iter_errors(instance)),
            key=lambda e: [str(p) for p in e.absolute_path],
        )
        if best is None or len(errors) < len(best[1]):
            best = (message, errors)
    return best


def _add_fixes(
    message: Message, errors: list[Any], instance: Any, where: Provenance, fixes: list[_Fix], diagnostics: Diagnostics
) -> None:
    """Append to ``fixes`` the fix of each of ``message``'s ``errors`` on example ``instance``
    not already there, each one ``example-widened`` naming the value, its JSON pointer and
    the schema the fix widens."""
    reported: set[_Fix] = set()
    for error in errors:
        fix = _fix_for(message, error, instance)
        if fix is None or fix in reported or fix in fixes:
            # One diagnostic per fix, at the first example needing it (jsonschema also
            # reports a `null` twice, as type and as enum).
            continue
        reported.add(fix)
        schema_node, member = _locate(message.payload, list(error.absolute_path), fix, instance)
        place = _schema_place(schema_node, member)
        diagnostics.add(
            codes.EXAMPLE_WIDENED,
            f"example sends {json.dumps(error.instance, ensure_ascii=False)[:60]} at "
            f"{_pointer(error.absolute_path)} of {message.name}, "
            f"which the schema at {place} does not allow ({error.message}); widened: {fix.kind}",
            file=where.file,
            line=where.line,
            pointer=_pointer(error.absolute_path),
        )
        fixes.append(fix)


def _leaf_errors(errors: Any) -> list[Any]:
    """``errors`` with each ``anyOf``/``oneOf`` failure replaced by the errors of the
    alternative the value came closest to (a nullable object, ``anyOf: [object, null]``;
    a union's alternatives): not the ``null`` one for a value that is not null, then the
    one whose tag (a ``const`` or one-value ``enum``) fits, then the one with the fewest
    errors, so a fix lands on the member that is wrong, not on the union."""
    leaves: list[Any] = []
    for error in errors:
        if error.validator not in ("anyOf", "oneOf") or not error.context:
            leaves.append(error)
            continue
        branches: dict[Any, list[Any]] = {}
        for sub in error.context:
            branches.setdefault(sub.relative_schema_path[0], []).append(sub)
        best = min(
            branches.values(),
            key=lambda group: (
                all(e.validator == "type" and e.validator_value == "null" for e in group),
                sum(_is_tag_error(e) for e in group),
                len(group),
            ),
        )
        leaves.extend(_leaf_errors(best))
    return leaves


def _is_tag_error(error: Any) -> bool:
    """True for a value that is not the one a ``const`` or one-value ``enum`` fixes."""
    if error.validator == "const":
        return True
    return error.validator == "enum" and isinstance(error.validator_value, list) and len(error.validator_value) == 1


def _tag_matches(message: Message, instance: Any) -> bool:
    """A vendor message only claims instances carrying its tag value."""
    if message.kind != "vendor" or not isinstance(instance, dict):
        return True
    for prop in message.payload.properties:
        if prop.required and len(prop.schema.enum) == 1:
            return instance.get(prop.name) == prop.schema.enum[0]
    return True


def _fix_for(message: Message, error: Any, instance: Any = None) -> _Fix | None:
    path = list(error.absolute_path)
    validator = error.validator
    if validator == "required":
        missing = error.message.split("'")[1] if "'" in error.message else ""
        owner, _ = _owner(message.payload, path, instance)
        return _Fix(owner, message.name, missing, "optional")
    if validator == "additionalProperties":
        owner, _ = _owner(message.payload, path, instance)
        return _Fix(owner, message.name, "", "open")
    if not path or not isinstance(path[-1], str):
        return None
    owner, _ = _owner(message.payload, path[:-1], instance)
    member = path[-1]
    if error.instance is None and validator in ("type", "enum"):
        return _Fix(owner, message.name, member, "nullable")
    if validator == "enum":
        if isinstance(error.instance, (dict, list)):
            return None  # enums of objects are not modelled; the value stays a violation
        return _Fix(owner, message.name, member, "enum", error.instance)
    if validator == "type":
        return _Fix(owner, message.name, member, "type", json_type(error.instance))
    return None


def _owner(payload: Schema, path: list[Any], instance: Any = None) -> tuple[str, Schema]:
    """Name of the object schema an instance path lands in ("" for an unnamed root).

    A union on the way is entered through the alternative ``instance`` (the example) has
    at that place: the one its discriminator value names, else the only object one."""
    node = payload
    value = instance
    for token in path:
        node = _alternative(node, value)
        if isinstance(token, int) and node.type == "array" and node.items is not None:
            node = node.items
        elif isinstance(token, str):
            prop = node.property(token)
            if prop is None:
                break
            node = prop.schema
        else:
            break
        value = _step(value, token)
    node = _alternative(node, value)
    return node.name, node


def _alternative(node: Schema, value: Any) -> Schema:
    """``node``, or for a union the object alternative ``value`` belongs to."""
    if node.type != "union":
        return node
    tag = value.get(node.discriminator) if isinstance(value, dict) and node.discriminator else None
    return node.alternative(tag if isinstance(tag, str) else None) or node


def _step(value: Any, token: Any) -> Any:
    """The part of JSON ``value`` at one path token (None when absent)."""
    if isinstance(token, int) and isinstance(value, list) and 0 <= token < len(value):
        return value[token]
    if isinstance(token, str) and isinstance(value, dict):
        return value.get(token)
    return None


def _locate(payload: Schema, path: list[Any], fix: _Fix, instance: Any = None) -> tuple[Schema, Property | None]:
    _, owner = _owner(payload, path[:-1] if fix.kind in ("nullable", "enum", "type") else path, instance)
    return owner, owner.property(fix.member) if fix.member else None


def _schema_place(owner: Schema, member: Property | None) -> str:
    prov = member.provenance if member is not None else owner.provenance
    return f"{prov.file}:{prov.line} {prov.pointer or '/'}"


def _pointer(path: Any) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def _apply(provider: Provider, fixes: list[_Fix]) -> Provider:
    def widen_object(schema: Schema, message: Message, root: bool) -> Schema:
        if schema.type != "object" or not (schema.name or root):
            return schema
        owner_message = message.name if root and not schema.name else ""
        mine = [
            f for f in fixes if (f.owner and f.owner == schema.name) or (not f.owner and f.message == owner_message)
        ]
        if not mine:
            return schema
        props = []
        for prop in schema.properties:
            for fix in mine:
                if fix.member == prop.name:
                    prop = _widen_property(prop, fix)
            props.append(prop)
        open_ = any(f.kind == "open" for f in mine)
        return replace(schema, properties=tuple(props), additional_properties=schema.additional_properties or open_)

    return rewrite_payloads(provider, widen_object)


def _widen_property(prop: Property, fix: _Fix) -> Property:
    schema = prop.schema
    if fix.kind == "nullable":
        return replace(prop, schema=replace(schema, nullable=True))
    if fix.kind == "enum" and fix.value not in schema.enum and not isinstance(fix.value, (dict, list)):
        return replace(prop, schema=replace(schema, enum=schema.enum + (fix.value,)))
    if fix.kind == "optional":
        return replace(prop, required=False)
    if fix.kind == "type" and schema.type != fix.value:
        if schema.type == "union":
            variants = schema.variants + (Schema(fix.value, schema.provenance),)
            return replace(prop, schema=replace(schema, variants=variants))
        union = Schema(
            "union",
            schema.provenance,
            name=schema.name,
            description=schema.description,
            nullable=schema.nullable,
            variants=(replace(schema, nullable=False, description=""), Schema(fix.value, schema.provenance)),
        )
        return replace(prop, schema=union)
    return prop
