"""The ``ssegen`` command line (click): the group :func:`main` and its commands.

Settings come from ``[tool.ssegen]`` in the nearest ``pyproject.toml`` (see
:mod:`ssegen.config`); flags override them (:mod:`ssegen.cli.options`).  Exit codes:
0 success (warnings allowed), 1 the job found a problem (errors in specs, stale output, a
non-conforming stream), 2 usage errors (click's own).

The commands live by job: :mod:`ssegen.cli.generate` (generate, check, watch),
:mod:`ssegen.cli.diff` (diff) and :mod:`ssegen.cli.tools` (ir, codes, conform, mock); they
decide, :mod:`ssegen.cli.report` words what they found, :mod:`ssegen.cli.console` prints it.
"""

from __future__ import annotations

import click

from .diff import diff_command
from .generate import check, generate, watch
from .tools import codes_command, conform, ir_command, mock


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="ssegen", message="ssegen %(version)s")
def main() -> None:
    """Generate typed SSE decoders for LLM streaming APIs from their specs.

    ssegen reads AsyncAPI documents and documentation pages from
    specs/<provider>/, builds one intermediate model per provider, and writes a
    Python package per provider into the output folder: msgspec (or, with
    --model pydantic, pydantic v2) chunk classes, a WHATWG-compliant SSE decoder
    (sync and async), a stream accumulator and conformance tests.  The generated
    packages depend only on msgspec (and pydantic for that flavour) and the
    standard library.

    Settings are read from [tool.ssegen] in the nearest pyproject.toml
    (specs, out, package, providers, model, strict, ignore, severity); paths are
    relative to that file, so every folder of the project gives the same output.
    Flags override them.

    \b
    Typical use:
      ssegen generate          write/refresh the packages
      ssegen check             in CI or pre-commit: fail if they are stale
      ssegen diff --rev REV    what the spec change since REV does to the streams
      ssegen watch             regenerate while you edit a spec
      ssegen conform P C FILE  replay a captured stream, strictly
      ssegen mock [P...]       serve the channels' streams (with faults) on loopback
      ssegen codes             the diagnostic codes, their severity and meaning
    """


main.add_command(generate)
main.add_command(check)
main.add_command(watch)
main.add_command(ir_command)
main.add_command(conform)
main.add_command(mock)
main.add_command(codes_command)
main.add_command(diff_command)
