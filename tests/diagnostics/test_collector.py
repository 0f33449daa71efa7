"""The diagnostics collector keeps each finding once, in the order first seen, and tells a
repeat apart without comparing it with every finding already kept."""

from __future__ import annotations

import pytest

from ssegen.diagnostics import Diagnostic, Diagnostics, codes


def test_a_repeated_diagnostic_is_kept_once_in_first_seen_order() -> None:
    diagnostics = Diagnostics()
    diagnostics.add(codes.NULLABLE_KEYWORD, "b", file="x.yaml", line=2)
    diagnostics.add(codes.NULLABLE_KEYWORD, "a", file="x.yaml", line=1)
    diagnostics.add(codes.NULLABLE_KEYWORD, "b", file="x.yaml", line=2)
    diagnostics.extend(
        [*diagnostics, Diagnostic("y.yaml", 3, "", "nullable-keyword", codes.NULLABLE_KEYWORD.severity, "c")]
    )
    assert [d.message for d in diagnostics] == ["b", "a", "c"]


def test_a_collector_built_from_a_list_drops_its_repeats() -> None:
    first = Diagnostic("x.yaml", 1, "", "nullable-keyword", codes.NULLABLE_KEYWORD.severity, "a")
    diagnostics = Diagnostics([first, first])
    diagnostics.extend([first])
    assert diagnostics.items == [first]


def test_adding_thousands_of_diagnostics_does_not_compare_each_with_every_earlier_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    comparisons = 0
    equal = Diagnostic.__eq__

    def counting(self: Diagnostic, other: object) -> bool:
        nonlocal comparisons
        comparisons += 1
        return equal(self, other)

    monkeypatch.setattr(Diagnostic, "__eq__", counting)
    diagnostics = Diagnostics()
    for line in range(1, 3001):
        diagnostics.add(codes.NULLABLE_KEYWORD, "nullable", file="big.yaml", line=line)
        diagnostics.add(codes.NULLABLE_KEYWORD, "nullable", file="big.yaml", line=line)
    assert len(diagnostics) == 3000
    assert comparisons <= 3000  # one per repeat (a hash match), not one per diagnostic kept
