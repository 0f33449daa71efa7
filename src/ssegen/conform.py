"""``ssegen conform``: replay a captured stream through a generated decoder, strictly.

The generated decoder is lenient (it must survive providers' surprises); this
module is the strict check: every decoded event is validated against the
normalized JSON Schema of its message (``schemas.json`` in the generated
package) with the ``jsonschema`` library, and every violation is reported with
its event number and the JSON pointer of the offending value.
"""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, BinaryIO
from urllib.parse import unquote

import jsonschema
from jsonschema.exceptions import ValidationError, relevance

from .diagnostics import escape_controls
from .naming import did_you_mean, is_package_name

#: Bytes read from the capture file per read (the decoder streams; memory stays flat).
READ_SIZE = 64 * 1024


class ConformError(Exception):
    """The generated package, channel or capture file cannot be used (message says which)."""


class ConformUsageError(ConformError):
    """The arguments are not PROVIDER CHANNEL FILE (a provider name that is a path or module)."""


@dataclass
class Violation:
    """One way an event differs from the spec.

    Attributes:
        event: 1-based event number in the stream (0 for the stream as a whole).
        message: the message the event decoded as (None for unknown events).
        pointer: JSON pointer of the offending value inside the event's data:
            the deepest one (inside the ``anyOf``/``oneOf`` branch that fits best).
        error: what is wrong.
        expected: the constraints of the schema the value fails (its keywords
            without ``description``/``title``/nested schemas), or None for an
            event that is not checked against a schema.
        got: the offending value as received (JSON data).
    """

    event: int
    message: str | None
    pointer: str
    error: str
    expected: dict[str, Any] | None = None
    got: Any = None

    def format(self) -> str:
        """``event N (Message) /pointer: error (expected {...})``."""
        what = f"event {self.event}" if self.event else "stream"
        name = f" ({self.message})" if self.message else ""
        expected = f" (expected {json.dumps(self.expected)})" if self.expected else ""
        return escape_controls(f"{what}{name} {self.pointer or '/'}: {self.error}{expected}")


@dataclass
class ConformReport:
    """The outcome of replaying one stream.

    Attributes:
        provider, channel: what was replayed.
        events: number of events decoded.
        violations: every violation, in stream order.
        final: the assembled result as plain data (``StreamResult.to_dict()``).
    """

    provider: str
    channel: str
    events: int = 0
    violations: list[Violation] = field(default_factory=list)
    final: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """``{"provider", "channel", "events", "violations": [...], "final": {...}}``."""
        return {
            "provider": self.provider,
            "channel": self.channel,
            "events": self.events,
            "violations": [v.__dict__ for v in self.violations],
            "final": self.final,
        }


def import_package(out: Path, provider: str, package: str | None = None) -> ModuleType:
    """Import the generated package ``<out>/<provider>`` (``out`` must be a package folder).

    ``package`` is the output folder's configured import name (``[tool.ssegen] package``), named
    in the error when the provider cannot be found under either.

    Raises:
        ConformError: when it cannot be imported; the message says where it looked, suggests the
            closest provider name and lists the providers found (:func:`missing_package`).
    """
    out = out.resolve()
    parent = str(out.parent)
    if parent not in sys.path:
        sys.path.insert(0, parent)
    name = f"{out.name}.{provider}"
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        raise ConformError(missing_package(out, provider, package, exc)) from None


def generated_providers(out: Path) -> list[str]:
    """The provider packages in output folder ``out``, by name: its subfolders holding an
    ``__init__.py`` and a ``channels.py`` (not the shared ``_runtime``); empty when ``out`` is
    not a folder."""
    if not out.is_dir():
        return []
    return sorted(p.name for p in out.iterdir() if (p / "__init__.py").is_file() and (p / "channels.py").is_file())


def missing_package(out: Path, provider: str, package: str | None, exc: ImportError) -> str:
    """Why provider ``provider`` cannot be imported, for a user: where it was looked for (the
    output folder ``out`` and the import name ``package``: ``[tool.ssegen] out`` and ``package``),
    the closest provider name found there, and every provider found; "run ssegen generate" only
    when nothing was ever generated there, the import error itself when the package is there but
    fails to import."""
    found = generated_providers(out)
    where = f"{out} ([tool.ssegen] out)" + (f" or as {package}.{provider} ([tool.ssegen] package)" if package else "")
    if provider in found:
        return f"cannot import generated package {provider!r} from {out}: {exc}"
    if not found:
        return f"no generated package {provider!r}: nothing is generated in {where} (run `ssegen generate` first)"
    hint = did_you_mean(provider, found)
    return f"no generated package {provider!r} in {where}{hint} (providers found: {', '.join(found)})"


def _chunks(stream: BinaryIO) -> Iterator[bytes]:
    while chunk := stream.read(READ_SIZE):
        yield chunk


def conform(out: Path, provider: str, channel: str, capture: Path, *, full_text: bool = False) -> ConformReport:
    """Decode ``capture`` with the generated decoder of ``provider``/``channel`` and validate.

    Args:
        out: the generated output folder (e.g. ``generated``).
        provider: provider package name.
        channel: channel address, e.g. ``/chat/completions``.
        capture: a file holding the raw ``text/event-stream`` body.
        full_text: accumulate in cumulative mode (MindIE ``fullTextEnabled``).

    Raises:
        ConformError: unknown provider or channel, unreadable capture.
    """
    if not is_package_name(provider):
        hint = provider.split(".")[0].split("/")[0]
        raise ConformUsageError(
            f"{provider!r} is not a provider name (usage: ssegen conform PROVIDER CHANNEL FILE, "
            f"e.g. ssegen conform {hint or 'deepseek'} /chat/completions capture.sse)"
        )
    package = import_package(out, provider)
    channels = getattr(package, "CHANNELS", None)
    if not isinstance(channels, dict):
        raise ConformError(f"{out / provider} is not a package generated by ssegen (it has no CHANNELS)")
    if channel not in channels:
        raise ConformError(f"provider {provider!r} has no channel {channel!r}; channels: {', '.join(sorted(channels))}")
    chan = channels[channel]
    schemas = json.loads((Path(str(package.__file__)).parent / "schemas.json").read_text(encoding="utf-8"))
    validators = {
        name: jsonschema.Draft202012Validator(_inlined({"$defs": schemas["$defs"], **schema}))
        for name, schema in schemas["channels"][channel].items()
    }
    names_by_class: dict[type, list[str]] = {}
    for name, cls in chan.messages.items():
        names_by_class.setdefault(cls, []).append(name)

    report = ConformReport(provider, channel)
    state = package.sse.StreamState()
    acc = package.Accumulator(full_text)
    acc.family = chan.family  # the Messages and Responses families print their output blocks
    try:
        with capture.open("rb") as stream:
            try:
                # Streamed: each event is checked and applied as it is read, none is kept.
                for sse in package.sse.iter_events(_chunks(stream), state=state, framer=chan.framer):
                    report.events += 1
                    try:
                        event = chan.classify(sse)
                    except Exception as exc:  # JSON nested past the recursion limit, ...
                        reason = "JSON nested too deep" if isinstance(exc, RecursionError) else type(exc).__name__
                        report.violations.append(Violation(report.events, None, "", f"cannot decode: {reason}"))
                        continue
                    report.violations.extend(_check(report.events, sse.data, event, names_by_class, validators))
                    chan.apply(acc, event)
            except package.SSEError as exc:
                report.violations.append(Violation(0, None, "", f"stream error: {exc}"))
    except OSError as exc:
        raise ConformError(f"cannot read {capture}: {exc}") from None
    if state.incomplete:
        report.violations.append(Violation(0, None, "", "the stream ended inside an event; that event was discarded"))
        acc.truncated(state)
    report.final = acc.result().to_dict()
    return report


#: Most schema nodes :func:`_inlined` writes before it keeps the references as they are.
_INLINE_BUDGET = 50_000


def _inlined(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with each ``{"$ref": "#/$defs/<name>"}`` replaced by that definition (its sibling
    keywords kept beside it), except a reference back into a definition it is inside (recursion),
    which stays a ``$ref`` to the kept ``$defs``. The same validation, without resolving a
    reference for every event (jsonschema's ``$ref`` resolution was about 85% of conform's time:
    22,000 DeepSeek events in 10.7 s). A schema that would expand past :data:`_INLINE_BUDGET`
    nodes is returned as it is (ten references per level, many levels: see ssegen.instances)."""
    defs = schema.get("$defs", {})
    budget = _INLINE_BUDGET

    def walk(node: Any, inside: tuple[str, ...]) -> Any:
        nonlocal budget
        budget -= 1
        if budget < 0:
            raise OverflowError
        if isinstance(node, list):
            return [walk(item, inside) for item in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            # RFC 6901 section 6: percent-decoded first (keys written where they are: `%23`), then ~1, ~0.
            name = unquote(ref[len("#/$defs/") :]).replace("~1", "/").replace("~0", "~")
            if name in defs and name not in inside:
                rest = {k: walk(v, inside) for k, v in node.items() if k != "$ref"}
                target = walk(defs[name], (*inside, name))
                return {"allOf": [target, rest]} if rest else target
        return {k: walk(v, inside) if k != "$defs" else v for k, v in node.items()}

    try:
        return walk(schema, ())  # type: ignore[no-any-return]
    except OverflowError:
        return schema


def _check(
    number: int, data: str, event: Any, names_by_class: dict[type, list[str]], validators: dict[str, Any]
) -> list[Violation]:
    """Violations of one event: its raw ``data`` against each message its class stands for."""
    names = names_by_class.get(type(event))
    if not names:
        reason = getattr(event, "reason", "")
        return [Violation(number, None, "", f"matches no message of the channel: {reason}")]
    best: list[Violation] | None = None
    for name in names:
        validator = validators[name]
        if validator.schema.get("type") == "string":
            instance: Any = data
        else:
            try:
                instance = json.loads(data)
            except ValueError as exc:
                return [Violation(number, name, "", f"data is not JSON: {exc}")]
        found = _violations(number, name, validator.iter_errors(instance))
        if not found:
            return []
        if best is None or len(found) < len(best):
            best = found
    return best or []


#: Schema keywords that are not constraints (left out of ``Violation.expected``).
_NOT_CONSTRAINTS = frozenset(
    {"description", "title", "examples", "default", "$comment", "properties", "items", "$defs"}
)


def _violations(number: int, name: str, errors: Iterable[ValidationError]) -> list[Violation]:
    """One violation per offending value, in pointer order.

    The errors of one value (``"role": null`` fails both ``type`` and ``enum``)
    count once, the most relevant kept (``jsonschema.exceptions.relevance``); an
    error of a combinator (``anyOf``/``oneOf``: "is not valid under any of the
    given schemas") is replaced by the errors of the branch that fits best, each
    where it is (``/usage/completion_tokens_details`` rather than ``/usage``).
    """
    found: dict[str, Violation] = {}
    for error in _leaves(list(errors)):
        pointer = _pointer(error.absolute_path)
        expected = None
        if isinstance(error.schema, dict):
            expected = {k: v for k, v in error.schema.items() if k not in _NOT_CONSTRAINTS}
        found.setdefault(pointer, Violation(number, name, pointer, error.message, expected, error.instance))
    return [found[p] for p in sorted(found, key=lambda p: p.split("/"))]


def _leaves(errors: list[ValidationError]) -> Iterator[ValidationError]:
    """The most relevant error of each offending value, combinators opened."""
    by_value: dict[tuple[Any, ...], list[ValidationError]] = {}
    for error in errors:
        by_value.setdefault(tuple(error.absolute_path), []).append(error)
    for group in by_value.values():
        top = max(group, key=relevance)
        if top.validator in ("anyOf", "oneOf") and top.context:
            yield from _leaves(_best_branch(top.context))
        else:
            yield top


def _best_branch(context: list[ValidationError]) -> list[ValidationError]:
    """The errors of the combinator branch the value fits best: the one whose errors
    reach deepest into it (a branch of another type fails at the value itself), then
    the one with fewest errors."""
    branches: dict[Any, list[ValidationError]] = {}
    for error in context:
        branches.setdefault(error.relative_schema_path[0], []).append(error)
    return max(
        branches.values(),
        key=lambda b: (max(len(e.absolute_path) for e in b), -len(b)),
    )


def _pointer(path: Any) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)
