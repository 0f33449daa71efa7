"""Source loaders: a registry of formats, each with a ``detect`` and a ``load``.

A file's format is told from its content, never its name, by trying
:data:`FORMATS` in priority order:

* ``asyncapi-page``: a scraped AsyncAPI page whose raw YAML follows a line reading
  ``Raw ↑`` (``specs/deepseek/asyncapi-page.txt``, ``specs/mistral/asyncapi-page.txt``);
* ``asyncapi``: a YAML/JSON document with a top-level ``asyncapi`` key;
* ``openapi``: an OpenAPI 3.x YAML/JSON document (a top-level ``openapi: 3.x`` key), read for
  its ``text/event-stream`` responses (:mod:`.openapi`);
* ``html-tables``: a documentation page whose field tables are HTML
  (``specs/siliconstorm/inference-api.md``);
* ``markdown-tables``: a streaming documentation page with markdown tables
  (``specs/xerotier/streaming-api.md``);
* ``docs-text``: an API reference page flattened to text (``specs/deepseek/api-docs.txt``).

AsyncAPI and OpenAPI come first (their documents may contain tables in their descriptions).
A new format is one :class:`SourceFormat` entry here and a module (or folder) of its own
beside ``asyncapi/`` and the page loaders; loaders are imported only when used, so
``ssegen check`` stays fast.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..diagnostics import Diagnostics, codes
from .asyncapi import detect_asyncapi, detect_asyncapi_page, load_asyncapi_source
from .base import SourceInput, SourceResult
from .openapi import detect_openapi, load_openapi_source

if TYPE_CHECKING:
    from .pages.messages import PageResult

#: What a format's detector gives for a file it recognises: (document text, lines before it).
Found = tuple[str, int]


@dataclass(frozen=True)
class SourceFormat:
    """One source format of the registry.

    Attributes:
        name: the format's name, as printed by diagnostics and tests (``asyncapi-page``, ...).
        detect: ``text -> (document, line_offset)`` when the text is of this format, else None.
        load: reads a detected source into a :class:`SourceResult`; None when the source is
            unusable (its error diagnostic says why). Never raises for bad input.
    """

    name: str
    detect: Callable[[str], Found | None]
    load: Callable[[SourceInput, Diagnostics], SourceResult | None]


@dataclass(frozen=True)
class Detected:
    """A source's format and the part of its text that holds the document.

    Attributes:
        format: the :class:`SourceFormat` that recognised it.
        text: the embedded document text.
        line_offset: lines of the file before ``text`` (for provenance).
    """

    source_format: SourceFormat
    text: str
    line_offset: int

    @property
    def format(self) -> str:
        """The format's name (``asyncapi``, ``markdown-tables``, ...)."""
        return self.source_format.name


def _whole(looks_like: Callable[[str], bool]) -> Callable[[str], Found | None]:
    return lambda text: (text, 0) if looks_like(text) else None


def _looks_like_html_page(text: str) -> bool:
    from .pages.html import looks_like_html_table_page

    return looks_like_html_table_page(text)


def _looks_like_markdown_page(text: str) -> bool:
    from .pages.markdown import looks_like_markdown_streaming_page

    return looks_like_markdown_streaming_page(text)


def _looks_like_docs_text(text: str) -> bool:
    from .pages.docs_text import looks_like_docs_text

    return looks_like_docs_text(text)


def _load_html_page(source: SourceInput, diagnostics: Diagnostics) -> SourceResult:
    from .pages.html import load_html_page

    return _page_result(load_html_page(source.text, source.file, diagnostics), source.file, diagnostics)


def _load_markdown_page(source: SourceInput, diagnostics: Diagnostics) -> SourceResult:
    from .pages.markdown import load_markdown_page

    return _page_result(load_markdown_page(source.text, source.file, diagnostics), source.file, diagnostics)


def _load_docs_text(source: SourceInput, diagnostics: Diagnostics) -> SourceResult:
    from .pages.docs_text import load_docs_text

    return SourceResult(source.file, docs=load_docs_text(source.text, source.file, diagnostics))


def _page_result(page: PageResult, file: str, diagnostics: Diagnostics) -> SourceResult:
    """A documentation page's parts; a page with no stream still gives its examples and error codes."""
    if page.channel is None:
        diagnostics.add(
            codes.PAGE_NO_STREAM, "the page describes no stream; only its examples and error codes are used", file=file
        )
    address = page.channel.address if page.channel is not None else "/chat/completions"
    return SourceResult(
        file,
        title=page.title,
        channels=(page.channel,) if page.channel is not None else (),
        error_codes=tuple(page.error_codes),
        example_streams=tuple(stream.to_ir(address) for stream in page.example_streams),
    )


#: Every format, in the order detection tries them.
FORMATS: tuple[SourceFormat, ...] = (
    SourceFormat("asyncapi-page", detect_asyncapi_page, load_asyncapi_source),
    SourceFormat("asyncapi", detect_asyncapi, load_asyncapi_source),
    SourceFormat("openapi", detect_openapi, load_openapi_source),
    SourceFormat("html-tables", _whole(_looks_like_html_page), _load_html_page),
    SourceFormat("markdown-tables", _whole(_looks_like_markdown_page), _load_markdown_page),
    SourceFormat("docs-text", _whole(_looks_like_docs_text), _load_docs_text),
)


def detect(text: str) -> Detected | None:
    """The format of a source file's ``text`` (the first of :data:`FORMATS` to recognise it), or None."""
    for source_format in FORMATS:
        found = source_format.detect(text)
        if found is not None:
            return Detected(source_format, *found)
    return None
