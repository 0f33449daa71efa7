"""Names (``ssegen.naming``): spec strings to Python names, the same on every Python."""

from __future__ import annotations

import keyword

import pytest

from ssegen.naming import HARD_KEYWORDS, ClassName, PythonIdentifier


def test_hard_keywords_cover_the_running_pythons_keywords() -> None:
    assert set(keyword.kwlist) <= HARD_KEYWORDS


@pytest.mark.parametrize("name", ["type", "match", "case"])
def test_soft_keywords_are_kept_as_written(name: str) -> None:
    assert PythonIdentifier(name) == name
    assert PythonIdentifier.verbatim(name) == name


@pytest.mark.parametrize(("text", "expected"), [("class", "class_"), ("from", "from_"), ("async", "async_")])
def test_hard_keywords_get_a_trailing_underscore(text: str, expected: str) -> None:
    assert PythonIdentifier(text) == expected
    with pytest.raises(ValueError):
        PythonIdentifier.verbatim(text)


def test_class_names_avoid_keywords_and_imported_names() -> None:
    assert ClassName("none") == "None_"
    assert ClassName("any") == "Any_"
