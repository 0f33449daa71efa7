"""The request a documentation page shows (``sources/pages/request.py``), its HTML request
parameter table (``html/request.py``) and a flattened page's request section
(``docs_request.py``), on small pages written here."""

from __future__ import annotations

import pytest

from ssegen.diagnostics import Diagnostics
from ssegen.ir import Provenance, Request
from ssegen.sources.pages.docs_text import load_docs_text
from ssegen.sources.pages.html import load_html_page
from ssegen.sources.pages.html.request import is_required, value_type
from ssegen.sources.pages.request import lines_request


def _request(text: str, address: str = "/chat/completions") -> Request | None:
    lines = list(enumerate(text.split("\n"), start=1))
    return lines_request(lines, address, lambda n: Provenance("p/page.md", n, f"/lines/{n - 1}"))


CURL = """## API
Method：POST
**URL**：https://api.example.com/v1/chat/completions
```bash
curl --location --request POST 'https://api.example.com/v1/chat/completions'
--header 'Authorization: Bearer {ApiKey}'
--header 'Content-Type: application/json'
--data-raw '{
  "model": "m",
  "stream":true
}'
```
Responses come as `Content-Type: text/event-stream`.
"""


def test_curl_page_gives_method_server_auth_media_type_and_example_body() -> None:
    request = _request(CURL)
    assert request is not None
    assert (request.method, request.path, request.servers) == (
        "POST",
        "/chat/completions",
        ("https://api.example.com/v1",),
    )
    assert request.provenance.line == 2
    (auth,) = request.auth
    assert (auth.type, auth.parameter, auth.scheme, auth.provenance.line) == ("http", "Authorization", "bearer", 6)
    body = request.body
    assert body is not None and body.schema is None and body.media_type == "application/json"
    assert body.examples == ('{"model":"m","stream":true}',)
    assert request.stream is not None and request.stream.stated == "prose" and request.stream.provenance.line == 10


TEMPLATE = """# Streaming
When stream: true is set in the request, the response streams.
Set stream_options.include_usage for usage.
Files are at GET /v1/files/{id}.
Dashboards call POST /:project_id/:endpoint/v1/chat/completions directly.
curl -X POST \\
https://api.example.com/proj_1/ep/v1/chat/completions \\
-H "x-api-key: k" \\
-d '{"model": "m"}'
"""


def test_path_template_gives_path_parameters_and_the_url_origin_as_server() -> None:
    request = _request(TEMPLATE)
    assert request is not None
    assert request.method == "POST" and request.provenance.line == 5  # not the GET of line 4
    assert request.path == "/{project_id}/{endpoint}/v1/chat/completions"
    assert [(p.name, p.location, p.required) for p in request.parameters] == [
        ("project_id", "path", True),
        ("endpoint", "path", True),
    ]
    assert request.servers == ("https://api.example.com",)
    (auth,) = request.auth
    assert (auth.type, auth.location, auth.parameter) == ("apiKey", "header", "x-api-key")
    assert request.stream is not None and request.stream.provenance.line == 2
    assert request.include_usage is not None and request.include_usage.path == ("stream_options", "include_usage")
    assert request.body is not None and request.body.examples == ('{"model":"m"}',)


def test_a_page_showing_no_request_gives_none() -> None:
    assert _request("# Streaming\nEach event is a chunk.\n") is None


@pytest.mark.parametrize(
    ("cell", "kind"),
    [
        ("String type. Possible roles are:\n- system: System role\n- user: User role", "string"),
        ("Float type, value range [-2.0, 2.0], default value 0.0.", "number"),
        ("Int32 type, value range [0, 2147483647].", "integer"),
        ("UInt64 type, value range [0, 18446744073709551615].", "integer"),
        ("Bool type, default value is false.", "boolean"),
        ("List type, with at most 4MB of text.", "array"),
        ("Type is List[dict].", "array"),
        ("Type is dict.", "object"),
        ("List[string] type or string type, default value null.", "array | string"),
        ('string type or dict type, can be null, default value is "auto".', "string | object | null"),
        ("- string:\n  - content may be omitted.\n- list: Follows the inputs format.", "string | array"),
        ("- text: Text\n- image_url: Image", "string"),
        ("JSON schema format.", ""),
        ("Must match the value of `modelName` in the configuration file.", ""),
    ],
)
def test_value_requirements_cell_states_the_type(cell: str, kind: str) -> None:
    assert value_type(cell) == kind


@pytest.mark.parametrize(
    ("cell", "required"),
    [
        ("Required", True),
        ("必选", True),
        ("Optional", False),
        ("可选", False),
        ('Required when the role is "tool", otherwise optional.', False),
    ],
)
def test_required_cell(cell: str, required: bool) -> None:
    assert is_required(cell) is required


REQUEST_TABLE = """# Demo API

Method：POST

**URL**：https://api.example.com/v1/chat/completions

# Request Parameters

<table>
<thead><tr><th colspan="3">Parameter</th><th>Required</th><th>Description</th><th>Value Requirements</th></tr></thead>
<tbody>
<tr><td colspan="3">model</td><td>Required</td><td>Model name.</td><td>String type.</td></tr>
<tr><td colspan="3">messages</td><td>Required</td><td>The messages.</td><td>List type.</td></tr>
<tr><td rowspan="3">-</td><td colspan="2">role</td><td>Required</td><td>The role.</td>
<td><ul><li>user: User role</li><li>assistant: Assistant role</li></ul></td></tr>
<tr><td colspan="2">content</td><td>必选</td><td>The content.</td>
<td><ul><li>string: plain text</li><li>list: content parts</li></ul></td></tr>
<tr><td>-</td><td>text</td><td>Optional</td><td>A text part.</td><td>String.</td></tr>
<tr><td colspan="3">stream</td><td>Optional</td><td>Stream or not.</td><td>Bool type, default value is false.</td></tr>
</tbody>
</table>

### Table 2

Explanation of Streaming Inference Results

<table>
<thead><tr><th colspan="3">Parameter Name</th><th>Type</th><th>Description</th></tr></thead>
<tbody>
<tr><td colspan="3">id</td><td>string</td><td>Request ID.</td></tr>
<tr><td colspan="3">choices</td><td>list</td><td>Results.</td></tr>
<tr><td rowspan="2">-</td><td colspan="2">index</td><td>integer</td><td>Index.</td></tr>
<tr><td colspan="2">delta</td><td>object</td><td>Delta.</td></tr>
</tbody>
</table>
"""


def test_html_request_table_is_the_body_schema_of_the_page_request() -> None:
    diagnostics = Diagnostics()
    page = load_html_page(REQUEST_TABLE, "p/page.md", diagnostics)
    assert page.channel is not None and page.channel.request is not None
    request = page.channel.request
    assert (request.method, request.servers) == ("POST", ("https://api.example.com/v1",))
    assert request.body is not None and request.body.schema is not None
    schema = request.body.schema
    assert schema.name == "ChatCompletionRequest" and schema.provenance.line == 9
    assert [(p.name, p.required, p.schema.type) for p in schema.properties] == [
        ("model", True, "string"),
        ("messages", True, "array"),
        ("stream", False, "boolean"),
    ]
    message = schema.properties[1].schema.items
    assert message is not None
    role, content = message.properties
    assert role.schema.enum == ("user", "assistant") and role.required
    assert role.provenance.pointer == "/sections/request-parameters/tables/0/rows/2"
    # A plain value or a list of the parts nested under it.
    assert content.required and content.schema.type == "union"
    assert [v.type for v in content.schema.variants] == ["string", "array"]
    parts = content.schema.variants[1].items
    assert parts is not None and [(p.name, p.required) for p in parts.properties] == [("text", False)]
    assert "table-skipped" not in {d.code for d in diagnostics}
    assert not [d for d in diagnostics if d.severity.value != "info"], [d.format() for d in diagnostics]


DOCS = """Create Chat Completion
POST/chat/completions
Creates a completion.
Request
- application/json
Body
required
messages
object[]
required
A list of messages.
ID of the model to use.
tools
object[]
nullable
A list of tools.
function
object
required
The function.
parameters
object
The parameters, as a JSON Schema.
stream_options
object
nullable
Options for streaming response. Only set this when you set stream: true
.
Responses
- 200 (Streaming)
OK, returns a streamed sequence of chunks
- text/event-stream
Possible values: [chat.completion.chunk
]
The object type.
"""


def test_flattened_request_section_places_named_members_by_its_markers() -> None:
    diagnostics = Diagnostics()
    result = load_docs_text(DOCS, "p/docs.txt", diagnostics)
    request = result.request
    assert request is not None and (request.method, request.path) == ("POST", "/chat/completions")
    assert request.provenance.line == 2
    body = request.body
    assert body is not None and body.required and body.media_type == "application/json"
    schema = body.schema
    assert schema is not None and schema.name == "CreateChatCompletionRequest"
    assert [(p.name, p.required, p.schema.nullable) for p in schema.properties] == [
        ("messages", True, False),
        ("tools", False, True),
        ("stream_options", False, True),
    ]
    tools = schema.properties[1].schema
    assert tools.type == "array" and tools.items is not None
    (function,) = tools.items.properties
    assert function.name == "function" and function.required
    assert [p.name for p in function.schema.properties] == ["parameters"]
    assert request.stream is not None and request.stream.stated == "prose"
    (nested,) = [d for d in diagnostics if d.code == "docs-request-nested"]
    assert "placed function in tools, parameters in function" in nested.message
    assert "1 fact without a member name" in nested.message


UNIONS = """Create Chat Completion
POST/chat/completions
Creates a completion.
Request
- application/json
Body
required
messages
object[]
required
A list of messages.
oneOf
The contents of the system message.
stop
object
nullable
Up to 16 sequences where the API will stop generating further tokens.
oneOf
string
string
tool_choice
object
nullable
Controls which (if any) tool is called by the model.
oneOf
string
Possible values: [none
, auto
]
Possible values: [function
]
The type of the tool.
function
object
required
The name of the function to call.
Responses
- 200 (Streaming)
OK, returns a streamed sequence of chunks
"""


def test_flattened_request_member_with_type_lines_below_its_oneof_is_their_union() -> None:
    """``stop``'s ``oneOf`` / ``string`` / ``string`` is a string or an array of strings
    (``specs/deepseek/api-docs.txt:80``-82); ``tool_choice`` is its enum of strings (the values
    on the line after the type line) or the object of the member placed in it; ``messages``'
    ``oneOf`` is followed by prose: no types, the member stays an array of objects."""
    result = load_docs_text(UNIONS, "p/docs.txt", Diagnostics())
    assert result.request is not None and result.request.body is not None
    schema = result.request.body.schema
    assert schema is not None
    messages, stop, tool_choice = schema.properties
    assert messages.schema.type == "array" and messages.schema.items is not None
    assert messages.schema.items.type == "object"
    assert stop.schema.type == "union" and stop.schema.nullable
    string, strings = stop.schema.variants
    assert string.type == "string" and string.provenance.line == 19
    assert strings.type == "array" and strings.items is not None and strings.items.type == "string"
    assert tool_choice.schema.type == "union" and tool_choice.schema.nullable
    mode, named = tool_choice.schema.variants
    assert (mode.type, mode.enum, mode.name) == (
        "string",
        ("none", "auto"),
        "CreateChatCompletionRequestToolChoiceValue",
    )
    assert named.type == "object" and [p.name for p in named.properties] == ["function"]
    assert named.description == "Controls which (if any) tool is called by the model."
    assert [u.line for u in result.unions] == [12, 18, 25]
