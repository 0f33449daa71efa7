"""Packages of the seed providers generated with ``model = "pydantic"``, once per test process.

``generated/`` holds the msgspec flavour (the default, committed); the pydantic flavour is
generated into a temporary folder named ``gen_pydantic`` put on ``sys.path``, so its packages
import as ``gen_pydantic.<provider>`` beside ``generated.<provider>``.
"""

from __future__ import annotations

import atexit
import functools
import importlib
import shutil
import sys
import tempfile
from pathlib import Path
from types import ModuleType

from conftest import SPECS

from ssegen.config import OutputSettings
from ssegen.pipeline import build, generate

#: The import name of the pydantic output folder.
PYDANTIC_ROOT = "gen_pydantic"
#: The flavours a package can be imported in, with the import name of their output folder.
ROOTS = {"msgspec": "generated", "pydantic": PYDANTIC_ROOT}


@functools.cache
def pydantic_output() -> Path:
    """The output folder of every seed provider generated with ``model = "pydantic"``.

    Raises:
        AssertionError: a provider failed to generate.
    """
    parent = Path(tempfile.mkdtemp(prefix="ssegen-pydantic-"))
    atexit.register(shutil.rmtree, parent, True)
    out = parent / PYDANTIC_ROOT
    settings = OutputSettings(PYDANTIC_ROOT, "specs", "pydantic")
    reports = build(SPECS, None, settings)
    assert not any(r.failed for r in reports), [d.format() for r in reports for d in r.diagnostics if r.failed]
    generate(SPECS, out, reports, settings, all_providers=True)
    sys.path.insert(0, str(parent))
    return out


def package(provider: str, flavour: str) -> ModuleType:
    """The generated package of ``provider`` in ``flavour`` (``msgspec`` or ``pydantic``)."""
    if flavour == "pydantic":
        pydantic_output()
    return importlib.import_module(f"{ROOTS[flavour]}.{provider}")
