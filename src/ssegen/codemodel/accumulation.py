"""Each message's run function: its accumulation plan (``ssegen.ir.Accumulation``) compiled by
:func:`ssegen.codemodel.plans.compile_steps`, and what the decoder and the classes need for it
(the usage object kept as sent, the members a step reads that the spec does not declare).

Every family goes this one way: the chat family's plan (``ssegen.normalize.accumulation.chat_plan``),
the block families', Gemini's and Cohere's, and a spec's stated plan (``x-ssegen-accumulate``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..ir import EACH, AccumulateStep, Schema, resolve_path
from ..naming import PythonIdentifier
from .models import field_identifiers
from .plan_texts import bound_texts
from .plans import compile_steps
from .reads import Types

#: A statement reading the run function's loop variable.
_READS_CHUNK = re.compile(r"\bchunk\b")

#: The runs table rows of the runtime's own events, which every channel's runs table ends with and
#: the runtime's ``Channel`` adds itself (``stream.EVERY_CHANNEL_RUNS``), so ``_APPLY_<CHANNEL>``
#: leaves them out. ``StreamTruncated`` ends a stream whose body ended inside an event.
EVERY_CHANNEL_RUNS = (("UnknownEvent", "each(on_unknown)"), ("StreamTruncated", "each(on_truncated)"))


@dataclass(frozen=True)
class ApplyPlan:
    """How one data message feeds the accumulator: its run function.

    Attributes:
        function: the generated run function: feeds consecutive events of the message into
            the accumulator (one event is a run of one; runtime ``stream.Run``).
        cls: the message's class.
        statements: the body of the run function's ``for chunk in chunks`` loop, one block of
            lines per statement (:class:`ssegen.codemodel.plans.Compiled`).
        before: the lines binding what the statements read before the loop.
        after: the lines the run function runs once its loop is left (in ``finally``).
        undeclared: ``(owner schema, wire name)`` of each member the plan reads that the spec
            does not declare (the chunk's ``error`` object, a delta's ``reasoning_content``):
            the class of ``owner`` gets it (``ModelsBuilder.add_error_member``, ``add_member``).
        error_attr: the identifier of the top-level ``error`` member an ``error`` step reads
            (the batch decoder's guard, ``channels._guarded``); "" without one.
        keep_usage: the path of the ``usage`` object a step reads, whose object as sent
            (every member, the unlisted ones included) the decoder keeps (:func:`kept_path`);
            "" without usage.
        usage_replaced: every ``usage`` step of the plan replaces the object (``mode:
            replace``): the last one sent is the one read.
        deltas: the delta objects whose members a step appends (a chat choice's ``delta``, a
            Messages block's ``delta``): their classes keep the members the spec does not
            list (``ModelsBuilder.keep_unlisted``, :func:`delta_objects`).
    """

    function: PythonIdentifier
    cls: str
    statements: tuple[str, ...] = ()
    before: tuple[str, ...] = ()
    after: tuple[str, ...] = ()
    undeclared: tuple[tuple[Schema, str], ...] = ()
    error_attr: str = ""
    keep_usage: str = ""
    usage_replaced: bool = False
    deltas: tuple[Schema, ...] = ()

    @property
    def loop_indent(self) -> int:
        """How much deeper than usual the run function's loop is: 4 inside the ``try`` of
        an ``after`` block, else 0."""
        return 4 if self.after else 0

    @property
    def reads_nothing(self) -> bool:
        """True when the plan gives the message no statement."""
        return not self.statements

    @property
    def loop_target(self) -> str:
        """The loop's name for each event: ``chunk``, or ``_chunk`` when no statement reads it
        (a ``done`` step alone), so that no checker reports an unused variable."""
        return "chunk" if any(_READS_CHUNK.search(code) for code in self.statements) else "_chunk"


def message_plan(
    payload: Schema,
    cls: str,
    function: PythonIdentifier,
    steps: tuple[AccumulateStep, ...],
    choices: bool,
    types: Types,
    plain: str = "{}",
) -> ApplyPlan:
    """The run function of a message of ``payload`` (class ``cls``) whose plan is ``steps``:
    keyed steps assemble choices when ``choices`` (else output blocks); ``types`` are the
    generated classes; ``plain`` wraps a value the runtime turns into plain data (the flavour's
    conversion)."""
    compiled = compile_steps(payload, steps, choices, types, plain)
    statements, before = bound_texts(compiled.statements, compiled.before)
    return ApplyPlan(
        function=function,
        cls=cls,
        statements=statements,
        before=before,
        after=compiled.after,
        undeclared=compiled.undeclared,
        error_attr=_error_attr(payload, steps, compiled.undeclared),
        keep_usage=kept_path(payload, steps),
        usage_replaced=replaces_usage(steps),
        deltas=delta_objects(payload, steps),
    )


def delta_objects(payload: Schema, steps: tuple[AccumulateStep, ...]) -> tuple[Schema, ...]:
    """The schemas of the ``delta`` objects whose members ``steps`` append (a step reading
    ``(..., "delta", member)``: ``choices[*].delta.content``, Messages ``delta.text``), each
    once, when it is an object with members or a union of such; Cohere's ``delta.message``
    and Responses' string ``delta`` are not."""
    found: dict[Schema, None] = {}
    for step in steps:
        if step.action != "append" or len(step.value) < 2 or step.value[-2] != "delta":
            continue
        schema = resolve_path(payload, step.value[:-1]).schema
        if schema is not None and (schema.properties or schema.type == "union"):
            found[schema] = None
    return tuple(found)


def _error_attr(payload: Schema, steps: tuple[AccumulateStep, ...], undeclared: tuple[tuple[Schema, str], ...]) -> str:
    """The identifier of the top-level ``error`` member an ``error`` step reads: the declared
    one's, or ``error`` (the member the class gets); "" when no step reads one."""
    if not any(step.action == "error" and step.value == ("error",) for step in steps):
        return ""
    prop = payload.property("error")
    if prop is not None:
        return str(field_identifiers(payload)[prop.name])
    return "error" if (payload, "error") in undeclared else ""


def kept_path(payload: Schema, steps: tuple[AccumulateStep, ...]) -> str:
    """The path of the usage object a ``usage`` step reads, as ``keep_usage`` takes it
    (``usage_metadata:usageMetadata``: identifier and wire name where they differ), when
    every member on the way is an object member; "" else."""
    for step in steps:
        if step.action != "usage" or not step.value or EACH in step.value or step.members:
            continue
        found = resolve_path(payload, step.value)
        if found.schema is None or found.schema.type != "object" or len(found.nodes) != len(step.value):
            return ""
        segments = []
        reached = payload
        for name, owner in found.nodes:
            prop = owner.property(name) if owner is reached and owner.type == "object" else None
            if prop is None:
                return ""  # a union (or an array) on the way
            ident = str(field_identifiers(owner)[name])
            segments.append(name if ident == name else f"{ident}:{name}")
            reached = prop.schema
        return ".".join(segments)
    return ""


def replaces_usage(steps: tuple[AccumulateStep, ...]) -> bool:
    """True when ``steps`` hold a ``usage`` step and each replaces the object (``mode:
    replace``): a run's last usage object is then the only one read."""
    modes = {step.mode for step in steps if step.action == "usage"}
    return modes == {"replace"}


def usage_schema(payload: Schema, path: str) -> Schema | None:
    """The schema of the usage object at dotted member ``path`` (see :func:`kept_path`;
    a segment may be ``identifier:wire``)."""
    return resolve_path(payload, tuple(s.partition(":")[2] or s for s in path.split("."))).schema
