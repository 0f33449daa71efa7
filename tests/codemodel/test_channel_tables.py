"""Which of a channel's tables ``channels.py`` writes out and which it builds from another
(``codemodel/channel_tables.py``), and run functions of equal bodies written once
(``codemodel/shared_runs.py``)."""

from __future__ import annotations

from functools import cache

from conftest import SPECS

from ssegen.codemodel import PackageSpec, build_package_spec
from ssegen.codemodel.accumulation import ApplyPlan
from ssegen.codemodel.channel_tables import _lenient
from ssegen.codemodel.shared_runs import shared_runs
from ssegen.diagnostics import Diagnostics
from ssegen.load import load_provider
from ssegen.naming import PythonIdentifier


@cache
def _package(name: str) -> PackageSpec:
    provider = load_provider(SPECS, name).provider
    assert provider is not None
    return build_package_spec(provider, Diagnostics())


def test_responses_writes_the_event_table_once_and_builds_the_others_from_it() -> None:
    ch = _package("openai_responses").channels[0]
    tables = ch.tables
    assert ch.by_event is not None and len(tables.event_rows) == len(ch.by_event.entries) == 58
    assert dict(tables.event_rows) == {event: cls for cls, event in ch.encoding.events}
    assert [cls for _, cls in tables.event_rows] == [m.cls for m in ch.messages]  # decode order
    assert tables.encoding_from_events and tables.names_from_messages and tables.lenient_from_events
    assert (tables.lenient_every_event, tables.lenient_rows) == ("*", ())
    assert [(t.from_events, t.rows) for t in tables.tagged] == [(True, ())]
    assert tables.decoders == ()  # no code calls a decoder by name: every one is in a table
    assert dict(tables.usage_rows) == dict.fromkeys(
        ["ResponseCompletedEvent", "ResponseIncompleteEvent", "ResponseFailedEvent"], "response.usage"
    )


def test_a_vendor_tag_table_is_written_as_classes_its_lenient_row_and_runs_built_from_it() -> None:
    ch = _package("xerotier").channels[0]
    tables = ch.tables
    (tagged,) = tables.tagged
    assert tagged.single and tagged.vendor_keys and not tagged.from_events
    assert tagged.classes == "_TAGGED_CHAT_COMPLETIONS_CLASSES" and tagged.run == "each(on_vendor)"
    assert len(tagged.rows) == 47
    assert tables.lenient_rows == (
        ("error", "", ("StreamError",)),
        ("message", tagged.classes, ("ChatCompletionChunk",)),  # the vendor classes, then the chunk
    )
    vendor = {cls for _, (cls,) in tagged.rows}
    assert not vendor & {cls for cls, _ in tables.runs}
    own = {"UnknownEvent", "StreamTruncated"}  # runtime stream.EVERY_CHANNEL_RUNS: every channel's
    assert {cls for cls, _ in tables.runs} | vendor | own == {cls for cls, _ in ch.runs}
    assert not own & {cls for cls, _ in tables.runs}
    assert [m.name for m in tables.decoders] == ["ChatCompletionChunk", "StreamError"]  # called by name


def test_lenient_rows_unlike_the_event_table_are_written_out() -> None:
    events = (("a", "A"), ("b", "B"))
    same = (("a", ("A",)), ("b", ("B",)), ("*", ("A", "B")))
    assert _lenient(same, events) == ((), True, "*")
    other = (("a", ("A",)), ("b", ("B", "C")), ("*", ("B", "A")))
    assert _lenient(other, events) == (other, False, "")
    assert _lenient(other, ()) == (other, False, "")


def test_run_functions_of_equal_bodies_are_written_once_typed_with_the_union() -> None:
    body = ("blocks[chunk.index].close()",)
    plans = (
        ApplyPlan(PythonIdentifier.verbatim("_apply_end"), "End", body),
        ApplyPlan(PythonIdentifier.verbatim("_apply_delta"), "Delta", ("x",)),
        ApplyPlan(PythonIdentifier.verbatim("_apply_call_end"), "CallEnd", body),
    )
    runs = (("End", "_apply_end"), ("Delta", "_apply_delta"), ("CallEnd", "_apply_call_end"), ("Done", "each(on_done)"))
    merged, rows = shared_runs(plans, runs)
    assert [(p.function, p.cls) for p in merged] == [("_apply_end", "End | CallEnd"), ("_apply_delta", "Delta")]
    assert rows == (
        ("End", "_apply_end"),
        ("Delta", "_apply_delta"),
        ("CallEnd", "_apply_end"),
        ("Done", "each(on_done)"),
    )


def test_cohere_shares_the_run_function_closing_a_block() -> None:
    ch = _package("cohere").channels[0]
    runs = dict(ch.runs)
    assert runs["ToolCallEndEvent"] == runs["ContentEndEvent"] == "_apply_chat_content_end"
    assert "_apply_chat_tool_call_end" not in {p.function for p in ch.plans}
