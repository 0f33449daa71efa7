"""The catalogue of diagnostic codes: complete, used, and the table of docs/codes.md generated from it."""

from __future__ import annotations

import re

from conftest import ROOT

from ssegen.diagnostics import Diagnostics
from ssegen.diagnostics.codes import CATALOGUE, Severity, markdown_table

SRC = ROOT / "src" / "ssegen"


def _constant_names() -> dict[str, str]:
    from ssegen.diagnostics import codes

    return {name: value.name for name, value in vars(codes).items() if isinstance(value, codes.Code)}


def test_every_code_is_reported_somewhere_in_ssegen() -> None:
    sources = "\n".join(p.read_text(encoding="utf-8") for p in SRC.rglob("*.py") if p.name != "codes.py")
    unused = [const for const in _constant_names() if not re.search(rf"\bcodes\.{const}\b", sources)]
    assert unused == [], "catalogued but never reported (remove them, or report them)"


def test_codes_are_kebab_case_unique_and_summarised() -> None:
    constants = _constant_names()
    assert len(set(constants.values())) == len(constants) == len(CATALOGUE)
    for const, name in constants.items():
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", name), name
        assert const == name.upper().replace("-", "_"), (const, name)
        summary = CATALOGUE[name].summary
        assert summary.endswith(".") and "\n" not in summary, name


def test_no_code_is_written_as_a_string_literal_at_a_call_site() -> None:
    pattern = re.compile(r"\.(?:add|at)\(\s*(?:[\w.()\[\]]+,\s*)?\"[a-z]+(?:-[a-z0-9]+)+\"")
    offenders = [str(p.relative_to(ROOT)) for p in SRC.rglob("*.py") if pattern.search(p.read_text(encoding="utf-8"))]
    assert offenders == []


def test_severity_comes_from_the_catalogue() -> None:
    from ssegen.diagnostics import codes

    diagnostics = Diagnostics()
    diag = diagnostics.add(codes.NULLABLE_KEYWORD, "normalized", file="a.yaml", line=3, pointer="/x")
    assert (diag.code, diag.severity) == ("nullable-keyword", codes.NULLABLE_KEYWORD.severity)
    assert diag.format() == f"a.yaml:3: /x: {diag.severity.value}[nullable-keyword]: normalized"
    assert diagnostics.add(codes.PROVIDER_EMPTY, "x").severity is Severity.ERROR


def test_docs_table_of_codes_is_generated_from_the_catalogue() -> None:
    from diagnostics.regen_codes import END, PAGE, START, refreshed

    page = PAGE.read_text(encoding="utf-8")
    assert page.count(START) == page.count(END) == 1, f"{PAGE}: one {START} ... {END} table"
    assert refreshed(page) == page, "refresh docs/codes.md: python tests/diagnostics/regen_codes.py"


def test_refreshing_the_codes_page_replaces_the_table_and_keeps_the_text_around_it() -> None:
    from diagnostics.regen_codes import END, START, refreshed

    stale = f"# Codes\n\nprose\n\n{START}\n| code | severity | meaning |\n|---|---|---|\n{END}\n\nafter\n"
    assert refreshed(stale) == f"# Codes\n\nprose\n\n{START}\n{markdown_table()}{END}\n\nafter\n"
