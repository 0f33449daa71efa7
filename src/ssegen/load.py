"""Load a provider folder (``specs/<provider>/``) into one IR :class:`Provider`.

A provider is a folder; every file in it is a source. In this order:

1. each file's format is detected by content and read by its loader
   (:data:`ssegen.sources.FORMATS`) into a :class:`~ssegen.sources.base.SourceResult`;
2. the results are merged by channel address and message name
   (:func:`ssegen.normalize.merge.merge_sources`);
3. facts of a flattened docs page are matched to the schema fields they describe
   (:func:`ssegen.normalize.docs.merge_docs`), and its example streams added;
4. a message whose payload is a union of objects becomes one message per alternative
   (:func:`ssegen.normalize.discrimination.split_unions`);
5. schemas are widened where the provider's own examples contradict them
   (:func:`ssegen.normalize.examples.reconcile_examples`);
6. each channel gets its discrimination plan
   (:func:`ssegen.normalize.discrimination.plan_channels`) and its accumulation plan
   (:func:`ssegen.normalize.accumulation.plan_accumulation`);
7. each channel's request is completed (the body members the client sets, the resumption
   its family allows) and its gaps reported (:func:`ssegen.normalize.request.complete_requests`).

A source that cannot be read gives an error diagnostic naming it, and the other
sources of the provider are still used.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .diagnostics import Diagnostics, codes
from .discover import NotRegularFileError, is_outside, provider_names, read_regular, source_files
from .ir import Provider
from .naming import PythonIdentifier, did_you_mean, distinct_identifiers, is_package_name
from .normalize.accumulation import plan_accumulation
from .normalize.discrimination import plan_channels, split_unions
from .normalize.docs import merge_docs
from .normalize.examples import reconcile_examples
from .normalize.merge import merge_sources, unique_streams
from .normalize.request import attach_request, complete_requests
from .runtime import RUNTIME_FOLDER
from .sources import detect
from .sources.base import SourceInput, SourceResult
from .sources.refs import RefResolver


@dataclass
class LoadResult:
    """A provider's IR and what was noticed while building it.

    Attributes:
        provider: the merged IR (None when no source could be read).
        diagnostics: every diagnostic, in discovery order.
        inputs: every file read, relative to the specs folder, sorted: the
            provider folder's files and files outside it reached by ``$ref``.
    """

    provider: Provider | None
    diagnostics: Diagnostics = field(default_factory=Diagnostics)
    inputs: tuple[str, ...] = ()


def load_provider(specs: Path, name: str) -> LoadResult:
    """Read ``specs/<name>/`` into a :class:`Provider` (see :func:`_load_provider`); a
    structure nested too deep for any later step is an error, never a traceback."""
    try:
        return _load_provider(specs, name)
    except RecursionError:
        diagnostics = Diagnostics()
        diagnostics.add(
            codes.SOURCE_TOO_DEEP,
            f"the sources of {name!r} nest deeper than ssegen follows; nothing generated",
            file=f"{name}/",
        )
        return LoadResult(None, diagnostics)


def _load_provider(specs: Path, name: str) -> LoadResult:
    """Read ``specs/<name>/`` into a :class:`Provider`.

    Args:
        specs: the specs folder (provenance paths are relative to it).
        name: the provider folder name.

    Returns:
        A :class:`LoadResult`; never raises for bad input (errors are diagnostics).
    """
    diagnostics = Diagnostics()
    folder = specs / name
    problem = provider_problem(specs, name)
    if problem is not None:
        diagnostics.add(*problem, file="" if problem[0] is codes.PROVIDER_MISSING else f"{name}/")
        return LoadResult(None, diagnostics)
    resolver = RefResolver(specs, diagnostics)
    results = _load_sources(specs, folder, resolver, diagnostics)
    inputs = _inputs(specs, folder, resolver)
    provider = merge_sources(name, results, diagnostics)
    if provider is None:
        if not diagnostics.has_errors:
            diagnostics.add(codes.PROVIDER_EMPTY, _why_empty(name, results), file=f"{name}/")
        return LoadResult(None, diagnostics, inputs)
    for docs in (result.docs for result in results if result.docs is not None):
        provider = merge_docs(provider, docs, diagnostics)
        provider = attach_request(provider, docs.address, docs.request, diagnostics)
        streams = [stream.to_ir(docs.address or "/chat/completions") for stream in docs.example_streams]
        provider = replace(provider, example_streams=unique_streams([*provider.example_streams, *streams]))
    provider = split_unions(provider, diagnostics)
    provider = reconcile_examples(provider, diagnostics)
    provider = plan_channels(provider, diagnostics)
    provider = plan_accumulation(provider, diagnostics)
    provider = complete_requests(provider, diagnostics)
    check_names(provider, diagnostics)
    return LoadResult(provider, diagnostics, inputs)


def check_names(provider: Provider, diagnostics: Diagnostics) -> None:
    """Report what would make a generated name or wire value ambiguous.

    * channels (and a channel's messages) whose Python identifiers coincide
      (``/v1/chat`` and ``/v1-chat``): ``name-disambiguated``, naming the identifier each
      is generated under (:func:`ssegen.naming.distinct_identifiers`, as the code model
      uses it), so ``ssegen ir`` shows them;
    * an event name holding CR, LF or NUL (``x-sse-event: "oops\\r\\ndata: x"``), or a
      terminator's literal payload holding CR or NUL: ``wire-value-invalid``, an error.
    """
    _report_shared([(c.address, c.provenance) for c in provider.channels], "channel", "channels", diagnostics)
    for channel in provider.channels:
        _report_shared(
            [(m.name, m.provenance) for m in channel.messages],
            "field",
            f"messages of channel {channel.address!r}",
            diagnostics,
        )
        for message in channel.messages:
            bad = [c for c in ("\r", "\n", "\0") if c in message.event]
            if bad:
                diagnostics.at(
                    message.provenance,
                    codes.WIRE_VALUE_INVALID,
                    f"message {message.name!r} travels as SSE event type {message.event!r}, which holds "
                    f"{' and '.join(map(repr, bad))}: an `event:` line cannot carry it",
                )
            # A whitespace keep-alive ("\r\n", literal-keepalive) is matched as the transport delivers
            # it (channel.parse), never as a `data:` value: only a terminator's literal is checked.
            literal = message.literal if message.kind != "keepalive" else None
            if literal is not None and ("\r" in literal or "\0" in literal):
                diagnostics.at(
                    message.provenance,
                    codes.WIRE_VALUE_INVALID,
                    f"message {message.name!r} is the literal payload {message.literal!r}, which holds a CR or "
                    "NUL: no `data:` line carries it",
                )


def _report_shared(named: list[tuple[str, Any]], prefix: str, what: str, diagnostics: Diagnostics) -> None:
    idents = distinct_identifiers([name for name, _ in named], prefix)
    for name, provenance in named:
        base = PythonIdentifier(name, prefix)
        if idents[name] != base:
            others = [other for other, _ in named if other != name and PythonIdentifier(other, prefix) == base]
            diagnostics.at(
                provenance,
                codes.NAME_DISAMBIGUATED,
                f"{what} {name!r} and {', '.join(map(repr, others))} map to the Python identifier {base!r}; "
                f"{name!r} is generated as {idents[name]!r}",
            )


def _missing(specs: Path, name: str) -> str:
    """``no provider folder 'acmee' under specs; did you mean 'acme'? (providers: ...)``."""
    found = provider_names(specs)
    hint = did_you_mean(name, found)
    listed = f" (providers: {', '.join(found)})" if found else " (it holds no provider folder)"
    return f"no provider folder {name!r} under {specs}{hint}{listed}"


def provider_problem(specs: Path, name: str) -> tuple[codes.Code, str] | None:
    """Why ``name`` cannot be read as a provider folder of ``specs``, or None.

    A provider is one folder directly in ``specs`` whose name is a Python package name
    (so not ``..`` nor a path), inside the specs folder once symbolic links are resolved:
    a provider folder linked to ``/etc`` is refused, not read.  ``generate``, ``check``
    and ``ir`` refuse the same names.
    """
    folder = specs / name
    if "\0" in name or not folder.is_dir():
        return codes.PROVIDER_MISSING, _missing(specs, name)
    if not is_package_name(name):
        # Checked before anything is read or rendered: the name becomes a package and file paths.
        return (
            codes.PROVIDER_NAME_INVALID,
            f"provider folder name {name!r} is not a valid Python package name "
            "(use ASCII letters, digits and underscores, not starting with a digit, not a keyword); "
            "rename the folder",
        )
    if name == RUNTIME_FOLDER:
        return (
            codes.PROVIDER_NAME_INVALID,
            f"provider folder name {name!r} is where the output folder keeps the runtime every provider "
            "package imports; rename the folder",
        )
    if is_outside(specs, folder):
        return (
            codes.SOURCE_OUTSIDE_SPECS,
            f"provider folder {name!r} is a symbolic link to {folder.resolve()}, outside the specs folder "
            f"{specs}; not read",
        )
    return None


def _why_empty(name: str, results: list[SourceResult]) -> str:
    """The ``provider-empty`` message: what each source has instead of a stream."""
    message = f"provider folder {name!r} has no source that describes a stream"
    if not results:
        return message + ": no file in it is a source format ssegen reads"
    reasons = [f"{r.file}: {r.why_empty or 'no channel with server-sent messages'}" for r in results]
    return message + "; " + "; ".join(reasons)


def _load_sources(specs: Path, folder: Path, resolver: RefResolver, diagnostics: Diagnostics) -> list[SourceResult]:
    """Every usable source of ``folder``, in path order; unreadable and unknown files are reported."""
    results: list[SourceResult] = []
    unknown: list[tuple[Path, str]] = []
    for path in source_files(folder):
        file = path.relative_to(specs).as_posix()
        if is_outside(specs, path):
            diagnostics.add(
                codes.SOURCE_OUTSIDE_SPECS,
                f"{file} is a symbolic link to {path.resolve()}, outside the specs folder; not read",
                file=file,
            )
            continue
        try:
            text = read_regular(path).decode("utf-8")
        except NotRegularFileError as exc:
            diagnostics.add(codes.SOURCE_NOT_REGULAR, f"not read: {exc}", file=file)
            continue
        except (OSError, UnicodeDecodeError) as exc:
            diagnostics.add(codes.SOURCE_UNREADABLE, f"cannot read source: {exc}", file=file)
            continue
        detected = detect(text)
        if detected is None:
            if path.parent == folder:
                unknown.append((path, file))
            continue
        source = SourceInput(path, file, text, detected.text, detected.line_offset, resolver)
        try:
            result = detected.source_format.load(source, diagnostics)
        except RecursionError:
            diagnostics.add(
                codes.SOURCE_TOO_DEEP,
                "the source nests deeper than ssegen follows (an example or schema nested thousands of levels); "
                "not read",
                file=file,
            )
            continue
        if result is not None:
            results.append(result)
    for path, file in unknown:
        # A part of a split spec (messages.yaml) is read through $ref, not as a source.
        if resolver.uri_for(path) not in resolver.documents:
            diagnostics.add(codes.SOURCE_UNKNOWN_FORMAT, "not a recognized source format; skipped", file=file)
    return results


def _inputs(specs: Path, folder: Path, resolver: RefResolver) -> tuple[str, ...]:
    files = {p.relative_to(specs).as_posix() for p in source_files(folder)}
    files.update(doc.file for doc in resolver.documents.values())
    return tuple(sorted(files))
