"""Documentation pages (not specs) -> IR parts, in three layers.

* markup, knowing markup and nothing of chat completions:
  :mod:`.markdown.blocks` (markdown-it-py blocks and GFM tables, with the
  scrape's repairs) and :mod:`.html.grid` (lxml tables laid out on a grid);
* one table/field core shared by both: :mod:`.sections` (lines, sections,
  pointers), :mod:`.cells` (the Type cell), :mod:`.fields` (field rows ->
  properties), :mod:`.instances` (schemas from and checked against example
  JSON), :mod:`.messages` (the messages every streaming page yields, and
  :class:`~.messages.PageResult`), :mod:`.wire` (the example-stream frame
  reader and :class:`~.wire.PageStream`);
* the providers' wording: :mod:`.markdown.prose` (Xerotier,
  ``specs/xerotier/streaming-api.md``) and :mod:`.html.prose`
  (Siliconstorm/MindIE, ``specs/siliconstorm/inference-api.md``);

and the loaders that put them together: :func:`.markdown.load_markdown_page`
and :func:`.html.load_html_page`.  An API reference page flattened to text
(``specs/deepseek/api-docs.txt``) is read by :mod:`.docs_text` into field facts, which
:mod:`ssegen.normalize.docs` matches to the schema.

Pointer scheme for pages (JSON pointers into a document that is not JSON):

================================================  ===============================
pointer                                           names
================================================  ===============================
``/sections/<slug>``                              a section (its title line)
``/sections/<slug>/lines/<n>``                    prose line ``n`` after the title
``/sections/<slug>/tables/<k>/rows/<n>``          body row ``n`` of table ``k``
``/sections/<slug>/examples/<k>``                 example stream ``k``
``/sections/<slug>/examples/<k>/events/<n>``      event ``n`` of that stream
``/lines/<n>``                                    line ``n + 1`` before any section
================================================  ===============================

All pointer indexes are 0-based (line numbers everywhere else are 1-based);
``<slug>`` is the GitHub anchor of the section title (lowercase, punctuation
dropped, spaces to ``-``; a repeated slug gets ``-1``, ``-2``, ... in page
order), so a pointer survives edits to other sections.
"""
