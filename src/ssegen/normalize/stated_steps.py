"""One step of a stated plan (``x-ssegen-accumulate``, docs/accumulation.md) as written,
parsed to an :class:`ssegen.ir.AccumulateStep` or to what is wrong with it: the action, its
entries, the paths (member names joined by ``.``, ``[*]`` for every element), ``when`` tests,
``members`` and ``mode``. Whether the paths exist in the message's payload is
:mod:`ssegen.normalize.accumulation`'s to check.
"""

from __future__ import annotations

from typing import Any

from ..ir import ACCUMULATE_ACTIONS, EACH, AccumulateStep, Provenance, WhenTest, format_path

#: The block fields an ``append`` step adds to directly (any other name: a named text).
FIELDS = ("text", "thinking", "signature", "refusal", "arguments")

#: The block field names a ``choices`` plan may use for two of the choice fields.
CHOICE_ALIASES = {"text": "content", "thinking": "reasoning_content"}

#: The names ``members`` of ``open`` and ``tool_call`` may give.
MEMBERS = ("id", "name", "arguments", "partial_arguments", "kind", "call_id", "status", "type")

#: The ``mode`` of a ``usage`` step.
USAGE_MODES = ("merge", "replace")

#: The steps the other entries of a step go with (``action`` always).
_ENTRIES = ("action", "key", "value", "extra", "field", "variant", "when", "members", "mode")


def parse_path(text: Any) -> tuple[tuple[str, ...], str]:
    """``(segments, problem)`` of a plan path as written: member names joined by ``.``,
    ``[*]`` after a member for each element of it (``candidates[*].content.parts[*]``);
    ``problem`` is "" when the text is a path."""
    if not isinstance(text, str) or not text:
        return (), f"{text!r} is not a path (member names joined by `.`, `[*]` for every element)"
    segments: list[str] = []
    for part in text.split("."):
        name, _, rest = part.partition("[")
        rest = "[" + rest if rest else ""
        if not name and not (rest and segments):
            return (), f"path {text!r} has an empty segment"
        if name:
            segments.append(name)
        while rest:
            if not rest.startswith("[*]"):
                return (), f"path {text!r}: {rest!r} is not `[*]` (every element)"
            segments.append(EACH)
            rest = rest[3:]
    return tuple(segments), ""


def _members(stated: Any, action: str) -> tuple[list[tuple[str, tuple[str, ...]]], str]:
    """``((name, path), ...)`` of a step's ``members`` as written, and what is wrong ("" when
    nothing): a mapping of names to paths (``open`` and ``tool_call``: names from
    :data:`MEMBERS`; ``usage``: any name, the usage member it gives), or for ``usage`` a list
    of paths, each named by its last member (``[prompt_eval_count, eval_count]``)."""
    if isinstance(stated, list) and action == "usage":
        return _usage_members(stated)
    if not isinstance(stated, dict) or (stated and action not in ("open", "tool_call", "usage")):
        return [], f"members {stated!r}: only `open`, `tool_call` and `usage` read named members (a mapping)"
    members: list[tuple[str, tuple[str, ...]]] = []
    for name, text in stated.items():
        if action != "usage" and name not in MEMBERS:
            return [], f"members: {name!r} is not one of {', '.join(MEMBERS)}"
        if not isinstance(name, str) or not name:
            return [], f"members: {name!r} is not a name"
        path, problem = parse_path(text)
        if not problem and action == "usage" and EACH in path:
            problem = f"{text!r} reads every element ([*]); give one member"
        if problem:
            return [], f"members {name!r}: {problem}"
        members.append((name, path))
    return members, ""


def _usage_members(stated: list[Any]) -> tuple[list[tuple[str, tuple[str, ...]]], str]:
    """``((name, path), ...)`` of a ``usage`` step's ``members`` written as a list of paths,
    each named by its last member, and what is wrong: a path reading every element."""
    pairs = []
    for text in stated:
        path, problem = parse_path(text)
        if problem or EACH in path:
            return [], f"members: {problem or f'{text!r} reads every element ([*]); give one member'}"
        pairs.append((path[-1], path))
    return pairs, ""


def parse_step(item: Any, result: str, where: Provenance) -> tuple[AccumulateStep | None, str]:
    """The step a plan entry states, or None and what is wrong with it (the action, an
    entry, a field, a path segment, a ``when`` test, a member or the mode), checked in
    that order so that the first problem is the one reported."""
    if not isinstance(item, dict):
        return None, "a step must be a mapping with `action`"
    action = item.get("action")
    if action not in ACCUMULATE_ACTIONS:
        return None, f"action {action!r} is not one of {', '.join(ACCUMULATE_ACTIONS)}"
    unknown = [str(k) for k in item if k not in _ENTRIES]
    if unknown:
        return None, f"entry {unknown[0]!r} is not one of {', '.join(_ENTRIES)}"
    paths, problem = _step_paths(item)
    if problem:
        return None, problem
    field, problem = _step_field(item, action, result)
    problem = problem or _missing_value(item, action, paths) or _result_problem(item, action, result)
    if problem:
        return None, problem
    pair, problem = _step_variant(item)
    if problem:
        return None, problem
    when, problem = _step_when(item)
    if problem:
        return None, problem
    members, problem = _members(item.get("members", {}), action)
    problem = problem or _every_element(paths, when, members, action)
    if problem:
        return None, problem
    mode, problem = _step_mode(item, action)
    if problem:
        return None, problem
    return (
        AccumulateStep(
            action,
            key=paths.get("key", ()),
            value=paths.get("value", ()),
            field=field,
            variant=pair,
            extra=paths.get("extra", ()),
            when=tuple(when),
            members=tuple(members),
            mode=mode,
            provenance=where,
        ),
        "",
    )


def _step_paths(item: dict[Any, Any]) -> tuple[dict[str, tuple[str, ...]], str]:
    """``(paths, problem)``: the step's ``key``, ``value`` and ``extra`` paths that it states,
    parsed (:func:`parse_path`), or what is wrong with the first that is not a path."""
    paths: dict[str, tuple[str, ...]] = {}
    for name in ("key", "value", "extra"):
        if name in item:
            path, problem = parse_path(item[name])
            if problem:
                return {}, f"{name}: {problem}"
            paths[name] = path
    return paths, ""


def _step_field(item: dict[Any, Any], action: str, result: str) -> tuple[str, str]:
    """``(field, problem)``: the step's ``field``, a name where ``append`` and ``collect``
    need one; in a ``choices`` plan a block field name is the choice field it stands for
    (:data:`CHOICE_ALIASES`)."""
    field = item.get("field", "")
    if not isinstance(field, str) or (action in ("append", "collect") and not field.isidentifier()):
        return "", f"field {field!r} is not a name (append and collect need one: {', '.join(FIELDS)} or any other)"
    if result == "choices":
        field = CHOICE_ALIASES.get(field, field)
    return field, ""


def _missing_value(item: dict[Any, Any], action: str, paths: dict[str, tuple[str, ...]]) -> str:
    """What is wrong when an action that reads a value states no ``value`` path (a ``usage``
    step may state ``members`` instead); "" else."""
    needs_value = ("append", "collect", "tool_call", "tool_calls", "usage", "complete", "snapshot", "final_text")
    if action not in needs_value or "value" in paths or (action == "usage" and item.get("members")):
        return ""
    return f"action {action!r} needs a `value` path" + (" or `members`" if action == "usage" else "")


#: The actions of one kind of plan only: a ``choices`` plan has no blocks to close or send
#: deltas to, an ``output`` plan no chat-completions tool-call fragments.
_NOT_IN = {"choices": ("delta", "close"), "output": ("tool_calls",)}


def _result_problem(item: dict[Any, Any], action: str, result: str) -> str:
    """What is wrong when ``action`` has no meaning where the plan's keyed steps assemble
    (``result``), or names ``members`` a choice has not; "" else."""
    if action in _NOT_IN.get(result, ()):
        other = "output" if result == "choices" else "choices"
        return f"action {action!r} is for a `result: {other}` plan (this one assembles {result})"
    if action == "open" and result == "choices" and item.get("members"):
        return "members: a choice's `open` makes the choice; it has no members to read"
    return ""


def _every_element(
    paths: dict[str, tuple[str, ...]],
    when: list[tuple[tuple[str, ...], WhenTest]],
    members: list[tuple[str, tuple[str, ...]]],
    action: str,
) -> str:
    """What is wrong when a path other than ``key`` and ``value`` reads every element (``[*]``):
    ``extra``, ``when`` and ``members`` read one member; "" else."""
    named = [("extra", paths.get("extra", ()))] + [(f"when {format_path(p)!r}", p) for p, _ in when]
    named += [(f"members {name!r}", p) for name, p in members if action != "usage"]
    for what, path in named:
        if EACH in path:
            return f"{what}: {format_path(path)!r} reads every element ([*]); only `key` and `value` may"
    return ""


def _step_variant(item: dict[Any, Any]) -> tuple[tuple[str, str] | None, str]:
    """``(variant, problem)``: the step's ``variant``, one ``member: tag value`` pair (the
    union alternative its ``value`` path enters), None when not stated."""
    variant = item.get("variant")
    if variant is None:
        return None, ""
    if not isinstance(variant, dict) or len(variant) != 1:
        return None, f"variant {variant!r} is not one `member: tag value` pair"
    member, value = next(iter(variant.items()))
    return (str(member), str(value)), ""


def _step_when(item: dict[Any, Any]) -> tuple[list[tuple[tuple[str, ...], WhenTest]], str]:
    """``(tests, problem)``: the step's ``when``, a mapping of member paths to the value each
    must have, ``{not: value}`` or ``{present: true|false}``, as ``(path, test)`` pairs."""
    when: list[tuple[tuple[str, ...], WhenTest]] = []
    stated = item.get("when", {})
    if not isinstance(stated, dict):
        return [], f"when {stated!r} is not a mapping of member paths to values"
    for text, expected in stated.items():
        path, problem = parse_path(text)
        if problem:
            return [], f"when: {problem}"
        test, problem = _when_test(text, expected)
        if problem:
            return [], problem
        when.append((path, test))
    return when, ""


def _when_test(text: Any, expected: Any) -> tuple[WhenTest, str]:
    """``(test, problem)`` of the value stated for ``when`` path ``text``: ``("eq", value)``
    for a plain value, ``("not", value)`` or ``("present", flag)`` for a one-entry mapping."""
    if not isinstance(expected, dict):
        return ("eq", expected), ""
    if len(expected) != 1 or next(iter(expected)) not in ("not", "present"):
        tests = "`{not: value}` or `{present: true|false}`"
        return ("eq", None), f"when {text!r}: {expected!r} is not a value, {tests}"
    test, value = next(iter(expected.items()))
    if test == "present" and not isinstance(value, bool):
        return ("eq", None), f"when {text!r}: present must be true or false, not {value!r}"
    return (test, value), ""


def _step_mode(item: dict[Any, Any], action: str) -> tuple[Any, str]:
    """``(mode, problem)``: the step's ``mode`` as stated, which only ``usage`` has (:data:`USAGE_MODES`)."""
    mode = item.get("mode", "")
    if mode and (action != "usage" or mode not in USAGE_MODES):
        return "", f"mode {mode!r}: only `usage` has a mode, `merge` or `replace`"
    return mode, ""
