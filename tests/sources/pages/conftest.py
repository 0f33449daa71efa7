"""Fixtures of the two page-loader test modules: each module names its page (``SPEC``) and how it
is read (``_load(text) -> (PageResult, Diagnostics)``); the fixtures load it once per module."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ssegen.diagnostics import Diagnostics
from ssegen.sources.pages.messages import PageResult


@pytest.fixture(scope="module")
def source(request: pytest.FixtureRequest) -> str:
    """The module's page, from its verbatim copy under specs/ (tests/conftest.py SEED_SPECS proves the copy)."""
    spec: Path = request.module.SPEC
    return spec.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def loaded(request: pytest.FixtureRequest, source: str) -> tuple[PageResult, Diagnostics]:
    load: Any = request.module._load
    result: tuple[PageResult, Diagnostics] = load(source)
    return result


@pytest.fixture(scope="module")
def page(loaded: tuple[PageResult, Diagnostics]) -> PageResult:
    return loaded[0]


@pytest.fixture(scope="module")
def diags(loaded: tuple[PageResult, Diagnostics]) -> Diagnostics:
    return loaded[1]


@pytest.fixture(scope="module")
def lines(source: str) -> list[str]:
    return source.split("\n")
