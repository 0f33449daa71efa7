"""Merge the field facts of an API docs page into a provider's IR (a merge step, not a loader).

The AsyncAPI document of a provider (``specs/deepseek/asyncapi-page.txt``) gives the schema;
the provider's API reference page (``specs/deepseek/api-docs.txt``, read by
:mod:`ssegen.sources.pages.docs_text`) states the same members in other words,
sometimes with other enum values.  :func:`merge_docs` finds, for every fact of
the page, the schema member it describes, reports each match and each
difference, and reconciles them in a new :class:`~ssegen.ir.Provider`.

Matching (deterministic, one fact per member and one member per fact):

* candidates are the object members (:class:`~ssegen.ir.Property`) of every
  message payload on the channel whose address is the page's endpoint,
  recursively through array items and union variants; a member is one
  declaration (file + JSON pointer), however many places use it;
* facts of the ``stream`` section are matched first; ``response`` facts (the
  non-streaming object) only to members no ``stream`` fact matched, so they
  fill gaps and never override; ``request`` facts are never matched;
* the text score of a (fact, member) pair (:func:`text_score`, in [0, 1]) is
  the mean of two numbers: the token overlap of the two descriptions (Dice
  coefficient of their content-word stems, :func:`description_similarity`) and
  how much the docs description names the member (:func:`name_coverage`).  The
  seed's short
  descriptions share words across members ("The model to generate the
  completion." shares two of its three words with ``usage.completion_tokens``'
  "Number of tokens in the generated completion."), and the field name is what
  tells them apart;
* evidence the page states outright comes first:

  - a named fact (``choices`` / ``object[]``) only matches a member of that
    name whose type fits the type line (``object[]`` is an array); for a
    ``stream`` fact (the page describes the chunk itself) the score is
    ``0.5 + 0.5 * text``; a ``response`` fact keeps the text score (the
    non-streaming object has other members of the same name);
  - a fact with values only matches a member with an enum (its own or in a
    union variant) that shares at least one value; the score is
    ``0.5 + 0.4 * j + 0.1 * text`` with ``j`` the Jaccard overlap of the two
    value sets (``[chat.completion]`` never matches ``[chat.completion.chunk]``);
  - any other fact scores its text score;

* assignment is greedy, best pair first (ties: page line, then schema order):
  pairs below :data:`MATCH_THRESHOLD` are never made, and a fact whose best
  free member leads its second best by less than :data:`AMBIGUITY_MARGIN` is
  ambiguous; both are reported (``docs-unmatched``, info) and change nothing.

Reconciling a match (each with a diagnostic; places are the schema's unless said):

============================================  =========================  ========
difference                                    action                     code
============================================  =========================  ========
any match                                     recorded (docs place)      ``docs-matched`` (info)
docs value the schema enum lacks              appended to the enum       ``docs-enum-added`` (warning)
schema enum value the docs do not list        kept                       ``docs-enum-missing`` (warning)
docs value for a non-string enum              not applied                ``docs-enum-not-applied`` (info)
member without a description                  gets the docs description  ``docs-description-added`` (info)
============================================  =========================  ========

A change applies to the member's declaration wherever it is used (also on other
channels), so one named schema stays one class.  A page whose endpoint has no
channel changes nothing (``docs-channel-missing``, warning).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from ..diagnostics import Diagnostics, codes
from ..ir import (
    Message,
    Property,
    Provenance,
    Provider,
    Scalar,
    Schema,
    rewrite_payloads,
)
from ..sources.pages.docs_text import DocsResult, FieldFact

#: Lowest score at which a fact is taken to describe a member.  On seeds
#: 000/001 the stream facts' right members score 0.57-0.99 and their best wrong
#: candidates at most 0.45 ("The contents of the chunk message." vs
#: ``reasoning_content``).
MATCH_THRESHOLD = 0.5

#: A fact whose best free member beats the second best by less than this is
#: ambiguous and left unmatched.  On ``specs/deepseek/api-docs.txt`` the right stream matches lead by
#: 0.12 or more; the response section's "The token." (``logprobs.content[].token``)
#: scores 0.62 for ``usage.prompt_tokens`` and 0.57 for ``usage.total_tokens``.
AMBIGUITY_MARGIN = 0.1

#: Words that carry no meaning for matching descriptions.
STOP_WORDS = frozenset(
    "a an the of in to for and or is are be been this that it its with on by as at from when which "
    "each every all only same will was were has have if not no into than then there these those".split()
)

_WORD = re.compile(r"[a-z0-9]+")


def stems(text: str) -> frozenset[str]:
    """The content-word stems of ``text``: lower case, split on non-alphanumerics
    (``prompt_cache_hit_tokens`` is four words), stop words dropped, and a light
    suffix strip (``-ing``, ``-ed``, ``-es``, ``-s``, then ``-e``) so that
    ``missed``/``misses`` and ``generate``/``generated`` agree."""
    out = set()
    for word in _WORD.findall(text.lower()):
        if word in STOP_WORDS:
            continue
        for suffix in ("ing", "ed", "es", "s"):
            if word.endswith(suffix) and not word.endswith("ss") and len(word) - len(suffix) >= 3:
                word = word[: -len(suffix)]
                break
        if word.endswith("e") and len(word) > 3:
            word = word[:-1]
        out.add(word)
    return frozenset(out)


def description_similarity(a: str, b: str) -> float:
    """Dice coefficient of the :func:`stems` of two descriptions, in [0, 1] (0 if either is empty)."""
    sa, sb = stems(a), stems(b)
    if not sa or not sb:
        return 0.0
    return 2 * len(sa & sb) / (len(sa) + len(sb))


def name_coverage(name: str, description: str) -> float:
    """How much a description names the member ``name``, in [0, 1].

    Half is the share of the name's stems found anywhere in the description
    (``finish_reason`` in "The reason the model stopped" -> 1/2); half is whether
    the description's head word (its first content word: ``model`` in "The model
    to generate the completion.") is one of them.  Field descriptions of ``specs/deepseek/api-docs.txt``
    start with what the field is, so the head word tells "The ID of the tool
    call" (an ``id``) from a ``tool_calls`` member.
    """
    name_stems = stems(name)
    if not name_stems:
        return 0.0
    found = stems(description) & name_stems
    head = next((stems(w) for w in _WORD.findall(description.lower()) if w not in STOP_WORDS), frozenset())
    return 0.5 * len(found) / len(name_stems) + (0.5 if head and head <= name_stems else 0.0)


def text_score(description: str, prop: Property) -> float:
    """Similarity of a docs description to a member: the mean of
    :func:`description_similarity` (against the member's description, or its
    schema's) and :func:`name_coverage` (of the member's name), in [0, 1]."""
    own = prop.description or prop.schema.description
    return 0.5 * description_similarity(description, own) + 0.5 * name_coverage(prop.name, description)


@dataclass(frozen=True)
class _Member:
    """One member declaration on the channel, with the first path that reaches it."""

    key: tuple[str, str, str]
    path: str
    prop: Property
    order: int


@dataclass(frozen=True)
class _Match:
    fact: FieldFact
    member: _Member
    score: float


def merge_docs(provider: Provider, docs: DocsResult, diagnostics: Diagnostics) -> Provider:
    """``provider`` with the facts of a docs page merged in (a new Provider; the input is unchanged).

    Args:
        provider: the IR from the provider's specs (``specs/deepseek/asyncapi-page.txt``).
        docs: the page read by :func:`ssegen.sources.pages.docs_text.load_docs_text`
            (``specs/deepseek/api-docs.txt``); only its ``stream`` and ``response`` facts are used.
        diagnostics: receives one diagnostic per match, difference and unmatched
            fact (codes in the module docstring).

    Returns:
        The merged provider: enums extended and empty descriptions filled on
        matched members, ``docs.file`` appended to ``sources``.  ``provider``
        itself when the page's endpoint has no channel.  Never raises.
    """
    channel = provider.channel(docs.address) if docs.address else None
    if channel is None:
        where = (
            f"endpoint {docs.address!r} is not a channel of provider {provider.name!r}"
            if docs.address
            else "page names no endpoint"
        )
        diagnostics.add(
            codes.DOCS_CHANNEL_MISSING,
            f"the docs {where}; its facts are not merged",
            file=docs.file,
            line=docs.address_line,
        )
        return provider

    matched, unmatched = _match_sections(docs, _members(channel.messages))
    changes = _changes(docs, matched, unmatched, diagnostics)

    def swap_members(schema: Schema, message: Message, root: bool) -> Schema:
        """The schema with each changed member declaration swapped in (shared nodes stay shared)."""
        props = tuple(changes.get(_key(prop), prop) for prop in schema.properties)
        if all(a is b for a, b in zip(props, schema.properties, strict=True)):
            return schema
        return replace(schema, properties=props)

    merged = rewrite_payloads(provider, swap_members)
    sources = provider.sources
    if docs.file and docs.file not in sources:
        sources = sources + (docs.file,)
    return replace(merged, sources=sources)


def _match_sections(docs: DocsResult, members: list[_Member]) -> tuple[dict[int, _Match], dict[int, str]]:
    """``(matched, unmatched)`` by ``id`` of the fact: the page's ``stream`` facts assigned
    to the members first (:func:`_assign`), then its ``response`` facts to the members left;
    each fact left out with the reason."""
    matched: dict[int, _Match] = {}
    unmatched: dict[int, str] = {}
    taken: set[tuple[str, str, str]] = set()
    for section in ("stream", "response"):
        facts = [f for f in docs.facts if f.section == section]
        free = [m for m in members if m.key not in taken]
        found, left = _assign(facts, free)
        matched.update((id(m.fact), m) for m in found)
        unmatched.update((id(f), reason) for f, reason in left)
        taken.update(m.member.key for m in found)
    return matched, unmatched


def _changes(
    docs: DocsResult, matched: dict[int, _Match], unmatched: dict[int, str], diagnostics: Diagnostics
) -> dict[tuple[str, str, str], Property]:
    """Each matched member's declaration with its fact merged in (:func:`_reconcile`), by member
    key; the facts are reconciled and the unmatched ones reported in page line order."""
    changes: dict[tuple[str, str, str], Property] = {}
    for fact in sorted(docs.facts, key=lambda f: f.provenance.line):
        if id(fact) in matched:
            match = matched[id(fact)]
            changes[match.member.key] = _reconcile(match, diagnostics)
        elif id(fact) in unmatched:
            _report_unmatched(fact, unmatched[id(fact)], docs.address, diagnostics)
    return changes


# -- candidates ----------------------------------------------------------------------------


def _members(messages: tuple[Message, ...]) -> list[_Member]:
    """Member declarations reachable from the payloads, in depth-first schema order."""
    found: dict[tuple[str, str, str], _Member] = {}
    seen: set[int] = set()

    def walk(schema: Schema, path: str) -> None:
        if id(schema) in seen:
            return
        seen.add(id(schema))
        for prop in schema.properties:
            key = _key(prop)
            here = f"{path}.{prop.name}"
            if key not in found:
                found[key] = _Member(key, here, prop, len(found))
            walk(prop.schema, here)
        if schema.items is not None:
            walk(schema.items, path + "[]")
        for variant in schema.variants:
            walk(variant, path)

    for message in messages:
        walk(message.payload, message.name)
    return list(found.values())


def _key(prop: Property) -> tuple[str, str, str]:
    return (prop.provenance.file, prop.provenance.pointer, prop.name)


def _enum_schema(schema: Schema) -> Schema | None:
    """The schema holding the member's enum: itself, or the union variant that has one."""
    if schema.enum:
        return schema
    if schema.type == "union":
        for variant in schema.variants:
            if variant.enum:
                return variant
    return None


# -- scoring and assignment ------------------------------------------------------------------


def _type_compatible(word: str, schema: Schema) -> bool:
    """Whether a name block's type line (``object``, ``object[]``) fits ``schema``."""
    if not word or schema.type in ("any", "union"):
        return True
    if word.endswith("[]"):
        return schema.type == "array"
    if word == "number":
        return schema.type in ("number", "integer")
    return schema.type == word


def _score(fact: FieldFact, member: _Member) -> float:
    """How well ``fact`` describes ``member`` (0 rules the pair out); see the module docstring."""
    prop = member.prop
    if fact.name and (fact.name != prop.name or not _type_compatible(fact.type, prop.schema)):
        return 0.0
    holder = _enum_schema(prop.schema)
    if fact.values and holder is None:
        return 0.0
    text = text_score(fact.description, prop)
    if fact.values and holder is not None:
        docs_values = set(fact.values)
        schema_values = {str(v) for v in holder.enum}
        overlap = len(docs_values & schema_values) / len(docs_values | schema_values)
        if overlap == 0:
            return 0.0
        return round(0.5 + 0.4 * overlap + 0.1 * text, 4)
    if fact.name and fact.section == "stream":
        return round(0.5 + 0.5 * text, 4)
    return round(text, 4)


def _assign(facts: list[FieldFact], members: list[_Member]) -> tuple[list[_Match], list[tuple[FieldFact, str]]]:
    """Greedy one-to-one assignment, best pair first; returns matches and (fact, reason) for the rest.

    At each step the fact whose best free member scores highest is taken (ties:
    page line, then schema order).  Below :data:`MATCH_THRESHOLD` the
    assignment stops; a fact whose second-best free member is within
    :data:`AMBIGUITY_MARGIN` of its best is left out as ambiguous.
    """
    scores = {(i, j): _score(f, m) for i, f in enumerate(facts) for j, m in enumerate(members)}
    open_facts = list(range(len(facts)))
    free = list(range(len(members)))
    found: list[_Match] = []
    reasons: dict[int, str] = {}
    while open_facts and free:
        score, i, j, second, runner_up = _best_pair(scores, open_facts, free, facts, members)
        if score < MATCH_THRESHOLD:
            break
        open_facts.remove(i)
        if score - second < AMBIGUITY_MARGIN:
            reasons[i] = f"ambiguous: {members[j].path} scores {score:.2f} and {members[runner_up].path} {second:.2f}"
            continue
        free.remove(j)
        found.append(_Match(facts[i], members[j], score))
    for i in open_facts:
        if i not in reasons:
            reasons[i] = _unmatched_reason(scores, i, free, members)
    unmatched = [(facts[i], reasons[i]) for i in sorted(reasons)]
    return found, unmatched


def _best_pair(
    scores: dict[tuple[int, int], float],
    open_facts: list[int],
    free: list[int],
    facts: list[FieldFact],
    members: list[_Member],
) -> tuple[float, int, int, float, int]:
    """``(score, fact, member, second score, runner-up member)`` of the open fact whose best
    free member scores highest (ties: page line, then schema order); the runner-up is the
    fact's second-best free member (``-1``, scoring 0, when there is none)."""
    ranked: list[tuple[float, int, int, float, int]] = []
    for i in open_facts:
        order = sorted(free, key=lambda j: (-scores[i, j], members[j].order))
        best = order[0]
        second = scores[i, order[1]] if len(order) > 1 else 0.0
        ranked.append((scores[i, best], i, best, second, order[1] if len(order) > 1 else -1))
    ranked.sort(key=lambda r: (-r[0], facts[r[1]].provenance.line, members[r[2]].order))
    return ranked[0]


def _unmatched_reason(scores: dict[tuple[int, int], float], i: int, free: list[int], members: list[_Member]) -> str:
    """Why fact ``i`` was left unmatched: the free member scoring highest for it, if any
    scores above 0 (ties: schema order), else "no candidate"."""
    candidates = [(scores[i, j], members[j].order, j) for j in free if scores[i, j] > 0]
    if not candidates:
        return "no candidate"
    score, _, j = max(candidates, key=lambda c: (c[0], -c[1]))
    return f"closest {members[j].path} scores {score:.2f}"


# -- reconciling ---------------------------------------------------------------------------


def _label(fact: FieldFact) -> str:
    what = f"field {fact.name!r}" if fact.name else "field"
    return f"{fact.section} {what} at {fact.provenance.file}:{fact.provenance.line}"


def _place(prov: Provenance) -> str:
    return f"{prov.file}:{prov.line} {prov.pointer or '/'}"


def _report_unmatched(fact: FieldFact, reason: str, address: str, diagnostics: Diagnostics) -> None:
    prov = fact.provenance
    diagnostics.at(
        prov,
        codes.DOCS_UNMATCHED,
        f"{_label(fact)} matches no member on {address} ({reason}; threshold {MATCH_THRESHOLD}); not merged",
    )


def _reconcile(match: _Match, diagnostics: Diagnostics) -> Property:
    """The member's property after the fact is applied, with one diagnostic per difference."""
    fact, member = match.fact, match.member
    prop = member.prop
    docs_place = f"{fact.provenance.file}:{fact.provenance.line}"
    prov = fact.provenance
    diagnostics.at(
        prov,
        codes.DOCS_MATCHED,
        f"{_label(fact)} describes {member.path} ({_place(prop.provenance)}), score {match.score:.2f}",
    )
    new_schema = prop.schema
    holder = _enum_schema(prop.schema) if fact.values else None
    if holder is not None:  # always so for a fact with values (see _score)
        new_holder = _reconcile_enum(holder, fact, member.path, docs_place, diagnostics)
        if new_holder is not holder:
            new_schema = (
                new_holder
                if holder is prop.schema
                else replace(
                    prop.schema, variants=tuple(new_holder if v is holder else v for v in prop.schema.variants)
                )
            )
    new_prop = prop if new_schema is prop.schema else replace(prop, schema=new_schema)
    if not prop.description.strip() and fact.description:
        where = prop.provenance
        new_prop = replace(new_prop, description=fact.description)
        diagnostics.at(
            where,
            codes.DOCS_DESCRIPTION_ADDED,
            f"{member.path} has no description; the docs' ({docs_place}) is used",
        )
    return new_prop


def _reconcile_enum(holder: Schema, fact: FieldFact, path: str, docs_place: str, diagnostics: Diagnostics) -> Schema:
    """``holder`` with the values the docs add (reported), the ones they lack reported and kept."""
    where = holder.provenance
    schema_values = [str(v) for v in holder.enum]
    added: list[Scalar] = []
    for value in fact.values:
        if value in schema_values or value in added:
            continue
        if holder.type != "string":
            diagnostics.at(
                where,
                codes.DOCS_ENUM_NOT_APPLIED,
                f"the docs ({docs_place}) list {value!r} for {path}, whose enum is {holder.type}; not applied",
            )
            continue
        added.append(value)
        diagnostics.at(
            where,
            codes.DOCS_ENUM_ADDED,
            f"the docs ({docs_place}) list {value!r} for {path}, which the schema enum lacks; added",
        )
    for value in schema_values:
        if value not in fact.values:
            diagnostics.at(
                where,
                codes.DOCS_ENUM_MISSING,
                f"the schema enum of {path} has {value!r}, which the docs ({docs_place}) do not list; kept",
            )
    if not added:
        return holder
    return replace(holder, enum=holder.enum + tuple(added))
