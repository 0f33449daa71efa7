"""Pages with HTML parameter tables.

Markup (:mod:`.grid`), Siliconstorm/MindIE's wording (:mod:`.prose`), the loader (:mod:`.page`).
"""

from .page import load_html_page, looks_like_html_table_page

__all__ = ["load_html_page", "looks_like_html_table_page"]
