"""Siliconstorm/MindIE's wording: what ``specs/siliconstorm/inference-api.md`` says in words.

* a string member whose description is a list of ``- value: meaning`` items
  lists its values (``finish_reason``: ``stop``, ``length``;
  ``specs/siliconstorm/inference-api.md:830``): :func:`listed_values`;
* an example stream introduced with ``“fullTextEnabled”=true`` was produced in
  MindIE's full-text mode, each delta repeating the text so far
  (``specs/siliconstorm/inference-api.md:704``): :func:`says_full_text`.
"""

from __future__ import annotations

import re


def listed_values(description: str) -> list[str]:
    """``stop``, ``length`` from a description whose top-level ``- value:`` items list the values ([] otherwise)."""
    items = [line[2:] for line in description.split("\n") if line.startswith("- ")]
    values = []
    for item in items:
        match = re.match(r"^([A-Za-z_][\w]*)\s*[:：]", item)
        if not match:
            return []
        values.append(match.group(1))
    return values


def says_full_text(intro: str) -> bool:
    """True when a stream's introduction says ``fullTextEnabled`` = true (cumulative deltas)."""
    return bool(re.search(r"fullTextEnabled\W*=\s*true", intro, re.IGNORECASE))
