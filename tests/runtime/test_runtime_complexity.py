"""Every function of the runtime modules stays small enough for a newcomer to follow (issue 26):
cyclomatic complexity (radon's count, the one ``radon cc`` prints) and length, docstring
included, below fixed limits.

``CHECKED`` lists the modules held to the limits: every module copied into generated packages
(``runtime.MODULES`` and ``runtime.FLAVOUR_MODULES``), so a new one is held to them from the start."""

from __future__ import annotations

from pathlib import Path

import pytest
from radon.complexity import cc_visit
from radon.visitors import Class, Function

from ssegen import output, runtime

RUNTIME = Path(output.runtime_dir())
CHECKED = (*runtime.MODULES, *runtime.FLAVOUR_MODULES)
MAX_COMPLEXITY = 15
MAX_LINES = 60


def _functions(blocks: list[Function | Class]) -> list[Function]:
    """The functions and methods of ``blocks`` (``cc_visit`` lists methods apart from their
    class), with their closures."""
    found: list[Function] = []
    for block in blocks:
        if isinstance(block, Function):
            found += [block, *_functions(block.closures)]
    return found


def _oversized(source: str) -> list[str]:
    """``name (line N): complexity C, L lines`` for each function over a limit."""
    return [
        f"{f.fullname} (line {f.lineno}): complexity {f.complexity}, {f.endline - f.lineno + 1} lines"
        for f in _functions(cc_visit(source))
        if f.complexity > MAX_COMPLEXITY or f.endline - f.lineno + 1 > MAX_LINES
    ]


@pytest.mark.parametrize("name", CHECKED)
def test_no_runtime_function_is_too_complex_or_too_long(name: str) -> None:
    assert _oversized((RUNTIME / name).read_text(encoding="utf-8")) == []


def test_the_check_finds_a_complex_function_a_long_one_and_a_method() -> None:
    branches = "".join(f"    if x == {i}:\n        return {i}\n" for i in range(16))
    complex_function = f"def branchy(x):\n{branches}    return -1\n"
    long_method = "class C:\n    def long(self):\n" + "        y = 1\n" * 60 + "        return y\n"
    found = _oversized(complex_function + "\n\n" + long_method)
    assert [line.split(" (")[0] for line in found] == ["branchy", "C.long"]
    assert _oversized("def small(x):\n    return x\n") == []
