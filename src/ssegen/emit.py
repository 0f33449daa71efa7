"""Code model -> files: render the templates, format with black, write or compare.

Every spec string reaches generated code through one of two filters:
``pyrepr`` (a Python literal via :func:`repr`, safe for any text) and
``docstring`` (a triple-quoted docstring whose body cannot close it: ``\\`` and
``\"\"\"`` are neutralized).  No template prints a raw spec string into code.

Output is deterministic: files are rendered from the IR alone, in sorted
order, with no timestamps; the same specs give byte-identical files.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import black
import jinja2

from .codemodel import FLAVOURS, FieldSpec, PackageSpec, build_package_spec
from .config import OutputSettings
from .diagnostics import Diagnostics
from .ir import Provider
from .normalize.jsonschema import export_provider
from .output import runtime_source, version
from .runtime import MODULES as RUNTIME_MODULES


def pyrepr(value: Any) -> str:
    """A Python literal for a JSON scalar (str, int, float, bool, None): always safe code.

    ``repr`` of a str is a quoted literal with every quote, backslash and
    control character escaped; a NaN or infinity (not a literal in Python)
    becomes ``float('nan')``/``float('inf')``.
    """
    if isinstance(value, float) and (value != value or abs(value) == float("inf")):
        return f"float({str(value)!r})"
    if value is None or isinstance(value, (bool, int, float, str)):
        return repr(value)
    raise TypeError(f"pyrepr: unsupported value {value!r}")


def docstring(text: str, attributes: Iterable[FieldSpec] = ()) -> str:
    """A triple-quoted docstring literal for ``text`` that cannot end early.

    Args:
        text: the description (any text; may contain quotes, backslashes).
        attributes: fields to list in an ``Attributes:`` section.

    Raises:
        ValueError: neither text nor a documented attribute (no placeholder is written).
    """
    lines = [line.rstrip() for line in text.strip().splitlines()] if text.strip() else []
    attrs = [f for f in attributes if f.doc.strip()]
    if attrs:
        lines += ["", "Attributes:"] if lines else ["Attributes:"]
        for f in attrs:
            doc_lines = [ln.strip() for ln in f.doc.strip().splitlines() if ln.strip()]
            lines.append(f"    {f.name}: {doc_lines[0]}")
            lines += [f"        {ln}" for ln in doc_lines[1:]]
    if not lines:
        raise ValueError("docstring: no text and no attributes (the code model describes every class)")
    body = "\n".join(lines)
    body = body.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    body = "".join(
        ch
        if ch.isprintable() or ch == "\n"
        else f"\\x{ord(ch):02x}"
        if ord(ch) < 0x100
        else f"\\u{ord(ch):04x}"
        if ord(ch) < 0x10000
        else f"\\U{ord(ch):08x}"
        for ch in body
    )
    if body.endswith('"'):
        body += " "
    return '"""' + body + ('\n"""' if "\n" in body else '"""')


@functools.cache
def _environment() -> jinja2.Environment:
    """The template environment, built once per process (templates compile once)."""
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("ssegen", "templates"),
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
        autoescape=False,
    )
    env.filters["pyrepr"] = pyrepr
    env.filters["docstring"] = docstring
    return env


@dataclass
class Rendered:
    """One provider's generated files.

    Attributes:
        provider: the provider name.
        files: output-relative POSIX path -> file content.
        test_files: tests-folder-relative path -> content, when tests are written apart
            (``OutputSettings.tests_apart``); else empty (the tests are in ``files``).
        model: the package spec the files came from (counts for the summary).
    """

    provider: str
    files: dict[str, str] = field(default_factory=dict)
    test_files: dict[str, str] = field(default_factory=dict)
    model: PackageSpec | None = None


def render_provider(provider: Provider, settings: OutputSettings, diagnostics: Diagnostics) -> Rendered:
    """Render the package of ``provider``.

    Args:
        provider: the IR.
        settings: the import name of the output folder and the specs folder's name, used
            in docstrings and headers.
        diagnostics: receives code-model warnings (name conflicts).

    ``settings.model`` picks the model flavour (``msgspec`` or ``pydantic``, see
    :mod:`ssegen.codemodel.flavour`): its ``models`` template and runtime modules.

    Returns:
        The files, keyed ``<provider>/<file>``.
    """
    spec = build_package_spec(provider, diagnostics, FLAVOURS[settings.model])
    env = _environment()
    # The pipeline refuses provider names that are not identifiers; a comment line stays one line anyway.
    name = " ".join(provider.name.split())
    folder = f"{' '.join(settings.specs_label.split())}/{name}/"
    header = f"# Generated by ssegen {version()} from {folder}; do not edit by hand (regenerate: ssegen generate)."
    context: dict[str, Any] = {
        "header": header,
        "package": f"{settings.package}.{provider.name}" if settings.package else provider.name,
        "specs_folder": folder,
        "spec": spec,
    }
    # Conformance tests sit in the package (importing it relatively) or, with tests_out, in a
    # tests folder of their own (importing it by name, under a file name unique across providers).
    context["tests_package"] = context["package"] if settings.tests_apart else "."
    context["tests_sse"] = f"{context['package']}.sse" if settings.tests_apart else ".sse"
    test_module = f"test_{provider.name}_conformance.py" if settings.tests_apart else "test_conformance.py"
    rendered = Rendered(provider.name, model=spec)
    tests = rendered.test_files if settings.tests_apart else rendered.files
    for template, name, target in (
        ("package_init.py.jinja", "__init__.py", rendered.files),
        (spec.flavour.models_template, "models.py", rendered.files),
        ("channels.py.jinja", "channels.py", rendered.files),
        ("test_conformance.py.jinja", test_module, tests),
    ):
        source = env.get_template(template).render(context)
        target[f"{provider.name}/{name}"] = format_python(source, f"{provider.name}/{name}")
    for name in RUNTIME_MODULES + spec.flavour.runtime_modules:
        # Copied verbatim (already black-formatted): see ssegen.runtime.
        rendered.files[f"{provider.name}/{name}"] = f"{header}\n{runtime_source(name)}"
    for stream in provider.example_streams:
        tests[f"{provider.name}/examples/{stream.name}.sse"] = stream.wire()
    schemas = export_provider(provider)
    rendered.files[f"{provider.name}/schemas.json"] = json.dumps(schemas, indent=2, ensure_ascii=False) + "\n"
    rendered.files[f"{provider.name}/py.typed"] = ""
    return rendered


def render_root() -> dict[str, str]:
    """The files of the output folder itself (its ``__init__.py``)."""
    env = _environment()
    header = f"# Generated by ssegen {version()}; do not edit by hand."
    source = env.get_template("root_init.py.jinja").render(header=header)
    return {"__init__.py": format_python(source, "__init__.py")}


def format_python(source: str, name: str) -> str:
    """``source`` formatted by black (line length 100).

    The leading ``# Generated by ...`` comment line is set aside and the rest
    formatted (black dominates the time of ``ssegen generate``; identical
    sources are formatted once per process).

    Raises:
        ValueError: the rendered code is not valid Python (a template bug),
            naming the file.
    """
    first, newline, rest = source.partition("\n")
    try:
        if first.startswith("# ") and newline:
            return first + newline + _black(rest)
        return _black(source)
    except black.InvalidInput as exc:
        raise ValueError(f"generated {name} is not valid Python: {exc}") from None


@functools.lru_cache(maxsize=64)
def _black(source: str) -> str:
    return black.format_str(source, mode=black.Mode(line_length=100))
