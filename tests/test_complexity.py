"""Complexity limits over all of ``src/ssegen`` (issue 32): no block above
:data:`MAX_COMPLEXITY`, at most :data:`MAX_COMPLEX_BLOCKS` above :data:`COMPLEX`, no module over
:data:`MAX_MODULE_LINES` lines.

A block is what ``radon cc`` scores: a function, a method, a class (its methods' average), and
a closure too.  Every target is met (the last long modules, ``runtime/accumulate.py``,
``runtime/stream.py`` and ``ir.py``, were split by job); each failure lists its offenders."""

from __future__ import annotations

from radon.complexity import cc_visit
from radon.visitors import Class, Function

from ssegen import output

SOURCE = output.package_dir()

#: No block above this complexity.
MAX_COMPLEXITY = 25
#: What a block above this complexity is called here: complex.
COMPLEX = 15
#: At most this many complex blocks.
MAX_COMPLEX_BLOCKS = 10
#: No module over this many lines.
MAX_MODULE_LINES = 700
#: The folders held to more than the package: no complex block at all (the spec readers).
STRICT_FOLDERS = ("sources/",)


def _blocks(blocks: list[Function | Class]) -> list[Function | Class]:
    """``blocks`` with the closures of each function (``cc_visit`` lists methods apart from
    their class already)."""
    found: list[Function | Class] = []
    for block in blocks:
        found.append(block)
        if isinstance(block, Function):
            found += _blocks(block.closures)
    return found


def _scored(source: str, module: str) -> list[tuple[int, str]]:
    """``(complexity, "module name (line N): complexity C")`` of every block of ``source``."""
    return [
        (b.complexity, f"{module} {b.fullname} (line {b.lineno}): complexity {b.complexity}")
        for b in _blocks(cc_visit(source))
    ]


def _modules() -> dict[str, str]:
    """Every module of ssegen by its path under ``src/ssegen``, as text."""
    return {p.relative_to(SOURCE).as_posix(): p.read_text(encoding="utf-8") for p in sorted(SOURCE.rglob("*.py"))}


def _over(limit: int) -> list[str]:
    """The blocks of ssegen above ``limit``, most complex first."""
    scored = [s for module, source in _modules().items() for s in _scored(source, module)]
    return [line for complexity, line in sorted(scored, key=lambda s: -s[0]) if complexity > limit]


def _long_modules() -> dict[str, int]:
    """The modules over :data:`MAX_MODULE_LINES` lines, with their line counts."""
    lengths = {module: len(source.splitlines()) for module, source in _modules().items()}
    return {module: lines for module, lines in lengths.items() if lines > MAX_MODULE_LINES}


def _report(offenders: list[str]) -> str:
    return f"{len(offenders)}:\n" + "\n".join(offenders)


# --- the targets (issue 32) ---------------------------------------------------------------------------


def test_no_block_above_the_maximum() -> None:
    over = _over(MAX_COMPLEXITY)
    assert over == [], f"blocks above {MAX_COMPLEXITY}: {_report(over)}"


def test_no_complex_block_in_the_strict_folders() -> None:
    over = [
        line
        for module, source in _modules().items()
        if module.startswith(STRICT_FOLDERS)
        for complexity, line in _scored(source, module)
        if complexity > COMPLEX
    ]
    assert over == [], f"blocks above {COMPLEX} in {', '.join(STRICT_FOLDERS)}: {_report(over)}"


def test_few_complex_blocks() -> None:
    over = _over(COMPLEX)
    assert len(over) <= MAX_COMPLEX_BLOCKS, f"blocks above {COMPLEX}: {_report(over)}"


def test_no_module_over_the_line_limit() -> None:
    long = _long_modules()
    assert long == {}, f"modules over {MAX_MODULE_LINES} lines: {long}"


# --- the measure itself ------------------------------------------------------------------------------


def test_the_measure_sees_functions_methods_classes_and_closures() -> None:
    branches = "".join(f"    if x == {i}:\n        return {i}\n" for i in range(16))
    nested = branches.replace("    ", "        ")  # the same branches, indented under a def
    source = (
        f"def branchy(x):\n{branches}    return -1\n\n\n"
        f"def outer(x):\n    def inner(x):\n{nested}        return -1\n    return inner\n\n\n"
        f"class C:\n    def method(self, x):\n{nested}        return -1\n"
    )
    scored = _scored(source, "m.py")
    assert sorted(line.split(" (")[0] for complexity, line in scored if complexity > COMPLEX) == [
        "m.py C",
        "m.py C.method",
        "m.py branchy",
        "m.py inner",
    ]
