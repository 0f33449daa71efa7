"""Markdown streaming pages: markup (:mod:`.blocks`), Xerotier's wording (:mod:`.prose`), the loader (:mod:`.page`)."""

from .page import load_markdown_page, looks_like_markdown_streaming_page

__all__ = ["load_markdown_page", "looks_like_markdown_streaming_page"]
