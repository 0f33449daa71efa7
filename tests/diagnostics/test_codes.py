"""The catalogue of diagnostic codes: complete, used, and the README's table generated from it."""

from __future__ import annotations

import re

from conftest import ROOT

from ssegen.diagnostics import Diagnostics
from ssegen.diagnostics.codes import CATALOGUE, Severity, markdown_table

SRC = ROOT / "src" / "ssegen"
README_START, README_END = "<!-- codes:start -->", "<!-- codes:end -->"


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


def test_readme_table_of_codes_is_generated_from_the_catalogue() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start, end = readme.index(README_START) + len(README_START), readme.index(README_END)
    assert readme[start:end].strip("\n") + "\n" == markdown_table(), "refresh the README's table from `ssegen codes`"
