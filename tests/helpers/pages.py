"""Helpers shared by the page-loader tests (markdown and HTML tables)."""

from __future__ import annotations

from ssegen.diagnostics import Diagnostics
from ssegen.ir import Message, Schema
from ssegen.sources.pages.messages import PageResult


def page_message(page: PageResult, name: str) -> Message:
    """The message ``name`` of the page's channel (fails the test if absent)."""
    assert page.channel is not None
    message = page.channel.message(name)
    assert message is not None, f"no message {name}"
    return message


def member_schema(schema: Schema, *path: str) -> Schema:
    """The schema at member ``path`` (array items are stepped through)."""
    for name in path:
        if schema.type == "array":
            assert schema.items is not None
            schema = schema.items
        prop = schema.property(name)
        assert prop is not None, f"no member {name} in {schema.name}"
        schema = prop.schema
    return schema


def diagnostic_lines(diags: Diagnostics, code: str) -> list[int]:
    """The lines of the diagnostics with ``code``, in sorted order."""
    return [d.line for d in diags.sorted() if d.code == code]
