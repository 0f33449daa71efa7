"""What a spec change does to a channel's accumulation plan: the changes that make the
generated accumulator give wrong or incomplete results (critical), and what it assembles anew.

Read from the plans in the IR (:class:`ssegen.ir.Accumulation`, built by
:mod:`ssegen.normalize.accumulation`), message by message through the pairs of
:func:`ssegen.diff.messages.match_messages`:

* the stream's end: the terminator messages and the messages with a ``done`` or ``complete``
  step. One gone, renamed so that an older package does not recognize it, or no longer ending
  the stream: ``stream-end-removed``, ``stream-end-changed`` (streams end ``complete=False``);
* usage: a message with a ``usage`` step whose counterpart has none while another message has
  one: ``usage-moved``;
* every other step of the old plan: a path it reads that resolved in the old payload and does
  not in the new one (:func:`ssegen.ir.resolve_path`): ``accumulated-member-lost``; a step the
  new plan no longer has though its paths resolve: ``accumulation-step-dropped``; a message with
  steps gone or unrecognized: ``accumulated-message-lost``;
* steps and plans only the new spec has: ``accumulation-added`` (compatible).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..ir import EACH, AccumulateStep, Accumulation, Channel, Message, Schema, format_path, resolve_path
from .changes import (
    ACCUMULATED_MEMBER_LOST,
    ACCUMULATED_MESSAGE_LOST,
    ACCUMULATION_ADDED,
    ACCUMULATION_STEP_DROPPED,
    STREAM_END_CHANGED,
    STREAM_END_REMOVED,
    USAGE_MOVED,
    Change,
    Kind,
)
from .messages import Pair, describe_identity, shared_tags, wire_identity

#: The actions that end a stream.
ENDING = ("done", "complete")

#: What a step of each action feeds, for the texts.
_FEEDS = {
    "meta": "the id and model",
    "open": "the blocks",
    "append": "the assembled text",
    "collect": "the collected values",
    "delta": "the blocks' deltas",
    "tool_call": "the tool calls",
    "tool_calls": "the tool calls",
    "close": "the blocks' status",
    "snapshot": "the finished blocks",
    "stop": "the stop reason",
    "usage": "result.usage",
    "done": "complete",
    "complete": "complete",
    "error": "result.errors",
}


@dataclass(frozen=True)
class StreamView:
    """One channel compared: its two sides, the message pairs, and which new messages an older
    package still recognizes (decodes their payloads as their old message).

    Attributes:
        provider: the provider's name.
        old, new: the channel in the old and the new spec.
        pairs: :func:`ssegen.diff.messages.match_messages` of the two.
        recognized: new message name -> False when an older package decodes its payloads as
            another message or as an unknown event (absent: recognized, or nothing to tell by).
    """

    provider: str
    old: Channel
    new: Channel
    pairs: list[Pair]
    recognized: dict[str, bool]

    def change(
        self, kind: Kind, text: str, message: Message | None, *, old: Message | None = None, member: str = ""
    ) -> Change:
        """A change of this channel about ``message`` (its new side), ``old`` its old side, at
        payload path ``member``."""
        return Change(
            kind,
            text,
            self.provider,
            self.new.address,
            message.name if message is not None else (old.name if old is not None else ""),
            member,
            old.provenance if old is not None else None,
            message.provenance if message is not None else self.new.provenance,
        )

    def counterpart(self, name: str) -> Pair:
        """The pair of old message ``name``."""
        return next(p for p in self.pairs if p.old is not None and p.old.name == name)

    def recognizes(self, message: Message) -> bool:
        """Whether an older package decodes ``message``'s payloads as its old message."""
        return self.recognized.get(message.name, True)


def compare_streams(view: StreamView) -> list[Change]:
    """Every change of the channel's accumulation (see the module docstring), the stream's end
    first, then usage, then step by step."""
    old = view.old.accumulation or Accumulation("none")
    new = view.new.accumulation or Accumulation("none")
    if new.family == "none" and old.family != "none":
        text = f"the channel no longer fits an accumulation plan (was {old.family}): its events are only typed"
        return _ends(view, old, new) + [view.change(ACCUMULATION_STEP_DROPPED, text, None)]
    if old.family == "none" and new.family != "none":
        text = f"the channel now has the {new.family} accumulation plan"
        return [view.change(ACCUMULATION_ADDED, text, None)]
    changes = _ends(view, old, new)
    moved, usage = _usage(view, old, new)
    return list(dict.fromkeys(changes + usage + _steps(view, old, new, moved)))


def ending(channel: Channel) -> dict[str, str]:
    """The messages that end ``channel``'s streams, each with how: ``terminator`` (a literal
    such as ``[DONE]``) or the step (``done``, ``complete when candidates[*].finishReason``)."""
    found = {m.name: f"the terminator {m.literal!r}" for m in channel.messages if m.kind == "terminator"}
    plan = channel.accumulation or Accumulation("none")
    for name, steps in plan.steps:
        for step in steps:
            if step.action in ENDING and name not in found:
                found[name] = f"its {step.action} step" + (f" on {format_path(step.value)}" if step.value else "")
    return found


def _ends(view: StreamView, old: Accumulation, new: Accumulation) -> list[Change]:
    changes = []
    now = ending(view.new)
    tags = shared_tags(view.old, view.new)
    for name, how in ending(view.old).items():
        pair = view.counterpart(name)
        gone, after = pair.old, pair.new
        assert gone is not None
        if after is None:
            text = f"{name} ended the stream ({how}) and is gone"
            changes.append(view.change(STREAM_END_REMOVED, text, None, old=gone))
        elif not view.recognizes(after):
            text = (
                f"{name} ended the stream ({how}); it is now {after.name} "
                f"({describe_identity(wire_identity(after, tags))}, was "
                f"{describe_identity(wire_identity(gone, tags))}), which an older package does not recognize"
            )
            changes.append(view.change(STREAM_END_CHANGED, text, after, old=gone))
        elif after.name not in now:
            why = "".join(_why_not_ending(gone, after, step) for step in old.of(name) if step.action in ENDING)
            text = f"{after.name} no longer ends the stream (it did by {how}){why}"
            changes.append(view.change(STREAM_END_CHANGED, text, after, old=gone))
        else:
            kept = new.of(after.name)
            for step in old.of(name):
                if step.action in ENDING and step not in kept:
                    text = (
                        f"{after.name} no longer ends the stream by its {_step_text(step)} step"
                        f"{_why_not_ending(gone, after, step)} (it still does by {now[after.name]})"
                    )
                    changes.append(view.change(STREAM_END_CHANGED, text, after, old=gone))
    return changes


def _why_not_ending(gone: Message, after: Message, step: AccumulateStep) -> str:
    """Why an ending step is not in the new plan: the path it read, when that is lost."""
    lost = lost_path(gone.payload, after.payload, step)
    return f": it read {lost[0]}, no longer in the payload ({lost[1]})" if lost is not None else ""


def _usage(view: StreamView, old: Accumulation, new: Accumulation) -> tuple[set[str], list[Change]]:
    """``usage-moved`` for each old usage message whose counterpart no longer gives the usage
    while other messages do (:func:`_usage_now`); the old names reported."""
    read = {name for name, steps in new.steps if any(s.action == "usage" for s in steps)}
    moved: set[str] = set()
    changes = []
    for name, steps in old.steps:
        usage = [s for s in steps if s.action == "usage"]
        pair = view.counterpart(name)
        if not usage or _still_read(view, pair, usage, read):
            continue
        targets = _usage_now(view, pair, usage, read)
        if not targets:
            continue
        moved.add(name)
        unread = [t for t in targets if t not in read]
        text = (
            f"usage is now sent in {', '.join(targets)}, not in {name}: an older package reads it from {name}, "
            "and result.usage stays None"
        ) + (f"; the new plan does not read it in {', '.join(unread)} either" if unread else "")
        changes.append(view.change(USAGE_MOVED, text, pair.new, old=pair.old))
    return moved, changes


def _still_read(view: StreamView, pair: Pair, usage: list[AccumulateStep], read: set[str]) -> bool:
    """Whether the new message of ``pair`` still gives the usage: recognized by an older package,
    read by the new plan, every path its old usage steps read still there (the chat plan keeps its
    steps whatever the payload declares)."""
    after = pair.new
    if after is None or after.name not in read or not view.recognizes(after):
        return False
    assert pair.old is not None
    return all(lost_path(pair.old.payload, after.payload, step) is None for step in usage)


def _usage_now(view: StreamView, pair: Pair, usage: list[AccumulateStep], read: set[str]) -> list[str]:
    """The other new messages that give the usage now and did not: a usage step of the new plan,
    or a member a usage step of ``pair``'s old message read, which their old payload lacked."""
    found = []
    for other in view.pairs:
        if other.new is None or other is pair:
            continue
        before = other.old.payload if other.old is not None else None
        had = before is not None and other.old is not None and other.old.name in _usage_names(view.old)
        gained = other.new.name in read and not had
        for step in usage:
            for path, variant in step_paths(step):
                now = resolve_path(other.new.payload, path, variant).schema is not None
                then = before is not None and resolve_path(before, path, variant).schema is not None
                gained = gained or (now and not then)
        if gained:
            found.append(other.new.name)
    return found


def _usage_names(channel: Channel) -> set[str]:
    plan = channel.accumulation or Accumulation("none")
    return {name for name, steps in plan.steps if any(s.action == "usage" for s in steps)}


def _steps(view: StreamView, old: Accumulation, new: Accumulation, moved: set[str]) -> list[Change]:
    changes = []
    ends = ending(view.old)
    for name, steps in old.steps:
        pair = view.counterpart(name)
        if pair.new is None or not view.recognizes(pair.new):
            if name not in ends and name not in moved:
                changes.append(_message_lost(view, pair, steps))
            continue
        now = new.of(pair.new.name)
        for step in steps:
            if step.action in ENDING or (step.action == "usage" and name in moved):
                continue
            change = _step_change(view, pair, step, now)
            if change is not None:
                changes.append(change)
        changes += [
            view.change(ACCUMULATION_ADDED, f"new step: {_step_text(step)}", pair.new, old=pair.old)
            for step in now
            if step not in steps
        ]
    return changes


def _message_lost(view: StreamView, pair: Pair, steps: tuple[AccumulateStep, ...]) -> Change:
    gone, after = pair.old, pair.new
    assert gone is not None
    if after is None:
        text = f"{gone.name} is gone; its events fed {feeds(steps)}"
    else:
        text = f"{gone.name} is now {after.name}, which an older package does not recognize; its events fed " + feeds(
            steps
        )
    return view.change(ACCUMULATED_MESSAGE_LOST, text, after, old=gone)


def _step_change(view: StreamView, pair: Pair, step: AccumulateStep, now: tuple[AccumulateStep, ...]) -> Change | None:
    """``accumulated-member-lost`` when a path of ``step`` no longer resolves (the chat plan keeps
    its steps whatever the payload declares, so a step still in the plan may read nothing), else
    ``accumulation-step-dropped`` when the new plan lacks it; None when it is still there."""
    assert pair.old is not None and pair.new is not None
    lost = lost_path(pair.old.payload, pair.new.payload, step)
    if lost is not None:
        path, why = lost
        text = (
            f"the {step.action} step reads {path}, no longer in the payload ({why}): {_FEEDS[step.action]} stays empty"
        )
        return view.change(ACCUMULATED_MEMBER_LOST, text, pair.new, old=pair.old, member=path)
    if step in now:
        return None
    text = f"the plan no longer has the step {_step_text(step)}, which fed {_FEEDS[step.action]}"
    return view.change(ACCUMULATION_STEP_DROPPED, text, pair.new, old=pair.old)


def feeds(steps: tuple[AccumulateStep, ...]) -> str:
    """What ``steps`` feed, in words: ``the assembled text, result.usage``."""
    return ", ".join(dict.fromkeys(_FEEDS[s.action] for s in steps))


def _step_text(step: AccumulateStep) -> str:
    entries = step.to_plan()
    return "{" + ", ".join(f"{k}: {v}" for k, v in entries.items()) + "}"


def step_paths(step: AccumulateStep) -> list[tuple[tuple[str, ...], tuple[str, str] | None]]:
    """Every payload path ``step`` reads, from the payload's root, with the union alternative it
    reads ``value`` through: ``key``, ``value``, ``extra``, each ``when`` path (read at the element
    of the value's last ``[*]``) and each member path (read from ``value``)."""
    paths: list[tuple[tuple[str, ...], tuple[str, str] | None]] = [
        (step.key, None),
        (step.value, step.variant),
        (step.extra, None),
    ]
    base = step.value[: len(step.value) - step.value[::-1].index(EACH)] if EACH in step.value else ()
    paths += [(base + path, None) for path, _test in step.when]
    paths += [(step.value + path, None) for _name, path in step.members]
    return [(path, variant) for path, variant in paths if path]


def lost_path(old: Schema, new: Schema, step: AccumulateStep) -> tuple[str, str] | None:
    """The first path of ``step`` that resolves in payload ``old`` and not in ``new``, as written
    in a plan, with why (the segment that fails and the reason); None when none is lost."""
    for path, variant in step_paths(step):
        if resolve_path(old, path, variant).schema is None:
            continue
        found = resolve_path(new, path, variant)
        if found.schema is None:
            return format_path(path), f"{format_path(path[: found.failed + 1])!r} {found.reason}"
    return None
