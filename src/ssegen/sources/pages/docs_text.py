"""A flattened API reference page (``specs/deepseek/api-docs.txt``, DeepSeek "Create Chat Completion") -> field facts.

The page is a Docusaurus OpenAPI page scraped to plain text: headings, tabs and
schema trees are gone, and what is left is one line per rendered element.  It
is not a spec (field names are mostly lost, nesting is gone), so this loader
yields *facts* about fields, not IR schemas; :mod:`ssegen.merge_docs`
matches them to the members of an AsyncAPI schema of the same endpoint.

Layout of the page (lines of ``specs/deepseek/api-docs.txt``)::

    Create Chat Completion                           title (line 1)
    POST/chat/completions                            method + path (line 2)
    Request ... Responses                            the request body (lines 4-161)
    OK, returns a chat completion object             non-streaming response (165-337)
    OK, returns a streamed sequence of chat ...      streaming response (338-384)
    data: {...} ... data: [DONE]                     the example stream (385-396)

What a field looks like, and how each quirk is read:

=============================================  ===========================================
flattened text (api-docs.txt)                  reading
=============================================  ===========================================
``choices`` / ``object[]`` / ``required``      a *name block*: an identifier line followed
                                               by a type line, then ``required`` and
                                               ``nullable`` markers; only object and array
                                               members keep their name on the page
``Possible values: [stop`` / ``, length`` /    an enum, rejoined across lines; the fact's
``]``                                          provenance line is the ``Possible values``
                                               line; an unclosed list is read as far as it
                                               goes (``docs-values-unclosed``, warning)
``Possible values: >= -2`` / ``and <= 2``      a range, not an enum: kept apart in
                                               :attr:`FieldFact.constraint`
``Default value: 0``                           :attr:`FieldFact.default`
``This will be stop`` / ``if the model ...``   an inline code span ends a line: a line that
                                               does not end a sentence, or a next line that
                                               starts in lower case, continues the
                                               description (joined with one space)
``Important: ...``, ``We generally ...``       a new paragraph of the same description
                                               (:data:`CONTINUATION_OPENERS`)
``oneOf`` / ``string`` / ``string``            a union: the type lines right below the
                                               ``oneOf`` are its alternatives'
                                               (:class:`.docs_facts.FieldUnion`), read as
                                               the request body's member types
``Array [`` / ``]`` / ``- Schema`` /            structure without facts: ends a description
JSON example lines
=============================================  ===========================================

Otherwise a description line after a finished sentence that starts in upper
case starts the next field.  Values come *before* their field's description
(``Possible values: [assistant`` / ``]`` / ``The role of the author of this
message.``), so a values block starts a new fact unless the current one is a
bare name block, and a description attaches to the current fact while it has
none.  The reading is a heuristic; the request section (never merged) is where
it is least exact: multi-paragraph descriptions there may split in two; its named facts
become the body schema of the page's request (:mod:`.docs_request`).

Pointer scheme (JSON pointers into a page that is not JSON, in the spirit of
:mod:`ssegen.sources.pages`): ``/sections/<section>/facts/<k>`` for the ``k``-th fact
(0-based) of a section (``request``, ``response``, ``stream``) and
``/sections/<section>/examples/<k>`` for an example stream.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from ...diagnostics import Code, Diagnostics, codes
from ...ir import Provenance, Request
from .docs_facts import FieldFact, FieldUnion
from .docs_request import docs_request
from .sections import pointer
from .wire import PageStream, drop_repeated_streams, parses, read_frames

Section = Literal["request", "response", "stream"]

#: Capitalized line openers that continue the current description as a new
#: paragraph instead of starting the next field (``specs/deepseek/api-docs.txt:48``, 68, 98, 121, 136).
CONTINUATION_OPENERS: tuple[str, ...] = (
    "We ",
    "You ",
    "Important",
    "Note",
    "Also ",
    "Omitting ",
    "Otherwise",
    "Specifying ",
)

_METHOD_LINE = re.compile(r"^(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\s*(/\S*)$")
_RESPONSE_HEADER = re.compile(r"^(?:OK|Created|Accepted)\b,?\s*returns\b", re.IGNORECASE)
_POSSIBLE_VALUES = "Possible values:"
_DEFAULT_VALUE = "Default value:"
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-]*$")
_TYPE_LINE = re.compile(r"^(object|string|integer|number|boolean|array|null)(\[\])*$")
_MARKERS = frozenset({"required", "nullable"})
_COMBINERS = frozenset({"oneOf", "anyOf", "allOf", "not"})
_HEADINGS = frozenset({"Request", "Body", "Responses", "Schema", "Example", "Example (from schema)", "Callbacks"})
_JSON_LINE = re.compile(
    r'^\s*(?:[{}\[\]],?|"(?:[^"\\]|\\.)*"\s*(?::.*|,)?|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?,?|(?:true|false|null),?)\s*$'
)
_WIRE_LINE = re.compile(r"^data:\s?(.*)$")
_SENTENCE_END = re.compile(r"[.!?][\"')\]]*$")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


@dataclass
class DocsResult:
    """What one flattened API docs page contributes.

    Attributes:
        address: the endpoint path from the method line (``/chat/completions``),
            "" when the page has none.
        method: the HTTP method of that line (``POST``), "" when none.
        facts: field facts, in page order.
        example_streams: example streams (runs of ``data:`` lines), in page order,
            without repeats.
        title: the page title (the first line before the method line), "" if none.
        file: the page's path relative to the specs folder.
        address_line: 1-based line of the method+path line (0 when none).
        request: the request of the endpoint, with the body the ``request`` facts state
            (:func:`.docs_request.docs_request`); None when the page names no endpoint.
        unions: the ``oneOf``/``anyOf`` lines and the alternatives' type lines below each,
            in page order.
    """

    address: str = ""
    method: str = ""
    facts: list[FieldFact] = field(default_factory=list)
    example_streams: list[PageStream] = field(default_factory=list)
    title: str = ""
    file: str = ""
    address_line: int = 0
    request: Request | None = None
    unions: list[FieldUnion] = field(default_factory=list)


def looks_like_docs_text(text: str) -> bool:
    """True when ``text`` is a flattened API reference page like ``specs/deepseek/api-docs.txt``.

    Content detection: a method+path line (``POST/chat/completions``, the space
    optional), at least one ``Possible values:`` line and a ``Responses`` line;
    and none of the marks of other formats: a scraped AsyncAPI page's ``Raw ↑``
    marker or an ``asyncapi:`` key (``specs/deepseek/asyncapi-page.txt``), an HTML tag such as
    ``<table`` or ``<div`` (``specs/siliconstorm/inference-api.md``), a GFM table delimiter row
    (``specs/xerotier/streaming-api.md``).
    Never raises.
    """
    if not isinstance(text, str):
        return False
    lines = [line.strip() for line in _LINE_BREAK.split(text)]
    if any(line == "Raw ↑" for line in lines):
        return False
    if re.search(r"^\s*[\"']?asyncapi[\"']?\s*:", text, re.MULTILINE):
        return False
    if re.search(r"<(?:html|body|table|div|p|h[1-6])\b", text, re.IGNORECASE):
        return False
    if any(re.match(r"^\|?\s*:?-{3,}:?\s*\|", line) for line in lines):
        return False
    has_method = any(_METHOD_LINE.match(line) for line in lines)
    has_values = any(line.startswith(_POSSIBLE_VALUES) for line in lines)
    has_responses = any(line == "Responses" for line in lines)
    return has_method and has_values and has_responses


def load_docs_text(text: str, file: str, diagnostics: Diagnostics) -> DocsResult:
    """Read a flattened API reference page (``specs/deepseek/api-docs.txt``) into field facts and example streams.

    Args:
        text: the page text (any line ends).
        file: its path relative to the specs folder, for provenance.
        diagnostics: receives what was noticed, each with file, line and pointer:
            ``docs-endpoint-missing`` (warning: no method+path line; facts are
            still read), ``docs-values-unclosed`` (warning: a ``Possible values: [``
            list without ``]``), ``docs-stream-missing`` (warning: no streamed
            response section), ``docs-example-not-json`` (warning: a ``data:``
            payload that is neither JSON nor ``[DONE]``) and the
            ``example-stream-duplicate``/``-truncated`` codes of
            :func:`.pages.wire.drop_repeated_streams`.

    Returns:
        A :class:`DocsResult`; never raises for bad input (an empty or foreign
        text gives an empty result and diagnostics).  Each run of ``data:``
        lines (blank lines allowed inside) is one example stream, one event per
        line in wire form ``data: <payload>\\n\\n``, with the page line of every
        event in ``event_lines`` (``specs/deepseek/api-docs.txt:385``-396, ``data: [DONE]`` last).
    """
    return _Reader(text if isinstance(text, str) else "", file, diagnostics).read()


@dataclass
class _Fact:
    """A fact being read (mutable until it is finished)."""

    section: str
    first_line: int
    name: str = ""
    type: str = ""
    required: bool = False
    nullable: bool = False
    values: tuple[str, ...] | None = None
    values_line: int = 0
    constraint: str = ""
    default: str = ""
    description: list[str] = field(default_factory=list)
    description_line: int = 0

    @property
    def bare_name(self) -> bool:
        """A name block with nothing after it yet."""
        return bool(self.name) and not self.description and self.values is None and not self.constraint


class _Reader:
    def __init__(self, text: str, file: str, diagnostics: Diagnostics) -> None:
        self.file = file
        self.diagnostics = diagnostics
        self.lines = [line.strip() for line in _LINE_BREAK.split(text.lstrip("\ufeff"))]
        self.result = DocsResult(file=file)
        self.facts: list[FieldFact] = []
        self.current: _Fact | None = None
        self.counts: dict[str, int] = {}
        # the last line read was prose that does not end a sentence
        self.open_prose = False

    # -- helpers -----------------------------------------------------------------------

    def _diag(self, code: Code, message: str, line: int, ptr: str = "") -> None:
        self.diagnostics.add(code, message, file=self.file, line=line, pointer=ptr)

    def _finish(self) -> None:
        fact, self.current = self.current, None
        self.open_prose = False
        if fact is None:
            return
        description = " ".join(fact.description)
        description = re.sub(r"\s+([.,;:!?])", r"\1", description).strip()
        if not (fact.name or description or fact.values or fact.constraint):
            return
        if fact.values:
            line = fact.values_line
        elif fact.description_line:
            line = fact.description_line
        else:
            line = fact.first_line
        index = self.counts.get(fact.section, 0)
        self.counts[fact.section] = index + 1
        self.facts.append(
            FieldFact(
                section=fact.section,
                name=fact.name,
                description=description,
                values=fact.values or (),
                provenance=Provenance(self.file, line, pointer("sections", fact.section, "facts", index)),
                type=fact.type,
                required=fact.required,
                nullable=fact.nullable,
                constraint=fact.constraint,
                default=fact.default,
            )
        )

    def _start(self, section: str, line: int) -> _Fact:
        self._finish()
        self.current = _Fact(section, line)
        return self.current

    def _is_type_line(self, k: int) -> bool:
        return 0 <= k < len(self.lines) and bool(_TYPE_LINE.match(self.lines[k]))

    # -- reading -----------------------------------------------------------------------

    def read(self) -> DocsResult:
        """The page's endpoint (:meth:`_read_endpoint`), then its field facts and example streams
        from the request body on (:meth:`_read_body`)."""
        method_at = self._read_endpoint()
        start, responses_at = self._body_bounds(method_at)
        saw_stream = self._read_body(start, responses_at)
        self._finish()
        if method_at >= 0 and not saw_stream:
            self._diag(
                codes.DOCS_STREAM_MISSING,
                "the page documents no streamed response (no `OK, returns a streamed ...` section)",
                method_at + 1,
            )
        self.result.facts = self.facts
        self.result.request = docs_request(
            self.result.method,
            self.result.address,
            self.result.title,
            self.facts,
            [u for u in self.result.unions if u.section == "request"],
            [(k + 1, self.lines[k]) for k in range(max(method_at, 0), min(responses_at, len(self.lines)))],
            self.file,
            self.diagnostics,
        )
        self.result.example_streams = drop_repeated_streams(self.result.example_streams, self.diagnostics)
        return self.result

    def _read_endpoint(self) -> int:
        """The index of the method and path line (``POST/chat/completions``,
        ``specs/deepseek/api-docs.txt:2``), with the method, address and title (the first
        line above it) recorded; -1 when there is none (``docs-endpoint-missing``)."""
        for k, line in enumerate(self.lines):
            match = _METHOD_LINE.match(line)
            if match:
                self.result.method, self.result.address = match.group(1), match.group(2)
                self.result.address_line = k + 1
                self.result.title = next((line for line in self.lines[:k] if line), "")
                return k
        self._diag(
            codes.DOCS_ENDPOINT_MISSING,
            "the page has no method and path line (such as `POST/chat/completions`); "
            "facts are read without an endpoint",
            0,
        )
        return -1

    def _body_bounds(self, method_at: int) -> tuple[int, int]:
        """``(start, responses_at)``: the first line of the request body (after ``Request`` when
        it comes before ``Responses``, else after the endpoint) and the ``Responses`` line (the
        number of lines when there is none)."""
        lines = self.lines
        start = method_at + 1
        request_at = next((k for k in range(start, len(lines)) if lines[k] == "Request"), -1)
        responses_at = next((k for k in range(start, len(lines)) if lines[k] == "Responses"), len(lines))
        if 0 <= request_at < responses_at:
            start = request_at + 1
        return start, responses_at

    def _read_body(self, start: int, responses_at: int) -> bool:
        """Read the lines from ``start`` on: the request section, then after ``Responses`` each
        response header's section (``OK, returns a streamed ...`` is the ``stream`` section, its
        header prose skipped), example streams wherever ``data:`` lines are; whether a stream
        section was seen."""
        lines = self.lines
        section: str | None = "request"
        header = False  # skipping the prose of a response header line
        saw_stream = False
        k = start
        while k < len(lines):
            line = lines[k]
            if k == responses_at:
                self._finish()
                section, header = None, False
                k += 1
                continue
            if k > responses_at and _RESPONSE_HEADER.match(line):
                self._finish()
                section = "stream" if self._is_stream_header(k) else "response"
                saw_stream = saw_stream or section == "stream"
                header = True
                k += 1
                continue
            if _WIRE_LINE.match(line):
                self._finish()
                k = self._read_stream(k, section or "response")
                continue
            if header and line and not self._is_structural(k):
                k += 1
                continue
            header = False
            k = k + 1 if section is None else self._read_line(k, section, k + 1)
        return saw_stream

    def _is_stream_header(self, k: int) -> bool:
        text = " ".join(self.lines[k : k + 6]).lower()
        return "stream" in self.lines[k].lower() or "text/event-stream" in text

    def _is_structural(self, k: int) -> bool:
        """A line that carries no description text (when not inside open prose)."""
        line = self.lines[k]
        return (
            not line
            or line in _HEADINGS
            or line in _COMBINERS
            or line.startswith("- ")
            or line == "Array ["
            or bool(_TYPE_LINE.match(line))
            or bool(_JSON_LINE.match(line))
        )

    def _breaks_prose(self, k: int) -> bool:
        """A line that ends even an unfinished sentence (type words and markers do not: they are code spans there)."""
        line = self.lines[k]
        return (
            line in _HEADINGS
            or line in _COMBINERS
            or line.startswith("- ")
            or line == "Array ["
            or bool(re.match(r"^[{}\[\]],?$", line))
        )

    def _read_line(self, k: int, section: str, lineno: int) -> int:
        """Read the line at ``k`` (and the lines it owns); the index of the next line."""
        line = self.lines[k]
        current = self.current
        if self._is_name_block(k):
            return self._read_name_block(k, section, lineno)
        if line.startswith(_POSSIBLE_VALUES):
            return self._read_values(k, section)
        if line.startswith(_DEFAULT_VALUE):
            self._read_default(line, section, lineno)
            return k + 1
        if self._is_stray_marker(k):
            # `Body` / `required`: a marker of something that is not a field
            return k + 1
        if current is not None and self._continues_prose(k):
            # the line continues a sentence broken by an inline code span
            current.description.append(line)
            self.open_prose = not _SENTENCE_END.search(line)
            return k + 1
        if line in _COMBINERS:
            return self._read_union(k, section)
        if self._is_structural(k):
            self.open_prose = False
            if current is not None and current.description:
                self._finish()
            return k + 1
        self._read_sentence(line, section, lineno)
        return k + 1

    def _read_union(self, k: int, section: str) -> int:
        """A ``oneOf`` line at ``k`` and the type lines right below it (structure: the fact
        before ends when it has a description); the index of the line after them."""
        self.open_prose = False
        if self.current is not None and self.current.description:
            self._finish()
        start, k = k, k + 1
        while self._is_type_line(k):
            k += 1
        types = tuple((j + 1, self.lines[j]) for j in range(start + 1, k))
        self.result.unions.append(FieldUnion(section, start + 1, types))
        return k

    def _is_name_block(self, k: int) -> bool:
        """An identifier line at ``k`` followed by a type line (``choices`` / ``object[]``)."""
        line = self.lines[k]
        return bool(
            _IDENTIFIER.match(line)
            and not _TYPE_LINE.match(line)
            and line not in _COMBINERS
            and line not in _MARKERS
            and self._is_type_line(k + 1)
        )

    def _read_name_block(self, k: int, section: str, lineno: int) -> int:
        """A new fact from the name block at ``k``: its name, type and the ``required`` /
        ``nullable`` markers below; the index of the line after them."""
        fact = self._start(section, lineno)
        fact.name, fact.type = self.lines[k], self.lines[k + 1]
        k += 2
        while k < len(self.lines) and self.lines[k] in _MARKERS:
            setattr(fact, self.lines[k], True)
            k += 1
        return k

    def _read_default(self, line: str, section: str, lineno: int) -> None:
        """``Default value: 0``: the default of the current fact (of a new one when the current
        one has a description already)."""
        current = self.current
        if current is None or current.description:
            current = self._start(section, lineno)
        current.default = line[len(_DEFAULT_VALUE) :].strip()
        self.open_prose = False

    def _is_stray_marker(self, k: int) -> bool:
        """A ``required``/``nullable`` marker after structure, outside open prose: it marks
        something that is not a field (``Body`` / ``required``)."""
        return self.lines[k] in _MARKERS and k > 0 and self._is_structural(k - 1) and not self.open_prose

    def _continues_prose(self, k: int) -> bool:
        """Whether the line at ``k`` goes on with an open sentence of the current fact (not a
        line that ends even an unfinished sentence, :meth:`_breaks_prose`)."""
        return self.open_prose and bool(self.lines[k]) and not self._breaks_prose(k)

    def _read_sentence(self, line: str, section: str, lineno: int) -> None:
        """Prose that starts a sentence: more description of the current fact when it goes on
        the description (:func:`_continues_description`), else the first line of a new fact."""
        current = self.current
        if current is not None and current.description:
            if not _continues_description(line):
                current = self._start(section, lineno)
        elif current is None:
            current = self._start(section, lineno)
        if not current.description:
            current.description_line = lineno
        current.description.append(line)
        self.open_prose = not _SENTENCE_END.search(line)

    def _read_values(self, k: int, section: str) -> int:
        """Read a ``Possible values:`` block at ``k``; the index of the line after it."""
        lineno = k + 1
        current = self.current
        if current is None or not current.bare_name:
            current = self._start(section, lineno)
        self.open_prose = False
        rest = self.lines[k][len(_POSSIBLE_VALUES) :].strip()
        k += 1
        if rest.startswith("["):
            text = rest
            while "]" not in text and k < len(self.lines) and self.lines[k][:1] in (",", "]"):
                text += self.lines[k]
                k += 1
            if "]" not in text:
                self._diag(
                    codes.DOCS_VALUES_UNCLOSED,
                    f"`Possible values: [` list is not closed by `]`; read as {text[1:]!r}",
                    lineno,
                    pointer("sections", section, "facts", self.counts.get(section, 0)),
                )
            inner = text[1:].split("]", 1)[0]
            current.values = tuple(v.strip() for v in inner.split(",") if v.strip())
            current.values_line = lineno
            return k
        parts = [rest]
        while k < len(self.lines) and re.match(r"^(and|or)\s", self.lines[k]):
            parts.append(self.lines[k])
            k += 1
        current.constraint = " ".join(p for p in parts if p)
        return k

    def _read_stream(self, k: int, section: str) -> int:
        """Read a run of ``data:`` lines (blank lines allowed) at ``k`` into an example stream; the index after it."""
        index = sum(1 for s in self.result.example_streams if s.provenance.pointer.startswith(f"/sections/{section}/"))
        stream_ptr = pointer("sections", section, "examples", index)
        run: list[tuple[int, str]] = []
        while k < len(self.lines):
            if _WIRE_LINE.match(self.lines[k]):
                run.append((k + 1, self.lines[k]))
                k += 1
                continue
            if not self.lines[k]:
                nxt = next((j for j in range(k, len(self.lines)) if self.lines[j]), len(self.lines))
                if nxt < len(self.lines) and _WIRE_LINE.match(self.lines[nxt]):
                    k = nxt
                    continue
            break
        frames = read_frames(run).frames
        for event, frame in enumerate(frames):
            payload = dict(frame.fields).get("data", "")
            if payload != "[DONE]" and not parses(payload):
                self._diag(
                    codes.DOCS_EXAMPLE_NOT_JSON,
                    f"example `data:` payload is neither JSON nor [DONE]: {payload[:60]!r}",
                    frame.line,
                    pointer("sections", section, "examples", index, "events", event),
                )
        base = f"{section}-example"  # "stream-example": the section's example, named for the fixture file
        name = base if index == 0 else f"{base}-{index}"
        self.result.example_streams.append(
            PageStream(name, tuple(frames), Provenance(self.file, frames[0].line, stream_ptr))
        )
        return k


def _continues_description(line: str) -> bool:
    """Whether a sentence-starting ``line`` goes on with the description before it: it starts in
    lower case, with neither a letter, digit nor ``(``, or with a continuation opener
    (:data:`CONTINUATION_OPENERS`, ``Important: ...``)."""
    return (
        line[:1].islower()
        or (not line[:1].isalnum() and not line.startswith("("))
        or line.startswith(CONTINUATION_OPENERS)
    )
