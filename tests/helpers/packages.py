"""Generate a package from a spec written in a test, and import it."""

from __future__ import annotations

import importlib
import itertools
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

from ssegen.config import OutputSettings
from ssegen.diagnostics import Diagnostics
from ssegen.pipeline import build, generate

_COUNTER = itertools.count()


@contextmanager
def generated_package(
    tmp_path: Path, files: dict[str, str], provider: str = "demo", model: str = "msgspec"
) -> Iterator[tuple[ModuleType, Diagnostics]]:
    """The package generated from ``files`` (name -> text, in ``specs/<provider>/``), imported
    under a fresh output package name, with the provider's diagnostics; removed from
    ``sys.modules`` and ``sys.path`` afterwards.

    Raises:
        AssertionError: the provider has errors (the diagnostics are in the message).
    """
    specs = tmp_path / "specs"
    folder = specs / provider
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    root = f"gen_{next(_COUNTER)}_{model}"
    settings = OutputSettings(root, "specs", model)
    [report] = build(specs, [provider], settings)
    assert not report.failed, "\n".join(d.format() for d in report.diagnostics)
    generate(specs, tmp_path / root, [report], settings, all_providers=False)
    sys.path.insert(0, str(tmp_path))
    try:
        yield importlib.import_module(f"{root}.{provider}"), report.diagnostics
    finally:
        sys.path.remove(str(tmp_path))
        for name in [n for n in sys.modules if n == root or n.startswith(root + ".")]:
            del sys.modules[name]


def conformance_examples(tests: ModuleType) -> list[tuple[str, str, str, str, str, str]]:
    """A generated ``test_conformance`` module's examples as rows (channel, event type, message,
    class name, data, id): the spec's own (``EXAMPLES``), then the synthesized ones; the class is
    the one the channel maps the message to (the module's rows carry no class of their own)."""
    return [
        (channel, event, message, tests.CHANNELS[channel].messages[message].__name__, data, example)
        for channel, event, message, data, example in [*tests.EXAMPLES, *tests.SYNTHESIZED]
    ]
