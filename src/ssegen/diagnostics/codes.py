"""The catalogue of diagnostic codes: every code ssegen reports, its severity and what it means.

A :class:`Code` is the only thing a loader, merge step or emitter passes to
:meth:`ssegen.diagnostics.Diagnostics.add`; its severity lives here, once, so the severity of
a finding is reviewed in one table. Codes are stable kebab-case names (users filter on them);
rename one only with a changelog entry. The table of codes in docs/codes.md is generated from
:data:`CATALOGUE` (``ssegen codes``) and a test keeps the two equal, and
another test checks that every code is reported somewhere in ``src/ssegen``.

Severities: ``error`` stops the piece of work it concerns (one document, one provider);
``warning`` is a wart of the spec that ssegen worked around (``--strict`` makes it an error);
``info`` is a normalization or a reading choice worth knowing about.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Severity(StrEnum):
    """How bad a diagnostic is; ``error`` stops the piece of work it concerns."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@dataclass(frozen=True)
class Code:
    """One diagnostic code.

    Attributes:
        name: stable kebab-case identifier, e.g. ``nullable-keyword``.
        severity: the :class:`Severity` every report of this code has.
        summary: one sentence saying what the code means (the table in docs/codes.md).
    """

    name: str
    severity: Severity
    summary: str

    def __str__(self) -> str:
        return self.name


E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO  # noqa: E741 (table shorthand)

# -- the run itself -------------------------------------------------------------------------
PROVIDER_MISSING = Code(
    "provider-missing", E, "A provider named on the command line or in the config has no folder under the specs folder."
)
PROVIDER_NAME_INVALID = Code(
    "provider-name-invalid",
    E,
    "A provider folder's name is not a valid Python package name, so no package can be generated.",
)
PROVIDER_EMPTY = Code("provider-empty", E, "No source in the provider folder describes a stream.")
SOURCE_UNREADABLE = Code("source-unreadable", E, "A source file cannot be read (I/O error or not UTF-8).")
SOURCE_OUTSIDE_SPECS = Code(
    "source-outside-specs",
    E,
    "A source file or provider folder is (through a symbolic link) outside the specs folder; it is not read.",
)
SOURCE_NOT_REGULAR = Code(
    "source-not-regular",
    E,
    "A source, or a file a `$ref` names, is not a regular file (a FIFO, socket or device); it is not read.",
)
SOURCE_UNKNOWN_FORMAT = Code(
    "source-unknown-format", W, "A file in a provider folder is no source format ssegen reads; it is skipped."
)
STRICT = Code("strict", E, "Under `--strict` (or `strict = true`) a provider with warnings is not generated.")

# -- YAML/JSON documents (sources/document.py) ---------------------------------------------
YAML_SYNTAX = Code("yaml-syntax", E, "The document is not well-formed YAML or JSON.")
SOURCE_TOO_DEEP = Code(
    "source-too-deep",
    E,
    "A source (a JSON example of a docs page, a schema) nests deeper than ssegen follows; it is not used.",
)
YAML_TOO_DEEP = Code(
    "yaml-too-deep", E, "The document nests deeper than the loader follows (a guard against hostile input)."
)
YAML_TOO_LARGE = Code("yaml-too-large", E, "Aliases expand the document beyond the node budget (a YAML alias bomb).")
YAML_TAG_IGNORED = Code(
    "yaml-tag-ignored", W, "An explicit YAML tag (`!!python/...`, `!custom`) is ignored; the value is read as written."
)
DUPLICATE_KEY = Code("duplicate-key", W, "A mapping repeats a key; the last value is kept, as YAML loaders do.")

# -- $ref (sources/refs.py) ------------------------------------------------------------------
REF_INVALID = Code("ref-invalid", E, "A `$ref` is not a string.")
REF_MISSING = Code(
    "ref-missing", E, "A `$ref` points to nothing (no such file or JSON pointer, or a non-pointer fragment)."
)
REF_REMOTE = Code("ref-remote", E, "A `$ref` is a remote URL; only local and relative-file references are followed.")
REF_ESCAPE = Code("ref-escape", E, "A `$ref` leaves the specs folder; it is refused.")
REF_UNREADABLE = Code("ref-unreadable", E, "The file a `$ref` names cannot be read or parsed.")
REF_CIRCULAR = Code("ref-circular", E, "A `$ref` leads back to itself; the recursive member is typed as any JSON.")
REF_TOO_DEEP = Code(
    "ref-too-deep",
    W,
    "More than 32 `$ref`s to different schemas chain inside a kept keyword (`not`, `patternProperties`...);"
    " below that, schemas.json accepts any JSON.",
)
REF_SIBLINGS = Code(
    "ref-siblings", I, "A `$ref` has sibling keywords; its sibling `description` is kept on the use site."
)

# -- JSON Schema (sources/schema.py) -------------------------------------------------------
NULLABLE_KEYWORD = Code("nullable-keyword", I, "OpenAPI `nullable: true` is normalized to a nullable type.")
TYPE_LIST_NULL = Code(
    "type-list-null", I, "A type list with `null` (`type: [string, 'null']`) is normalized to a nullable type."
)
ONEOF_NULL_BRANCH = Code("oneof-null-branch", I, "A `null` branch of `oneOf`/`anyOf` is normalized to a nullable type.")
ENUM_NULL = Code("enum-null", I, "`null` listed in an `enum` is normalized to a nullable type.")
ENUM_EMPTY = Code("enum-empty", W, "An `enum` lists no value (no instance could match); it is ignored.")
ENUM_INVALID = Code(
    "enum-invalid", W, "An `enum` is not a list or holds objects, arrays or non-finite numbers; it is ignored."
)
EMPTY_ARRAY = Code(
    "empty-array", I, "An array with `maxItems: 0` is always empty; kept as a constraint that tells messages apart."
)
DISCRIMINATOR_INVALID = Code(
    "discriminator-invalid",
    W,
    "A `discriminator` cannot tell the alternatives apart (not objects, or values missing or shared); ignored.",
)
SCHEMA_NOT_OBJECT = Code("schema-not-object", W, "A schema is not a JSON object; it is treated as any JSON.")
SCHEMA_INVALID = Code(
    "schema-invalid", W, "A schema keyword has the wrong shape (`properties` not a mapping, an empty `oneOf`); ignored."
)
TYPE_UNKNOWN = Code(
    "type-unknown", E, "A `type` names no JSON Schema type (a typo such as `strng`); the value would be any JSON."
)
REQUIRED_UNKNOWN = Code("required-unknown", W, "`required` lists members the schema does not declare.")

# -- AsyncAPI (sources/asyncapi/) ----------------------------------------------------------
DOCUMENT_NOT_MAPPING = Code("document-not-mapping", E, "An AsyncAPI or OpenAPI document is not a mapping.")
ASYNCAPI_VERSION_MISSING = Code("asyncapi-version-missing", E, "The document has no `asyncapi` version field.")
ASYNCAPI_VERSION_INVALID = Code(
    "asyncapi-version-invalid", E, "The `asyncapi` version is not a string (an unquoted `3.0` is a YAML float)."
)
ASYNCAPI_VERSION_UNSUPPORTED = Code("asyncapi-version-unsupported", E, "The AsyncAPI version is neither 2.x nor 3.0.")
INFO_MISSING = Code("info-missing", W, "The document has no `info` object.")
INFO_INVALID = Code("info-invalid", W, "`info` is not a mapping; it is ignored.")
INFO_FIELD_TYPE = Code(
    "info-field-type",
    I,
    "An `info` field is not a string (a scraper's mangled e-mail); it is ignored and the rest is used.",
)
CHANNELS_MISSING = Code("channels-missing", E, "The document has no `channels` mapping.")
CHANNEL_INVALID = Code("channel-invalid", E, "A channel item is not a mapping.")
OPERATIONS_INVALID = Code("operations-invalid", E, "AsyncAPI 3.0 `operations` is not a mapping.")
OPERATION_INVALID = Code("operation-invalid", E, "An operation is not a mapping.")
PROTOCOL_NOT_SSE = Code(
    "protocol-not-sse",
    W,
    "A server or binding names a protocol other than SSE over HTTP (kafka, mqtt, amqp, ws); "
    "the package has models and a JSON-payload classifier only.",
)
OPERATION_REQUEST_SKIPPED = Code(
    "operation-request-skipped",
    I,
    "A 2.x `publish` or 3.0 `receive` operation (or a `send` reply) carries what the client sends on a channel "
    "nothing streams on; skipped.",
)
OPERATION_ACTION_INVALID = Code(
    "operation-action-invalid",
    W,
    "A 3.0 operation's `action` is neither `send` nor `receive`; the operation is ignored.",
)
OPERATION_CHANNEL_INVALID = Code(
    "operation-channel-invalid", E, "A 3.0 operation's `channel` is not a `$ref` to a channel."
)
OPERATION_CHANNEL_UNKNOWN = Code(
    "operation-channel-unknown", E, "A 3.0 operation's `channel` names no channel of `channels`."
)
OPERATION_NO_MESSAGE = Code("operation-no-message", W, "An operation has no message.")
MESSAGE_INVALID = Code("message-invalid", E, "A message (or a channel's `messages`) has the wrong shape.")
MESSAGE_UNNAMED = Code(
    "message-unnamed", E, "A message has no name, messageId, title or component key to name its class after."
)
MESSAGE_NAMED_FROM_CONTEXT = Code(
    "message-named-from-context",
    W,
    "An inline message has no name, messageId or title; its class is named after its operationId or channel address.",
)
MESSAGE_NO_PAYLOAD = Code("message-no-payload", W, "A message has no payload; any JSON is accepted.")
MESSAGE_NAME_COLLISION = Code(
    "message-name-collision", W, "Two messages of a document get the same name; the later one is renamed."
)
SCHEMA_FORMAT_UNSUPPORTED = Code(
    "schema-format-unsupported",
    W,
    "A payload's `schemaFormat` is not a JSON Schema dialect; the payload accepts any JSON.",
)
EXAMPLE_INVALID = Code("example-invalid", W, "A message's `examples` is not a list of examples; ignored.")
LITERAL_PAYLOAD = Code(
    "literal-payload", I, "A payload is a literal string (`[DONE]`), not JSON; it is decoded as the stream terminator."
)
LITERAL_KEEPALIVE = Code(
    "literal-keepalive",
    I,
    "A payload is a whitespace-only literal (`\\r\\n`); it is a keep-alive, neither a terminator nor data.",
)
PAYLOAD_UNTYPED = Code("payload-untyped", W, "A payload schema has no type; any JSON is accepted.")

# -- OpenAPI (sources/openapi/) --------------------------------------------------------------
OPENAPI_VERSION_INVALID = Code(
    "openapi-version-invalid", E, "The `openapi` version is not a 3.x version string (an unquoted `3.1` is a float)."
)
OPENAPI_STREAMS_FOUND = Code(
    "openapi-streams-found",
    I,
    "How many operations of an OpenAPI document stream (a `text/event-stream` or newline-delimited JSON response); the "
    "others are skipped.",
)
OPENAPI_EVENT_SCHEMA = Code(
    "openapi-event-schema",
    I,
    "A `text/event-stream` `schema` describes the SSE event (`data`, `event`, `id`, `retry`); read as an `itemSchema`.",
)
OPENAPI_ITEM_NO_DATA = Code(
    "openapi-item-no-data", W, "An SSE event schema (`itemSchema`) has no `data` member; its events accept any JSON."
)
OPENAPI_CONTENT_NOT_JSON = Code(
    "openapi-content-not-json",
    W,
    "An event's `data` has a `contentMediaType` that is not JSON; it is read as text and not decoded.",
)
OPENAPI_TERMINATOR_DESCRIBED = Code(
    "openapi-terminator-described",
    I,
    "A streaming response's description or example says the stream ends with `data: [DONE]`; it is read as one.",
)
OPENAPI_STREAM_VENDOR = Code(
    "openapi-stream-vendor",
    I,
    "A stream is marked by a code generator's extension (Fern `x-fern-streaming`, Speakeasy "
    "`x-speakeasy-sse-sentinel`) rather than only a `text/event-stream` response; read as one.",
)
OPENAPI_STREAM_NDJSON = Code(
    "openapi-stream-ndjson",
    I,
    "An operation streams newline-delimited JSON (an `application/x-ndjson` or `application/jsonl` response, "
    "or `x-fern-streaming` without `format: sse`); its channel is framed as NDJSON, each line one message.",
)

# -- documentation pages (sources/pages/) ---------------------------------------------------
PAGE_NO_STREAM = Code(
    "page-no-stream", W, "A documentation page describes no stream; only its examples and error codes are used."
)
CHUNK_TABLE_MISSING = Code(
    "chunk-table-missing", E, "No table of the page describes a streaming chunk (`choices` with `delta`)."
)
CHOICE_MEMBERS_PROSE = Code(
    "choice-members-prose",
    I,
    "The choice object is described only in prose; "
    "its members are read from the prose and typed from the tables it names.",
)
CHOICE_MEMBERS_UNKNOWN = Code(
    "choice-members-unknown", W, "Nothing says what a choice contains; choices are typed as objects without members."
)
MEMBER_TYPE_UNKNOWN = Code(
    "member-type-unknown", W, "A member named in prose is described by no table; it is typed as any JSON."
)
FIELD_TYPE_UNKNOWN = Code(
    "field-type-unknown", I, "A field has no stated type; it is typed as any JSON (its name may suggest one)."
)
TABLE_UNTERMINATED = Code(
    "table-unterminated",
    I,
    "No blank line ends a markdown table; it ends at its last line with a `|`, not where GFM would end it.",
)
TABLE_ROW_CONTINUED = Code(
    "table-row-continued", I, "A table row's cells are spread over several lines; joined into one row."
)
TABLE_CELL_PIPE = Code(
    "table-cell-pipe",
    I,
    "A type cell holds an unescaped `|` (`string | null`) that splits its row; the cells are rejoined.",
)
TABLE_CELL_EXTRA = Code(
    "table-cell-extra",
    W,
    "A row has more cells than the table has columns; the extra cells are joined into the last one.",
)
TABLE_NO_HEADER = Code(
    "table-no-header", W, "A table has no header row; its columns are read from where the type names are."
)
TABLE_ROW_SHORT = Code("table-row-short", W, "A row has fewer leading cells than its nesting depth needs.")
TABLE_ROW_UNNAMED = Code("table-row-unnamed", W, "A row has no name cell; it is skipped.")
TABLE_ROW_MISALIGNED = Code(
    "table-row-misaligned",
    W,
    "A name cell spans columns that disagree with its nesting; the row is placed by its first column.",
)
TABLE_DEPTH_JUMP = Code(
    "table-depth-jump",
    W,
    "A row is nested more than one level below the row above it; it is attached to the nearest parent.",
)
TABLE_CHILDREN_IGNORED_TYPE = Code(
    "table-children-ignored-type", W, "A row typed as a scalar has nested rows; it is read as an object."
)
TABLE_ROWSPAN_OVERFLOW = Code(
    "table-rowspan-overflow", W, "A `rowspan` claims more rows than the table has left; it is cut."
)
TABLE_SPAN_INVALID = Code("table-span-invalid", W, "A `rowspan`/`colspan` is not a positive integer; read as 1.")
TABLE_DATA_WRAPPER = Code(
    "table-data-wrapper",
    I,
    "A table's top row `data` is the SSE field carrying the chunk; its rows are the chunk's members.",
)
TABLE_SKIPPED = Code(
    "table-skipped", I, "A table describes no streamed payload (a request or non-streaming table); skipped."
)
TABLE_UNUSED = Code("table-unused", I, "A table describes nothing ssegen decodes; ignored.")
DUPLICATE_TABLE = Code(
    "duplicate-table",
    I,
    "A table repeats an earlier one (another translation of the page) with the same members; merged.",
)
DUPLICATE_TABLE_CONFLICT = Code(
    "duplicate-table-conflict", W, "A repeated table differs from its first copy; the first copy is kept."
)
HTML_TABLE_UNCLOSED = Code(
    "html-table-unclosed", W, "A `<table>` has no `</table>`; read up to the next table or fence."
)
HTML_TABLE_UNREADABLE = Code("html-table-unreadable", W, "lxml finds no table in an HTML block; skipped.")
FENCE_INVALID_JSON = Code(
    "fence-invalid-json", W, "A ```json block is not valid JSON (single-quoted strings, comments)."
)
VENDOR_FIELDS_UNKNOWN = Code(
    "vendor-fields-unknown",
    W,
    "A vendor (`x_*`) event has neither a `Fields:` line nor a JSON example; only its `type` is known.",
)
VENDOR_FIELDS_UNKNOWN_REF = Code(
    "vendor-fields-unknown-ref", W, "`Same fields as X` names no vendor event documented above; only `type` is known."
)
VENDOR_FIELD_UNPARSED = Code(
    "vendor-field-unparsed", W, "A vendor event's field cannot be read from its `Fields:` line; skipped."
)
ERROR_EXAMPLE_MISSING = Code(
    "error-example-missing",
    W,
    "The page lists error types but shows no `event: error` frame; no error message is built.",
)
TERMINATOR_FROM_EXAMPLE = Code(
    "terminator-from-example",
    I,
    "No terminator is documented, but the example streams end with `data: [DONE]`; it is read as one.",
)
MEMBER_FROM_EXAMPLE = Code(
    "member-from-example", I, "A member is undocumented but present in every example; added as required."
)
REQUIRED_RELAXED = Code("required-relaxed", I, "A documented member is absent from an example; it is not required.")
EXAMPLE_MEMBER_UNDOCUMENTED = Code(
    "example-member-undocumented", I, "An example has a member its object does not document."
)
WIRE_FORMAT_SAMPLE = Code(
    "wire-format-sample",
    I,
    "A one-line wire-format sample (elided `...`, escaped `\\n`) is not an example stream; not harvested.",
)
EXAMPLE_DATA_REJOINED = Code(
    "example-data-rejoined", I, "An example's JSON continues over lines without `data:`; joined into one `data:` line."
)
EXAMPLE_LINE_IGNORED = Code("example-line-ignored", W, "A line inside an example stream is not an SSE field; ignored.")
EXAMPLE_STREAM_DUPLICATE = Code(
    "example-stream-duplicate", I, "An example stream repeats an earlier one event for event; dropped."
)
EXAMPLE_STREAM_TRUNCATED = Code(
    "example-stream-truncated", W, "An example stream is a truncated copy of an earlier one; dropped."
)
EXAMPLE_STREAM_UNTERMINATED = Code(
    "example-stream-unterminated",
    W,
    "An example stream does not end with the terminator the page's other streams end with.",
)

# -- flattened docs text and its merge (sources/pages/docs_text.py, normalize/docs.py) ------------
DOCS_ENDPOINT_MISSING = Code(
    "docs-endpoint-missing", W, "The docs page has no method and path line (`POST/chat/completions`)."
)
DOCS_STREAM_MISSING = Code("docs-stream-missing", W, "The docs page documents no streamed response.")
DOCS_VALUES_UNCLOSED = Code("docs-values-unclosed", W, "A `Possible values: [` list is not closed by `]`.")
DOCS_EXAMPLE_NOT_JSON = Code(
    "docs-example-not-json", W, "An example `data:` payload on the docs page is neither JSON nor `[DONE]`."
)
DOCS_CHANNEL_MISSING = Code(
    "docs-channel-missing", W, "The docs page's endpoint matches no channel of the provider; its facts are not merged."
)
DOCS_MATCHED = Code("docs-matched", I, "A docs field is matched to the schema member it describes.")
DOCS_UNMATCHED = Code("docs-unmatched", I, "A docs field matches no schema member (or several equally); not merged.")
DOCS_DESCRIPTION_ADDED = Code(
    "docs-description-added", I, "A schema member without a description takes the docs' description."
)
DOCS_ENUM_ADDED = Code("docs-enum-added", W, "The docs list an enum value the schema lacks; it is added.")
DOCS_ENUM_MISSING = Code("docs-enum-missing", W, "The schema's enum has a value the docs do not list; it is kept.")
DOCS_ENUM_NOT_APPLIED = Code(
    "docs-enum-not-applied", I, "The docs list values for a member whose type cannot hold them; not applied."
)

# -- the request that opens a stream (ir/request.py, sources/*/request.py, normalize/request.py) --
REQUEST_METHOD_ASSUMED = Code(
    "request-method-assumed",
    I,
    "No source states the HTTP method of a stream's request; POST is assumed (the request carries a body).",
)
REQUEST_METHOD_INVALID = Code("request-method-invalid", W, "A stated HTTP method is no method; it is not read.")
REQUEST_SCHEMA_MISSING = Code(
    "request-schema-missing",
    I,
    "No source states the schema of a stream's request body; the client takes a plain mapping.",
)
REQUEST_BODY_NOT_JSON = Code(
    "request-body-not-json",
    I,
    "A request body has no JSON media type; its schema is not read and the client takes a plain mapping.",
)
REQUEST_STREAM_MEMBER_MISSING = Code(
    "request-stream-member-missing",
    I,
    "No source names a request member that switches streaming on (`stream`); the operation is taken to always stream.",
)
REQUEST_AUTH_MISSING = Code(
    "request-auth-missing", I, "No source states how a stream's request sends the API key; the client sends none."
)
REQUEST_CONFLICT = Code(
    "request-conflict",
    W,
    "Two sources state a stream's request differently (method, path, body schema); the first source is kept.",
)
REQUEST_MESSAGE_AMBIGUOUS = Code(
    "request-message-ambiguous",
    W,
    "A request operation names several messages; the first is the request body, the others are not read.",
)
REQUEST_PARAMETER_INVALID = Code(
    "request-parameter-invalid", W, "A request parameter has no `name`, or an `in` that is no location; skipped."
)
REQUEST_PATH_PARAMETER_UNDECLARED = Code(
    "request-path-parameter-undeclared",
    W,
    "A `{name}` of a request's path has no parameter declaring it; it is read as a required string.",
)
AUTH_SCHEME_UNKNOWN = Code(
    "auth-scheme-unknown", W, "A security requirement names no scheme of `securitySchemes`; it is skipped."
)
AUTH_SCHEME_UNSUPPORTED = Code(
    "auth-scheme-unsupported",
    W,
    "A security scheme carries no HTTP credential (X509, SASL, user and password); it is skipped.",
)
AUTH_COMBINED = Code(
    "auth-combined", W, "A security requirement asks for several schemes at once; the client sends the first only."
)
RESUME_INVALID = Code(
    "resume-invalid", W, "An `x-ssegen-resume` extension names no resumption ssegen knows, or lacks a member; ignored."
)
RESUME_RECOGNIZED = Code(
    "resume-recognized",
    I,
    "A stream is resumable by its family (Responses `sequence_number`: `starting_after`); no extension states it.",
)
DOCS_REQUEST_NESTED = Code(
    "docs-request-nested",
    I,
    "A flattened docs page loses where an object's members end; the named request members are placed by the page's "
    "markers (a `nullable` member is top-level), and the members without a name are not read.",
)

# -- merge and reconciliation (normalize/) ---------------------------------------------------
MESSAGE_CONFLICT = Code(
    "message-conflict", W, "Two sources define a message of one channel differently; the first (in path order) is kept."
)
FRAMING_CONFLICT = Code(
    "framing-conflict",
    W,
    "Two sources frame one channel differently (`text/event-stream` and newline-delimited JSON); the first "
    "(in path order) is kept.",
)
CHANNEL_ADDRESS_MERGED = Code(
    "channel-address-merged",
    I,
    "Two sources name one endpoint by different addresses (a server base path such as `/v1`); merged under the first.",
)
EXAMPLE_WIDENED = Code(
    "example-widened", W, "An example contradicts the schema; the schema is widened to admit what the provider sends."
)
EXAMPLE_UNMATCHED = Code("example-unmatched", I, "An example event matches no message of its channel.")

# -- discrimination (normalize/discrimination.py) ----------------------------------------------
EVENT_NAMES_PARTIAL = Code(
    "event-names-partial",
    W,
    "Some messages of a channel travel as SSE events named by their `type`, others whose payload fixes "
    "`type` too are shown with no `event:` line, so they are decoded only from `event: message` frames; "
    "add `x-sse-event` to them.",
)
EVENT_NAMED = Code(
    "event-named",
    I,
    "A message travels as its own SSE event type, because the document shows `event:` lines naming it.",
)
MESSAGE_UNION_SPLIT = Code(
    "message-union-split",
    I,
    "A message whose payload is a `oneOf`/`anyOf` of objects is one message per alternative, told apart as the others.",
)
MESSAGES_INDISTINGUISHABLE = Code(
    "messages-indistinguishable",
    W,
    "Two messages of one channel can match the same payload; the one tried first gets it.",
)

# -- accumulation (normalize/accumulation.py) ---------------------------------------------------
ACCUMULATION_UNKNOWN = Code(
    "accumulation-unknown",
    I,
    "A channel fits no accumulation family and states no `x-ssegen-accumulate` plan; its events are only typed.",
)
ACCUMULATE_INVALID = Code(
    "accumulate-invalid",
    W,
    "An `x-ssegen-accumulate` entry names no message, or a step whose action, entry, field, `when` test, member "
    "or path segment cannot be used (the message names which); ignored.",
)

# -- code model (codemodel/) -------------------------------------------------------------------
NAME_DISAMBIGUATED = Code(
    "name-disambiguated",
    W,
    "Two channels, or two messages of a channel, map to one Python identifier; each that is not "
    "exactly that identifier gets a stable suffix (from a hash of its name) in the generated code.",
)
WIRE_VALUE_INVALID = Code(
    "wire-value-invalid",
    E,
    "A value that is sent on the wire (an SSE event name, a literal payload) holds a CR, LF or NUL, "
    "which would split or end its line.",
)
NAME_CONFLICT = Code("name-conflict", W, "Two different schemas have the same name; the later class is renamed.")
IDENTIFIER_RENAMED = Code(
    "identifier-renamed",
    I,
    "A member name is a Python keyword, reserved or starts with a digit; its field is renamed (the wire name is kept).",
)
IDENTIFIER_COLLISION = Code(
    "identifier-collision", W, "Two members map to the same Python identifier; the later field is renamed."
)
IDENTIFIER_LOSSY = Code("identifier-lossy", W, "A member name has no ASCII letter or digit to name a field after.")
MEMBER_NAME_UNSUPPORTED = Code(
    "member-name-unsupported",
    W,
    "A member name holds a quote, backslash or control character that no decoder field can map to; not decoded.",
)
MESSAGE_NOT_OBJECT = Code(
    "message-not-object", W, "A message payload is not an object schema; its events decode as `UnknownEvent`."
)
UNION_UNTAGGED = Code(
    "union-untagged",
    W,
    "A member's `oneOf`/`anyOf` alternatives are objects no member tells apart; the member is decoded as any JSON.",
)
VENDOR_TAG_FIELDS = Code(
    "vendor-tag-fields", W, "Vendor messages are told apart by several members; only the first is used."
)

del E, W, I

#: Every code, by name, in the order of this module.
CATALOGUE: dict[str, Code] = {code.name: code for code in list(globals().values()) if isinstance(code, Code)}


def markdown_table() -> str:
    """The table of codes of docs/codes.md (``| code | severity | meaning |``), one row per code, by name."""
    rows = ["| code | severity | meaning |", "|---|---|---|"]
    rows += [
        f"| `{c.name}` | {c.severity.value} | {c.summary} |" for c in sorted(CATALOGUE.values(), key=lambda c: c.name)
    ]
    return "\n".join(rows) + "\n"
