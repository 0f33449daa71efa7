"""The readers of ``src/ssegen/sources`` stay small enough to follow (issue 32, item 5): no
block (function, method or class, as ``radon cc`` lists them) above cyclomatic complexity 15,
no module over 700 lines."""

from __future__ import annotations

from pathlib import Path

import pytest
from radon.complexity import cc_visit
from radon.visitors import Class, Function

import ssegen.sources

SOURCES = Path(ssegen.sources.__file__).parent
MODULES = sorted(p.relative_to(SOURCES).as_posix() for p in SOURCES.rglob("*.py"))
MAX_COMPLEXITY = 15
MAX_MODULE_LINES = 700


def _blocks(blocks: list[Function | Class]) -> list[Function | Class]:
    """``blocks`` with their closures (``cc_visit`` lists methods apart from their class)."""
    found: list[Function | Class] = []
    for block in blocks:
        found.append(block)
        if isinstance(block, Function):
            found += _blocks(block.closures)
    return found


def _too_complex(source: str) -> list[str]:
    """``name (line N): complexity C`` for each block over :data:`MAX_COMPLEXITY`."""
    return [
        f"{b.fullname} (line {b.lineno}): complexity {b.complexity}"
        for b in _blocks(cc_visit(source))
        if b.complexity > MAX_COMPLEXITY
    ]


@pytest.mark.parametrize("name", MODULES)
def test_no_block_of_the_sources_is_too_complex(name: str) -> None:
    assert _too_complex((SOURCES / name).read_text(encoding="utf-8")) == []


@pytest.mark.parametrize("name", MODULES)
def test_no_module_of_the_sources_is_too_long(name: str) -> None:
    assert len((SOURCES / name).read_text(encoding="utf-8").splitlines()) <= MAX_MODULE_LINES


def test_the_check_finds_a_complex_function_and_method() -> None:
    def branches(indent: str) -> str:
        return "".join(f"{indent}if x == {i}:\n{indent}    return {i}\n" for i in range(16))

    function = f"def branchy(x):\n{branches('    ')}    return -1\n"
    method = f"class C:\n    def branchy(self, x):\n{branches('        ')}        return -1\n"
    found = _too_complex(function + "\n\n" + method)
    assert [line.split(" (")[0] for line in found] == ["branchy", "C", "C.branchy"]
    assert _too_complex("def small(x):\n    return x\n") == []
