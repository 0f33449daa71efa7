"""The accumulator as compiled code sees it (``runtime/sink.py``, issue 32 item 3): generated run
functions reach the accumulator through exactly the members the ``Sink``, ``ChoiceSink`` and
``BlockSink`` protocols declare, and ``Accumulator`` (``ChoiceState``, ``BlockState``) has each
of them. mypy --strict checks the same from the other side: the generated packages against the
protocols (``tests/e2e/test_generated_quality.py``), the runtime handing its accumulator to run
functions typed on a ``Sink`` (``stream.Run``)."""

from __future__ import annotations

import ast
import inspect
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import GENERATED, GENERATED_PROVIDERS
from helpers.every_step import EVERY_STEP
from helpers.packages import generated_package

from ssegen.runtime import sink, stream
from ssegen.runtime.accumulate import Accumulator, BlockState, ChoiceState

#: What a name in a run function holds, by the expression bound to it.
SINK, CHOICE, BLOCK, STATES, BLOCKS, TEXTS = "Sink", "ChoiceSink", "BlockSink", "states", "blocks", "texts"
#: The members of the sink that are its mappings (read as ``states.get``, ``blocks[...]``, ``texts.get``).
MAPPINGS = {"states": STATES, "blocks": BLOCKS, "texts": TEXTS}


def _declared(protocol: type) -> set[str]:
    """The members protocol class ``protocol`` of ``sink.py`` declares (methods, properties, attributes)."""
    tree = ast.parse(Path(inspect.getfile(sink)).read_text(encoding="utf-8"))
    [node] = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == protocol.__name__]
    return {
        item.name if isinstance(item, ast.FunctionDef) else item.target.id  # type: ignore[union-attr]
        for item in node.body
        if isinstance(item, ast.FunctionDef) or (isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name))
    }


class _Uses:
    """The members of the sink, its choices and its blocks one run function reads or writes."""

    def __init__(self, function: ast.FunctionDef) -> None:
        self.held: dict[str, str] = {function.args.args[0].arg: SINK}
        bindings = [n for n in ast.walk(function) if isinstance(n, (ast.Assign, ast.NamedExpr))]
        for _ in range(3):  # what a name holds may follow from a name bound after it in the walk
            for node in bindings:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                held = self.kind(node.value)
                for target in targets:
                    if isinstance(target, ast.Name) and held:
                        self.held[target.id] = held
        self.found = {
            (held, node.attr)
            for node in ast.walk(function)
            if isinstance(node, ast.Attribute) and (held := self.kind(node.value)) in (SINK, CHOICE, BLOCK)
        }

    def kind(self, node: ast.expr) -> str:
        """What ``node`` evaluates to, of the sink's parts ("" for anything else)."""
        if isinstance(node, ast.Name):
            return self.held.get(node.id, "")
        if isinstance(node, ast.BoolOp):  # ``states.get(i) or acc.choice(i)``
            return self.kind(node.values[-1])
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if self.kind(node.func.value) == SINK and node.func.attr == "choice":
                return CHOICE
        if isinstance(node, ast.Subscript) and self.kind(node.value) == BLOCKS:
            return BLOCK
        if isinstance(node, ast.Attribute) and self.kind(node.value) == SINK:
            return MAPPINGS.get(node.attr, "")
        return ""


def _run_functions(source: str) -> Iterator[ast.FunctionDef]:
    """The run functions of a generated ``channels.py``: those taking a ``Sink``."""
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef) and node.args.args:
            annotation = node.args.args[0].annotation
            if isinstance(annotation, ast.Name) and annotation.id == "Sink":
                yield node


def _handlers(source: str) -> set[str]:
    """The ``sink.on_*`` functions a generated ``channels.py``'s runs tables name."""
    return {n.id for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Name) and n.id.startswith("on_")}


def _used(sources: list[str]) -> dict[str, set[str]]:
    """The members of each protocol the run functions of ``sources`` use, and those the ``on_*``
    handlers their runs tables name use."""
    used: dict[str, set[str]] = {SINK: set(), CHOICE: set(), BLOCK: set()}
    # The runs every channel shares are the runtime's (stream.EVERY_CHANNEL_RUNS), not a package's.
    shared = Path(inspect.getfile(stream)).read_text(encoding="utf-8")
    handlers = {n for source in [*sources, shared] for n in _handlers(source)}
    module = ast.parse(Path(inspect.getfile(sink)).read_text(encoding="utf-8"))
    functions = [n for n in module.body if isinstance(n, ast.FunctionDef)]
    for function in [*(f for s in sources for f in _run_functions(s)), *(f for f in functions if f.name in handlers)]:
        for held, name in _Uses(function).found:
            used[held].add(name)
    return used


@pytest.fixture(scope="module")
def sources(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The ``channels.py`` of every generated package, and of a package whose stated plans use
    every step (``helpers.every_step``)."""
    found = [(GENERATED / name / "channels.py").read_text(encoding="utf-8") for name in GENERATED_PROVIDERS]
    with generated_package(tmp_path_factory.mktemp("every"), {"asyncapi.yaml": EVERY_STEP}) as (package, _):
        found.append(Path(inspect.getfile(package.CHANNELS.__class__)).read_text(encoding="utf-8"))
    return found


def test_compiled_code_uses_exactly_the_members_the_protocols_declare(sources: list[str]) -> None:
    used = _used(sources)
    for protocol in (sink.Sink, sink.ChoiceSink, sink.BlockSink):
        assert used[protocol.__name__] == _declared(protocol), protocol.__name__


def test_generated_packages_name_only_the_sink_of_the_runtime_accumulator(sources: list[str]) -> None:
    """No generated module names ``Accumulator``: its runs tables name the ``sink.on_*`` handlers."""
    for source in sources:
        assert "Accumulator" not in source
        assert _handlers(source) <= {name for name in vars(sink) if name.startswith("on_")}


def test_the_usage_the_test_reads_is_what_the_source_says() -> None:
    """The reading itself: a choice from ``states.get(...) or acc.choice(...)``, a block from
    ``blocks[...]``, attributes written as well as read."""
    source = (
        "def _apply(acc: Sink, chunks: Any) -> None:\n"
        "    states = acc.states\n    blocks = acc.blocks\n"
        "    for chunk in chunks:\n"
        "        state = states.get(0) or acc.choice(0)\n"
        "        state.finish_reason = chunk.x\n"
        "        blocks[chunk.i].text.append(chunk.y)\n"
        "        acc.stop_reason = chunk.z\n"
    )
    [function] = _run_functions(source)
    assert _Uses(function).found == {
        (SINK, "states"),
        (SINK, "blocks"),
        (SINK, "choice"),
        (SINK, "stop_reason"),
        (CHOICE, "finish_reason"),
        (BLOCK, "text"),
    }


@pytest.mark.parametrize(
    ("protocol", "implementation"),
    [(sink.Sink, Accumulator), (sink.ChoiceSink, ChoiceState), (sink.BlockSink, BlockState)],
)
def test_the_accumulator_has_every_member_of_the_protocols(protocol: type, implementation: type) -> None:
    """Each member is an attribute of an instance, and each method takes the protocol's
    parameters (names, in order, and defaults)."""
    instances = {Accumulator: Accumulator(), ChoiceState: ChoiceState(0, False), BlockState: BlockState(0)}
    instance = instances[implementation]
    for name in _declared(protocol):
        assert hasattr(instance, name), (implementation.__name__, name)
        declared = getattr(protocol, name, None)
        if inspect.isfunction(declared):
            expected = [(p.name, p.default) for p in inspect.signature(declared).parameters.values()][1:]
            actual = [(p.name, p.default) for p in inspect.signature(getattr(instance, name)).parameters.values()]
            assert actual == expected, (implementation.__name__, name)
