"""The groups the default run deals out whole (``helpers.scheduling``): each names a test that
exists, so a renamed test or module cannot silently fall out of its group (it would only build
its shared fixture once more, in another worker)."""

from __future__ import annotations

import re

import pytest
from conftest import ROOT
from helpers.scheduling import GROUPS, SharedFixtureScheduling, group_of


@pytest.mark.parametrize("test", sorted(GROUPS))
def test_each_group_entry_names_a_module_or_test_function_that_exists(test: str) -> None:
    module, _, function = test.partition("::")
    path = ROOT / module
    assert path.is_file(), f"{module} does not exist"
    if function:
        assert re.search(rf"^def {re.escape(function)}\(", path.read_text(encoding="utf-8"), re.MULTILINE), (
            f"{module} has no test function {function}"
        )


def test_a_test_is_in_the_group_of_its_function_or_module() -> None:
    hostile = "tests/e2e/test_hostile_specs.py::test_cli_reports_the_expected_diagnostics[empty-enum]"
    assert group_of(hostile) == GROUPS["tests/e2e/test_hostile_specs.py"]
    regenerate = "tests/e2e/test_golden.py::test_regenerating_reproduces_committed_output"
    seeds = "tests/e2e/test_golden.py::test_the_seeds_build_strict_and_print_at_most_one_screen"
    assert group_of(regenerate) == group_of(seeds) is not None
    assert group_of("tests/e2e/test_golden.py::test_ir_and_diagnostics_match_the_golden_records[cohere]") is None
    pydantic = "tests/runtime/test_encoding.py::test_a_number_sent_as_an_integer_is_written_back_as_one[pydantic]"
    assert group_of(pydantic) == group_of("tests/e2e/test_pydantic_flavour.py::test_unknown_model_is_refused")


def test_the_scheduler_makes_one_scope_of_a_group_and_one_of_every_other_test() -> None:
    # the scope of a test id needs none of the state a run's scheduler holds (its workers)
    scheduling = SharedFixtureScheduling.__new__(SharedFixtureScheduling)
    corpus = [f"tests/e2e/test_corpus.py::test_corpus_document_generates_without_crashing[{e}]" for e in "ab"]
    assert scheduling._split_scope(corpus[0]) == scheduling._split_scope(corpus[1])
    alone = ["tests/test_layers.py::test_a", "tests/test_layers.py::test_b"]
    assert [scheduling._split_scope(nodeid) for nodeid in alone] == alone
