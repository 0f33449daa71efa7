"""Names: turn spec strings into Python class names and identifiers, once.

Following openapi-python-client, identifiers are types: a :class:`ClassName` or
:class:`PythonIdentifier` is sanitized, cased and de-keyworded at construction,
so a template cannot emit a raw spec string as a name.
"""

from __future__ import annotations

import difflib
import hashlib
import re
import unicodedata

#: Python's hard keywords, the union over every version ssegen supports (3.11 and later: the
#: list has not changed since 3.7's ``async``/``await``). Only these are renamed: soft keywords
#: (``match``, ``case``, ``_``, and ``type`` from 3.12) are valid attribute and field names, and
#: renaming them by the running interpreter's ``keyword.issoftkeyword`` made the output depend
#: on the Python that ran ``generate`` (``event.type`` on 3.11, ``event.type_`` on 3.12).
HARD_KEYWORDS = frozenset(
    {"False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue"}
    | {"def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in"}
    | {"is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield"}
)

# Digits stay with the word they follow (``v1``, ``gpt4``, ``ID2``), as people write them.
_WORD = re.compile(r"[A-Z]+(?![a-z])[0-9]*|[A-Z]?[a-z]+[0-9]*|[0-9]+[a-z]*")


def words(text: str) -> list[str]:
    """Split ``text`` into words at case changes and non-alphanumerics; digits belong to the
    word before them (``/v1/messages`` -> ``v1_messages``, not ``v_1_messages``).

    >>> words("chat.completion_chunk-deltaID2 /v1/messages 2nd")
    ['chat', 'completion', 'chunk', 'delta', 'ID2', 'v1', 'messages', '2nd']
    """
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return _WORD.findall(ascii_text)


def pascal(text: str) -> str:
    """PascalCase of ``text`` (``finish_reason`` -> ``FinishReason``); "" if no word."""
    return "".join(w[:1].upper() + w[1:] for w in words(text))


def snake(text: str) -> str:
    """snake_case of ``text`` (``bundleId`` -> ``bundle_id``); "" if no word."""
    return "_".join(w.lower() for w in words(text))


def singular(word: str) -> str:
    """A naive English singular for naming array items (``choices`` -> ``choice``).

    Only the plural forms seen in API field names are handled: ``-ies``,
    ``-sses``/``-xes``/``-ches``/``-shes`` and a plain trailing ``s``.
    """
    lower = word.lower()
    if lower.endswith("ies") and len(word) > 3:
        return word[:-3] + ("Y" if word[-3].isupper() else "y")
    if lower.endswith(("sses", "xes", "ches", "shes")):
        return word[:-2]
    if lower.endswith("s") and not lower.endswith("ss") and len(word) > 1:
        return word[:-1]
    return word


class ClassName(str):
    """A valid, non-keyword PascalCase Python class name built from any spec string.

    A name starting with a digit gets the prefix given (``1st`` -> ``Schema1st``);
    an empty result becomes the prefix itself.  A keyword (``None``, ``True``)
    or a name the generated ``models`` module imports (``Any``, ``Literal``,
    ``Annotated``; see :data:`RESERVED_CLASS_NAMES`) gets a trailing underscore,
    so a spec's ``Any`` schema cannot shadow ``typing.Any``.
    """

    def __new__(cls, text: str, prefix: str = "Schema") -> ClassName:
        name = pascal(text)
        if not name or name[0].isdigit():
            name = prefix + name
        if name in HARD_KEYWORDS or name in RESERVED_CLASS_NAMES:
            name += "_"
        return str.__new__(cls, name)

    @classmethod
    def verbatim(cls, text: str) -> ClassName:
        """``text`` taken as written: a name composed of class names already made
        (``ChunkAlt``, ``DoneEvent``), checked instead of re-cased.

        Raises:
            ValueError: ``text`` is not an identifier, or is a keyword or reserved name.
        """
        return str.__new__(cls, _checked(text, RESERVED_CLASS_NAMES))


class PythonIdentifier(str):
    """A valid, non-keyword snake_case Python identifier built from any spec string.

    Hard keywords (:data:`HARD_KEYWORDS`; never soft ones such as ``type`` or ``match``) and
    the names in :data:`RESERVED_IDENTIFIERS` get a trailing underscore (``class`` ->
    ``class_``, ``str`` -> ``str_``); a leading digit gets the prefix (``1st`` -> ``field_1st``).
    """

    def __new__(cls, text: str, prefix: str = "field") -> PythonIdentifier:
        name = snake(text)
        if not name:
            name = prefix
        elif name[0].isdigit():
            name = f"{prefix}_{name}"
        if name in HARD_KEYWORDS or name in RESERVED_IDENTIFIERS:
            name += "_"
        return str.__new__(cls, name)

    @classmethod
    def verbatim(cls, text: str) -> PythonIdentifier:
        """``text`` taken as written: an identifier composed of generated prefixes and
        identifiers already made (``_decode_chunk_chat_completions``, ``x_y_``), checked
        instead of re-cased.

        Raises:
            ValueError: ``text`` is not an identifier, or is a keyword.
        """
        return str.__new__(cls, _checked(text, frozenset()))


def distinct_identifiers(names: list[str] | tuple[str, ...], prefix: str = "field") -> dict[str, PythonIdentifier]:
    """Spec string -> a :class:`PythonIdentifier` distinct from the others' (channel addresses,
    a channel's message names), so that no generated function or table is defined twice.

    Names whose identifiers coincide (``/v1/chat`` and ``/v1-chat``; ``delta-event`` and
    ``DeltaEvent``) each get a suffix of six hex digits of the SHA-256 of the spec string,
    except one that is exactly its identifier already: stable under reordering and under
    names added elsewhere.
    """
    groups: dict[str, list[str]] = {}
    for raw in dict.fromkeys(names):
        groups.setdefault(PythonIdentifier(raw, prefix), []).append(raw)
    result: dict[str, PythonIdentifier] = {}
    for ident, raws in groups.items():
        for raw in raws:
            if len(raws) == 1 or raw == ident:
                result[raw] = PythonIdentifier.verbatim(ident)
            else:
                digest = hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()[:6]
                result[raw] = PythonIdentifier.verbatim(f"{ident}_{digest}")
    return result


def _checked(text: str, reserved: frozenset[str]) -> str:
    """``text`` when it is a Python identifier that is neither a keyword nor in ``reserved``."""
    if not text.isidentifier() or text in HARD_KEYWORDS or text in reserved:
        raise ValueError(f"not a usable Python name: {text!r}")
    return text


def is_package_name(name: str) -> bool:
    """True when ``name`` can be a Python package name (an identifier, not a keyword)."""
    return name.isidentifier() and name.isascii() and name not in HARD_KEYWORDS


#: Names a generated field (``msgspec.Struct`` or pydantic ``BaseModel``) must not take: a
#: class-body name shadows, for the annotations and defaults after it, the module-level names
#: those use (``msgspec.field``, ``pydantic.Field``, ``str | None``), and ``self``/``cls`` read badly.
RESERVED_IDENTIFIERS = frozenset(
    {"self", "cls", "msgspec", "pydantic", "str", "int", "float", "bool", "list", "dict"}
    # pydantic.BaseModel's public attributes (pydantic 2.x): a field of that name would shadow
    # one, so it is renamed in every flavour and field names stay the same across flavours.
    | {"construct", "copy", "dict", "from_orm", "json", "parse_file", "parse_obj", "parse_raw", "schema"}
    | {"schema_json", "update_forward_refs", "validate", "model_computed_fields", "model_config"}
    | {"model_construct", "model_copy", "model_dump", "model_dump_json", "model_extra", "model_fields"}
    | {"model_fields_set", "model_json_schema", "model_parametrized_name", "model_post_init"}
    | {"model_rebuild", "model_validate", "model_validate_json", "model_validate_strings"}
)

#: Names a generated class must not take: what the ``models`` module imports.
RESERVED_CLASS_NAMES = frozenset({"Annotated", "Any", "Literal"})


def did_you_mean(name: str, names: list[str]) -> str:
    """``; did you mean 'deepseek'?`` for the one of ``names`` closest to a mistyped ``name``
    (:func:`difflib.get_close_matches`), or "" when none is close."""
    close = difflib.get_close_matches(name, names, n=1)
    return f"; did you mean {close[0]!r}?" if close else ""
