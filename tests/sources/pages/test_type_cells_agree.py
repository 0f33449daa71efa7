"""The markdown and HTML loaders read a Type cell the same way (one splitter: src/ssegen/sources/pages/cells.py).

Before the page core was shared, ``string or integer`` became a union in
markdown and ``Any`` in HTML, with a wrong ``type-unknown`` warning.
"""

from __future__ import annotations

import pytest
from helpers.pages import member_schema, page_message

from ssegen.diagnostics import Diagnostics
from ssegen.ir import Schema
from ssegen.sources.pages.html import load_html_page
from ssegen.sources.pages.markdown import load_markdown_page

MARKDOWN = """Chunk Structure
| Field | Type | Description |
|---|---|---|
| seed | {cell} | The seed. |
| choices | array | Array of choice objects containing delta. |

data: {{"seed": 1, "choices": []}}
"""

HTML = """# Demo API

<table>
<thead><tr><th colspan="2">Parameter Name</th><th>Type</th><th>Description</th></tr></thead>
<tbody>
<tr><td colspan="2">seed</td><td>{cell}</td><td>The seed.</td></tr>
<tr><td colspan="2">choices</td><td>list</td><td>Results.</td></tr>
<tr><td>-</td><td>delta</td><td>object</td><td>Delta.</td></tr>
</tbody>
</table>
"""


def _seed(template: str, cell: str, html: bool) -> tuple[Schema, list[str]]:
    diagnostics = Diagnostics()
    load = load_html_page if html else load_markdown_page
    page = load(template.format(cell=cell), "demo/page.md", diagnostics)
    chunk = page_message(page, "ChatCompletionChunk").payload
    return member_schema(chunk, "seed"), [d.code for d in diagnostics if d.code == "type-unknown"]


@pytest.mark.parametrize(
    "cell", ["string or integer", "string | integer", "integer, null", "string or integer or null", "tensor"]
)
def test_html_and_markdown_read_a_type_cell_alike(cell: str) -> None:
    md, md_unknown = _seed(MARKDOWN, cell, html=False)
    html, html_unknown = _seed(HTML, cell, html=True)
    assert (html.type, html.name, html.nullable, [v.type for v in html.variants]) == (
        md.type,
        md.name,
        md.nullable,
        [v.type for v in md.variants],
    )
    assert html_unknown == md_unknown


def test_string_or_integer_is_a_union_without_a_warning_in_html() -> None:
    schema, unknown = _seed(HTML, "string or integer", html=True)
    assert (schema.type, schema.name, [v.type for v in schema.variants], unknown) == (
        "union",
        "ChatCompletionChunkSeed",
        ["string", "integer"],
        [],
    )
