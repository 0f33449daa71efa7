"""Plans of messages whose accumulation steps are all :attr:`~ssegen.ir.AccumulateStep.simple`
(the Messages and Responses families, stated plans): each step one statement on ``chunk`` and
``acc`` under the guards its path needs (:func:`step_feeds`). Steps that are not simple are
compiled by :mod:`.plans` or run by the executor (:func:`.accumulation.executor_plan`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace

from ..ir import EACH, AccumulateStep, Schema, resolve_path
from ..naming import PythonIdentifier
from .accumulation import ApplyPlan, Feed, kept_path, replaces_usage
from .models import field_identifiers

#: The block fields an ``append`` step adds to directly (any other name: ``add_text``).
BLOCK_FIELDS = ("text", "thinking", "signature", "refusal", "arguments")


def steps_plan(
    payload: Schema,
    cls: str,
    function: PythonIdentifier,
    steps: tuple[AccumulateStep, ...],
    class_of: Callable[[Schema], str | None],
    plain: str = "{}",
) -> ApplyPlan:
    """The plan of a message of a block family (or a stated plan): its ``steps``
    (:class:`ssegen.ir.AccumulateStep`) as statements (:func:`step_feeds`)."""
    return ApplyPlan(
        function=function,
        cls=cls,
        meta=None,
        choices=None,
        usage=None,
        full_text=None,
        steps=step_feeds(payload, steps, class_of, plain),
        keep_usage=kept_path(payload, steps),
        usage_replaced=replaces_usage(steps),
    )


def step_feeds(
    payload: Schema, steps: tuple[AccumulateStep, ...], class_of: Callable[[Schema], str | None], plain: str = "{}"
) -> tuple[Feed, ...]:
    """Each step as a statement on ``chunk`` (the event) and ``acc``, under the guards its
    path needs: a member that may be None is bound and tested, a union alternative is
    tested with ``isinstance`` against its class (``class_of``); a step whose path
    cannot be read from the typed classes is left out.

    Consecutive steps whose paths first test the same union member against different
    alternatives (Messages' ``text_delta``, ``thinking_delta``, ...) are chained
    (``elif``): at most one alternative class matches, and no statement changes the event.

    Runtime calls (``ssegen/runtime/accumulate.py``): ``acc.meta``, ``blocks[key]`` (``blocks``
    is ``acc.blocks``, bound once per handler: :attr:`ApplyPlan.reads_blocks`) then
    ``.open(value)``, ``.<field>.append(text)`` or ``.close()``, ``acc.stop_reason =``,
    ``acc.merge_usage``, ``acc.done()``, ``acc.error(chunk)``.
    """
    names = (f"v{i}" for i in range(1000))
    feeds: list[Feed] = []
    previous: tuple[str, str] | None = None  # the first union test of the previous feed
    for step in steps:
        tests: list[tuple[str, str]] = []
        read = _step_reads(payload, step, class_of, names, tests)
        if read is None:
            continue
        guards, key, value = read
        if step.action == "meta":
            feeds += _meta_feeds(payload, step, guards, value, class_of, names)
            previous = None
            continue
        statement = _step_statement(step, key, value, plain)
        if step.action == "delta":
            # The alternatives the chain above did not take, as an ``else``: only after
            # a chain testing this very member (else every delta would be added twice).
            if previous is not None and previous[0] == value and not guards:
                feeds.append(Feed(None, statement, chained=True))
            previous = None
            continue
        first = tests[0] if tests and guards and guards[0].startswith("isinstance(") else None
        chained = first is not None and previous is not None and first[0] == previous[0] and first[1] != previous[1]
        feeds.append(replace(_guarded(guards, statement), chained=chained))
        previous = first
    return tuple(feeds)


def _step_reads(
    payload: Schema,
    step: AccumulateStep,
    class_of: Callable[[Schema], str | None],
    names: Iterator[str],
    tests: list[tuple[str, str]],
) -> tuple[list[str], str, str] | None:
    """``(guards, key, value)`` of ``step`` (:func:`_step_path`, key first; ``None`` for a
    path the step has not); None when the typed classes cannot read one of them."""
    guards: list[str] = []
    key = value = "None"
    if step.key:
        read = _step_path(payload, step.key, None, class_of, names, tests)
        if read is None:
            return None
        guards, key = read
    if step.value:
        read = _step_path(payload, step.value, step.variant, class_of, names, tests)
        if read is None:
            return None
        guards, value = guards + read[0], read[1]
    return guards, key, value


def _meta_feeds(
    payload: Schema,
    step: AccumulateStep,
    guards: list[str],
    value: str,
    class_of: Callable[[Schema], str | None],
    names: Iterator[str],
) -> list[Feed]:
    """The feeds of a ``meta`` step: ``acc.meta`` of its value (the id, read under ``guards``)
    and of its ``extra`` (the model), each on its own so that either may be absent."""
    # The model's union tests chain nothing: its feed is never chained.
    extra = _step_path(payload, step.extra, None, class_of, names, []) if step.extra else None
    feeds = [_guarded(guards, f"acc.meta({value}, None)")] if step.value else []
    if extra is not None:
        feeds.append(_guarded(extra[0], f"acc.meta(None, {extra[1]})"))
    return feeds


def _step_statement(step: AccumulateStep, key: str, value: str, plain: str) -> str:
    """The statement of a block-family step (not ``meta``) on ``blocks[key]`` or ``acc``."""
    return {
        "open": f"blocks[{key}].open({plain.format(value)})",
        "append": (
            f"blocks[{key}].{step.field}.append({value})"
            if step.field in BLOCK_FIELDS
            else f"blocks[{key}].add_text({step.field!r}, {value})"
        ),
        "delta": f"blocks[{key}].add_delta({plain.format(value)})",
        "close": f"blocks[{key}].close({plain.format(value) if step.value else ''})",
        "snapshot": f"acc.snapshot({plain.format(value)})",
        "stop": f"acc.stop_reason = {value}",
        "usage": f"acc.merge_usage({plain.format(value)})",
        "done": "acc.done()",
        "error": f"acc.error({plain.format('chunk')})",
    }[step.action]


def _guarded(guards: list[str], statement: str) -> Feed:
    return Feed(" and ".join(guards) if guards else None, statement)


def _step_path(
    payload: Schema,
    path: tuple[str, ...],
    variant: tuple[str, str] | None,
    class_of: Callable[[Schema], str | None],
    names: Iterator[str],
    tests: list[tuple[str, str]],
) -> tuple[list[str], str] | None:
    """``(guards, expression)`` reading member ``path`` of ``chunk``; None when the typed
    classes cannot read it (a member typed as any JSON on the way, an array, a union with no
    discriminator, an alternative without a class). The path is walked by
    :func:`ssegen.ir.resolve_path`; each union test (expression, class) is appended to
    ``tests``."""
    found = resolve_path(payload, path, variant)
    if found.schema is None or len(found.nodes) != len(path):
        return None
    guards: list[str] = []
    expr = "chunk"
    reached = payload  # the schema the previous segment reached (a union before its alternative)
    for depth, (name, owner) in enumerate(found.nodes):
        if name == EACH:
            return None
        if reached.type == "union":
            cls = class_of(owner) if reached.discriminator else None
            if cls is None:
                return None
            bound = next(names)
            tests.append((expr, cls))
            guards.append(f"isinstance({bound} := {expr}, models.{cls})")
            expr = bound
        prop = owner.property(name)
        if owner.type != "object" or not owner.properties or prop is None:
            return None
        expr = f"{expr}.{field_identifiers(owner)[name]}"
        next_is_union = depth + 1 < len(path) and prop.schema.type == "union"
        if (not prop.required or prop.schema.nullable) and not next_is_union:
            bound = next(names)
            guards.append(f"({bound} := {expr}) is not None")
            expr = bound
        reached = prop.schema
    return guards, expr
