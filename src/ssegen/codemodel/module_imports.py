"""The names a generated module imports from its package's ``models`` or ``requests`` module.

``channels.py`` and ``client.py`` import the classes they use by name (``from .models import
ErrorResponse, ...``), never the module through the package (``from . import models``): that
import goes through the package's ``__init__``, which imports ``channels`` and ``client``, an
import cycle that basedpyright reports (``reportImportCycles``). The code model's strings (decoder
adapters, unions, tables, guards, annotations) name the classes bare; the names a module imports
are those of its module's classes that occur in them.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable

__all__ = ["BOUND_NAMES", "TOKEN", "used_names"]

#: The names ``channels.py`` and ``client.py`` bind besides the classes they import (their other
#: imports): a model or request class never takes one (:meth:`~.models.ModelsBuilder` disambiguates).
BOUND_NAMES = frozenset(
    {
        *("Annotated", "Any", "Callable", "ClassVar", "Iterable", "Literal", "Mapping", "Sequence"),
        *("TYPE_CHECKING", "TypeVar", "Union", "cast", "overload", "msgspec", "pydantic", "httpx"),
        *("Encoding", "StatedText", "StreamTruncated", "UnknownEvent", "VendorEvent", "tag_reader"),
        *("Lines", "Sink", "ServerSentEvent", "Channel", "Classifier", "Run", "Auth", "Operation"),
        *("APIConnectionError", "APIError", "APIStatusError", "APITimeoutError", "AsyncStream", "Stream"),
        *("Client", "AsyncClient", "E"),
        *("Decode", "decoder_table", "decoder_tuples", "json_decoder", "model_decoder", "message_names", "named"),
    }
)

#: Fields holding prose (docstrings, summaries), whose words are not code.
_PROSE_FIELDS = frozenset({"doc", "docs", "summary", "title", "description", "provenance", "source"})
#: A Python identifier, or a quoted literal (skipped: ``Literal['Tool']`` names no class).
TOKEN = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|[A-Za-z_][A-Za-z0-9_]*")


def used_names(specs: Iterable[object], names: Iterable[str]) -> tuple[str, ...]:
    """The names of ``names`` (a module's class names) that occur as identifiers, outside quoted
    literals, in the strings of ``specs`` (code model dataclasses, walked through their fields,
    tuples, lists and dicts; prose fields skipped), sorted: what a module laying out ``specs``
    imports from that module."""
    wanted = frozenset(names)
    found: set[str] = set()
    pending: list[object] = list(specs)
    while pending:
        value = pending.pop()
        if isinstance(value, str):
            found.update(t for t in TOKEN.findall(value) if t in wanted)
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            pending.extend(getattr(value, f.name) for f in dataclasses.fields(value) if f.name not in _PROSE_FIELDS)
        elif isinstance(value, dict):
            pending.extend(value.keys())
            pending.extend(value.values())
        elif isinstance(value, (tuple, list, set, frozenset)):
            pending.extend(value)
    return tuple(sorted(found))
