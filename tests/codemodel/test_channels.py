"""The channels module's decisions: message order, decoders, tag dispatch, handlers, batch plan."""

from __future__ import annotations

from conftest import SPECS

from codemodel.build_ir import array, channel, done, integer, message, obj, opt, req, string
from ssegen.codemodel.channels import ChannelSpec, channel_spec, common_prefix
from ssegen.codemodel.models import ModelsBuilder
from ssegen.diagnostics import Diagnostics
from ssegen.ir import Channel
from ssegen.load import load_provider
from ssegen.naming import PythonIdentifier


def _spec(ch: Channel) -> tuple[ChannelSpec, Diagnostics]:
    diagnostics = Diagnostics()
    return channel_spec(ch, ModelsBuilder(diagnostics), diagnostics), diagnostics


def _chunk(name: str = "Chunk") -> object:
    """A chat chunk: an id, a model and choices."""
    choices = req("choices", array(obj(f"{name}Choice", req("index", integer()))))
    return message(name, obj(name, req("id", string()), opt("model", string()), choices))


def _vendor(name: str, tag: str, member: str = "type") -> object:
    return message(name, obj(name, req(member, string(tag, name=f"{name}Tag"))), kind="vendor")


def test_required_members_order_messages_most_constrained_first() -> None:
    """Mistral's usage-only chunk (``choices`` with ``maxItems: 0``, specs/mistral/asyncapi-page.txt:427)
    is tried before the general chunk that would also accept it."""
    mistral = load_provider(SPECS, "mistral").provider.channel("/chat/completions")
    assert mistral is not None
    spec, _ = _spec(mistral)
    assert [m.name for m in mistral.messages] == ["ChatCompletionChunk", "ChatCompletionUsageChunk", "StreamDone"]
    assert [m.name for m in spec.messages] == ["StreamDone", "ChatCompletionUsageChunk", "ChatCompletionChunk"]


def test_literal_terminators_come_first_then_tagged_vendors_then_json_by_specificity() -> None:
    loose = message("Loose", obj("Loose", opt("a", string())))
    strict = message("Strict", obj("Strict", req("a", string()), req("b", string())))
    spec, _ = _spec(channel(loose, _vendor("Search", "x_search"), strict, done()))
    assert [m.name for m in spec.messages] == ["Done", "Search", "Strict", "Loose"]
    assert spec.fallback is not None and spec.branches == ()
    assert [m.name for m in spec.fallback.decoders] == ["Strict", "Loose"]
    assert [m.name for m in spec.json_messages] == ["Search", "Strict", "Loose"]


def test_each_json_message_has_its_own_decoder_named_for_message_and_channel() -> None:
    spec, _ = _spec(channel(_chunk(), address="/fim/completions"))
    assert spec.json_messages[0].decoder == "_decode_chunk_fim_completions"
    assert isinstance(spec.json_messages[0].decoder, PythonIdentifier)


def test_generated_names_derive_from_the_channel_identifier() -> None:
    spec, _ = _spec(channel(_chunk()))
    assert spec.fallback is not None
    names = (
        spec.event_type,
        spec.classify,
        spec.runs_table,
        spec.fallback.table,
        spec.fallback.read_tag,
    )
    assert names == (
        "CHAT_COMPLETIONS_EVENT",
        "classify_chat_completions",
        "_APPLY_CHAT_COMPLETIONS",
        "_TAGGED_CHAT_COMPLETIONS",
        "_read_tag_chat_completions",
    )
    assert all(isinstance(n, PythonIdentifier) for n in names)


def test_vendor_messages_dispatch_by_their_tag_and_unlisted_tags_by_common_prefix() -> None:
    spec, diagnostics = _spec(
        channel(_chunk(), _vendor("Search", "x_research.searching"), _vendor("Read", "x_research.reading"))
    )
    branch = spec.fallback
    assert branch is not None
    assert (branch.tag_field, branch.tag_probe, branch.vendor_prefix) == ("type", '"type"', "x_research.")
    assert [(v, [m.name for m in ms]) for v, ms in branch.tagged] == [
        ("x_research.searching", ["Search"]),
        ("x_research.reading", ["Read"]),
    ]
    assert branch.vendor_tags == ("x_research.searching", "x_research.reading")
    assert [m.name for m in branch.decoders] == ["Chunk"]
    assert diagnostics.items == []


def test_common_prefix_is_cut_after_the_last_separator() -> None:
    assert common_prefix(["x_research.a", "x_rest"]) == "x_"
    assert common_prefix(["x_only"]) == ""
    assert common_prefix(["ab", "ac"]) == ""


def test_message_whose_payload_is_not_an_object_is_left_out_with_a_warning() -> None:
    spec, diagnostics = _spec(channel(_chunk(), message("Text", string())))
    assert [m.name for m in spec.messages] == ["Chunk"]
    assert [d.code for d in diagnostics.items] == ["message-not-object"]


def test_run_functions_follow_the_message_kind_or_its_accumulation_plan() -> None:
    error = message("Error", obj("Error", req("message", string())), kind="error", event="error")
    spec, _ = _spec(channel(_chunk(), error, _vendor("Search", "x_search"), done()))
    assert spec.runs == (
        ("Done", "each(on_done)"),
        ("Search", "each(on_vendor)"),
        ("Chunk", "_apply_chat_completions_chunk"),
        ("Error", "each(on_error)"),
        ("VendorEvent", "each(on_vendor)"),
        ("UnknownEvent", "each(on_unknown)"),
        ("StreamTruncated", "each(on_truncated)"),
    )
    assert spec.event_union == "Union[Done, Search, Chunk, Error, VendorEvent, UnknownEvent, StreamTruncated]"


def test_branches_are_per_sse_event_type_sorted_each_in_decode_order() -> None:
    error = message("Error", obj("Error", req("message", string())), kind="error", event="error")
    spec, _ = _spec(channel(_chunk(), error, done()))
    assert [(b.event, [m.name for m in b.literals], [m.name for m in b.decoders]) for b in spec.branches] == [
        ("error", [], ["Error"]),
        ("message", ["Done"], ["Chunk"]),
    ]


def test_batch_plan_when_plain_events_carry_one_json_message() -> None:
    error = message("Error", obj("Error", req("message", string())), kind="error", event="error")
    spec, _ = _spec(channel(_chunk(), error, done()))
    assert spec.batch is not None
    assert (spec.batch.function, spec.batch.message.name) == ("classify_values_chat_completions", "Chunk")
    assert [(s.text, s.ascii) for s in spec.batch.sentinels] == [("[DONE]", True)]


def test_no_batch_plan_with_vendor_tags_and_several_plain_json_messages_batch_the_first_tried() -> None:
    tagged, _ = _spec(channel(_chunk(), _vendor("Search", "x_search")))
    assert tagged.batch is None
    other = message("Other", obj("Other", req("n", integer()), req("m", integer()), req("k", integer())))
    several, _ = _spec(channel(_chunk(), other))
    assert several.batch is not None and several.fallback is not None
    # The most constrained message is tried first by classify, so by the batch too.
    assert several.batch.message.name == several.fallback.decoders[0].name == "Other"
    # Unless it specializes a later one (all its required members and more): most events
    # are then the later one, and the batch would fail at its first.
    choices = req("choices", array(obj("UsageChoice", req("index", integer()))))
    usage = message("UsageChunk", obj("UsageChunk", req("id", string()), choices, req("usage", integer())))
    specialized, _ = _spec(channel(_chunk(), usage))
    assert specialized.batch is None


def _failure(nullable: bool = False) -> object:
    status = obj("Status", opt("message", string()), nullable=nullable)
    return message("Failure", obj("Failure", req("error", status)), kind="error")


def _choices_chunk(*members: object) -> object:
    choice = obj("Choice", opt("index", integer()), opt("text", string()))
    return message("Chunk", obj("Chunk", opt("id", string()), opt("choices", array(choice)), *members))


def test_batch_plan_guards_an_error_message_that_classify_tries_before_the_chunk() -> None:
    """An error message requiring ``error`` (Gemini's ``ErrorResponse``) is tried before the
    chunk, whose members are all optional: a run whose chunks' ``error`` member (which the
    chunk's plan reads) is not sent is decoded as chunks at once."""
    spec, _ = _spec(channel(_choices_chunk(), _failure()))
    assert spec.fallback is not None and [m.name for m in spec.fallback.decoders] == ["Failure", "Chunk"]
    assert spec.batch is not None and spec.batch.message.name == "Chunk"
    assert ([m.name for m in spec.batch.guards], spec.batch.error) == (["Failure"], "error")
    gemini = load_provider(SPECS, "gemini").provider
    assert gemini is not None
    spec, _ = _spec(gemini.channels[0])
    assert spec.batch is not None and spec.batch.message.name == "GenerateContentResponse"
    assert ([m.name for m in spec.batch.guards], spec.batch.error) == (["ErrorResponse"], "error")


def test_no_batch_plan_when_a_message_tried_first_may_hold_a_null_error() -> None:
    """``"error": null`` decodes as a nullable error message but leaves the chunk's
    ``error`` None: the chunk's member cannot tell them apart."""
    spec, _ = _spec(channel(_choices_chunk(), _failure(nullable=True)))
    assert spec.batch is None


def test_non_ascii_sentinel_is_marked_for_encoding() -> None:
    stop = message("Stop", string("[FIN—]"), kind="terminator")
    spec, _ = _spec(channel(_chunk(), stop))
    assert spec.batch is not None
    assert [(s.text, s.ascii) for s in spec.batch.sentinels] == [("[FIN—]", False)]


def test_class_list_names_the_classes_in_decode_order() -> None:
    usage_only = message("UsageChunk", obj("UsageChunk", req("choices", array(integer(), max_items=0))))
    spec, _ = _spec(channel(_chunk(), usage_only, done()))
    assert spec.class_list == "Done, UsageChunk, Chunk"
