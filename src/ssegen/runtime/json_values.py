"""Decoded JSON, typed: guards that narrow a value of unknown type to a JSON object or array.

``isinstance(value, dict)`` tells a type checker only ``dict[Unknown, Unknown]``; JSON objects
have string keys (RFC 8259, section 4), so :func:`is_object` narrows to ``dict[str, Any]`` and
:func:`is_array` to ``list[Any]``, and every later ``.get`` or loop over them is typed.

This module is ``src/ssegen/runtime/json_values.py`` of ssegen, written verbatim into every
output folder's runtime: edit it there, then run ``ssegen generate``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeGuard

__all__ = ["JSONObject", "is_array", "is_mapping", "is_object", "is_sequence"]

JSONObject = dict[str, Any]
"""A JSON object as decoded (msgspec, ``json``): member names to values."""


def is_object(value: object) -> TypeGuard[dict[str, Any]]:
    """Whether ``value`` is a JSON object as decoded (a ``dict``; its keys are strings)."""
    return isinstance(value, dict)


def is_array(value: object) -> TypeGuard[list[Any]]:
    """Whether ``value`` is a JSON array as decoded (a ``list``)."""
    return isinstance(value, list)


def is_sequence(value: object) -> TypeGuard[list[Any] | tuple[Any, ...]]:
    """Whether ``value`` is a JSON array as decoded or as a typed object holds one (a
    ``list``, or the ``tuple`` of a frozen class's array member)."""
    return isinstance(value, (list, tuple))


def is_mapping(value: object) -> TypeGuard[Mapping[str, Any]]:
    """Whether ``value`` is a JSON object as a caller builds one (any ``Mapping``: a request
    body, ``stream_options``)."""
    return isinstance(value, Mapping)
