"""Small IR builders for the code-model tests: schemas, members, messages and channels in a line each."""

from __future__ import annotations

from ssegen.diagnostics import Diagnostics
from ssegen.ir import Channel, Message, MessageKind, Property, Provenance, Provider, Schema
from ssegen.normalize.accumulation import plan_accumulation
from ssegen.normalize.discrimination import plan_channel

HERE = Provenance("demo/spec.yaml", 1, "")


def string(*enum: str, nullable: bool = False, name: str = "") -> Schema:
    """A string schema, with ``enum`` values (an alias ``name``) when given."""
    return Schema("string", HERE, name=name, enum=enum, nullable=nullable)


def integer() -> Schema:
    return Schema("integer", HERE)


def array(items: Schema | None, *, max_items: int | None = None) -> Schema:
    return Schema("array", HERE, items=items, max_items=max_items)


def obj(name: str, *members: Property, pointer: str = "", nullable: bool = False) -> Schema:
    """An object schema named ``name`` (its class name) with ``members`` in order."""
    return Schema("object", Provenance("demo/spec.yaml", 1, pointer), name=name, properties=members, nullable=nullable)


def req(name: str, schema: Schema) -> Property:
    """A required member."""
    return Property(name, schema, True, "", HERE)


def opt(name: str, schema: Schema) -> Property:
    """An optional member."""
    return Property(name, schema, False, "", HERE)


def message(name: str, payload: Schema, kind: MessageKind = "data", event: str = "message") -> Message:
    return Message(name, kind, payload, HERE, event=event)


def done() -> Message:
    """The ``[DONE]`` terminator."""
    return message("Done", string("[DONE]"), kind="terminator")


def channel(*messages: Message, address: str = "/chat/completions") -> Channel:
    """A channel of ``messages`` with its discrimination and accumulation plans (as
    :func:`ssegen.load.load_provider` sets them)."""
    planned = plan_channel(Channel(address, messages, HERE), Diagnostics())
    return plan_accumulation(Provider("demo", (planned,), ()), Diagnostics()).channels[0]


def provider(*channels: Channel, title: str = "") -> Provider:
    return Provider("demo", channels, ("demo/spec.yaml",), title=title)
