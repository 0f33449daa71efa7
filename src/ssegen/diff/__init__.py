"""``ssegen diff``: what a spec change does to the streams, classified (issue 37).

Two IRs of a provider in, a list of :class:`Change` out, each ``compatible``, ``breaking`` or
``critical`` by what it does to a consumer of the generated package
(:mod:`ssegen.diff.changes`). The classification comes from what the IR states and general diff
tools do not know: how each message is told apart on the wire (SSE event type, tag, literal:
:mod:`ssegen.diff.messages`, :mod:`ssegen.diff.decoding`), what lenient decoding takes
(:mod:`ssegen.diff.schemas`), and which members accumulation plans read and what ends a stream
(:mod:`ssegen.diff.streams`). :mod:`ssegen.diff.compare` puts them together;
:mod:`ssegen.diff.render` words the report (text, JSON, GitHub annotations, SARIF);
:mod:`ssegen.diff.sides` finds the specs to compare (folders, a git revision, what the output
was generated from). The command is :mod:`ssegen.cli.diff`; the report is documented in
docs/diff.md.
"""

from __future__ import annotations

from .changes import KINDS, Change, Impact, Kind, worst
from .compare import compare_channels, compare_providers, sorted_changes

__all__ = [
    "KINDS",
    "Change",
    "Impact",
    "Kind",
    "compare_channels",
    "compare_providers",
    "sorted_changes",
    "worst",
]
