"""Code model -> files: render the templates, format them (black or ruff, :mod:`.formatting`).

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

import jinja2

from .codemodel import FLAVOURS, FieldSpec, PackageSpec, build_package_spec
from .codemodel.mock_requests import schemas_document
from .config import OutputSettings
from .diagnostics import Diagnostics
from .formatting import DEFAULT_LINE_LENGTH, FormatError, format_sources
from .imports import prune_imports
from .ir import Provider
from .output import runtime_source, version
from .runtime import MODULES as RUNTIME_MODULES
from .runtime import RUNTIME_FOLDER


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


def pytuple(values: Iterable[Any]) -> str:
    """A Python tuple literal of JSON scalars (each as :func:`pyrepr` writes it): ``()``,
    ``("a",)``, ``("a", "b")``."""
    items = [pyrepr(value) for value in values]
    return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"


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


_DO_NOT_EDIT = "do not edit by hand (regenerate: ssegen generate)."


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
    env.filters["pytuple"] = pytuple
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

    Imports a module does not use are dropped (:mod:`ssegen.imports`), then
    ``settings.formatter`` and ``settings.line_length`` format the Python files (one batch per
    provider, see :mod:`ssegen.formatting`).

    Returns:
        The files, keyed ``<provider>/<file>``.

    Raises:
        ssegen.formatting.FormatError: rendered code is not valid Python (a template bug), or
            the formatter is missing or failed.
    """
    spec = build_package_spec(provider, diagnostics, FLAVOURS[settings.model])
    env = _environment()
    # The pipeline refuses provider names that are not identifiers; a comment line stays one line anyway.
    name = " ".join(provider.name.split())
    folder = f"{' '.join(settings.specs_label.split())}/{name}/"
    header = f"# Generated by ssegen {version()} from {folder}; {_DO_NOT_EDIT}"
    context: dict[str, Any] = {
        "header": header,
        "package": f"{settings.package}.{provider.name}" if settings.package else provider.name,
        "runtime": runtime_module(settings),
        "specs_folder": folder,
        "spec": spec,
    }
    # Conformance tests sit in the package (importing it relatively) or, with tests_out, in a
    # tests folder of their own (importing it by name, under a file name unique across providers).
    context["tests_package"] = context["package"] if settings.tests_apart else "."
    context["tests_root"] = settings.package if settings.tests_apart else ".."
    test_module = f"test_{provider.name}_conformance.py" if settings.tests_apart else "test_conformance.py"
    rendered = Rendered(provider.name, model=spec)
    tests = rendered.test_files if settings.tests_apart else rendered.files
    sources: dict[str, str] = {}
    targets: dict[str, dict[str, str]] = {}
    for template, name, target in (
        ("package_init.py.jinja", "__init__.py", rendered.files),
        (spec.flavour.models_template, "models.py", rendered.files),
        (spec.flavour.requests_template, "requests.py", rendered.files),
        ("client.py.jinja", "client.py", rendered.files),
        ("channels.py.jinja", "channels.py", rendered.files),
        ("test_conformance.py.jinja", test_module, tests),
    ):
        path = f"{provider.name}/{name}"
        sources[path] = _pruned(env.get_template(template).render(context), path)
        targets[path] = target
    for path, text in format_sources(sources, settings.formatter, settings.line_length).items():
        targets[path][path] = text
    for stream in provider.example_streams:
        tests[f"{provider.name}/examples/{stream.name}.sse"] = stream.wire()
    schemas = schemas_document(provider)
    rendered.files[f"{provider.name}/schemas.json"] = json.dumps(schemas, indent=2, ensure_ascii=False) + "\n"
    rendered.files[f"{provider.name}/py.typed"] = ""
    return rendered


def runtime_module(settings: OutputSettings, *, absolute: bool = False) -> str:
    """The module a provider package imports the runtime from: ``.._runtime`` (the output folder's
    own copy, :data:`ssegen.runtime.RUNTIME_FOLDER`), ``<package>._runtime`` when ``absolute`` (a
    tests folder apart), or ``ssegen.runtime`` with ``runtime = "installed"``."""
    if not settings.vendored:
        return "ssegen.runtime"
    return f"{settings.package}.{RUNTIME_FOLDER}" if absolute else f"..{RUNTIME_FOLDER}"


#: The module of the output folder holding the checks every package's conformance tests share.
CONFORMANCE_MODULE = "_conformance.py"


def render_root(settings: OutputSettings | None = None) -> dict[str, str]:
    """The files of the output folder itself, keyed by output-relative path: its ``__init__.py``,
    the checks the conformance tests share (:data:`CONFORMANCE_MODULE`: test-only code, written
    once for the folder in every runtime mode and test placement, imported by the tests alone,
    never by a package nor the runtime), and, with ``runtime = "vendored"`` (the default), the
    runtime every provider package imports
    (``_runtime/``: each module of :data:`ssegen.runtime.MODULES`, and of the model flavour's
    ``runtime_modules``, as it is in ``ssegen/runtime`` under a header line, and an ``__init__.py``).

    The runtime modules are kept black-formatted at 100 columns (see :mod:`ssegen.runtime`), so at
    that line length they are written as they are; at another one they are formatted as the rest.

    Raises:
        ssegen.formatting.FormatError: see :func:`ssegen.formatting.format_sources`.
    """
    settings = settings if settings is not None else OutputSettings()
    env = _environment()
    header = f"# Generated by ssegen {version()}; do not edit by hand."
    sources = {"__init__.py": _pruned(env.get_template("root_init.py.jinja").render(header=header), "__init__.py")}
    runtime = f".{RUNTIME_FOLDER}" if settings.vendored else "ssegen.runtime"
    checks = env.get_template("root_conformance.py.jinja").render(
        header=f"# Generated by ssegen {version()}; {_DO_NOT_EDIT}", package=settings.package, runtime=runtime
    )
    sources[CONFORMANCE_MODULE] = _pruned(checks, CONFORMANCE_MODULE)
    verbatim: dict[str, str] = {}
    if settings.vendored:
        header = f"# Generated by ssegen {version()} from ssegen.runtime; {_DO_NOT_EDIT}"
        init = env.get_template("runtime_init.py.jinja").render(header=header, package=settings.package)
        sources[f"{RUNTIME_FOLDER}/__init__.py"] = _pruned(init, f"{RUNTIME_FOLDER}/__init__.py")
        target = verbatim if _runtime_verbatim(settings) else sources
        for name in RUNTIME_MODULES + FLAVOURS[settings.model].runtime_modules:
            target[f"{RUNTIME_FOLDER}/{name}"] = f"{header}\n{runtime_source(name)}"
    return verbatim | format_sources(sources, settings.formatter, settings.line_length)


def _pruned(source: str, name: str) -> str:
    """``source`` without unused imports (:func:`ssegen.imports.prune_imports`).

    Raises:
        FormatError: ``source`` is not valid Python (a template bug), naming the file.
    """
    try:
        return prune_imports(source)
    except SyntaxError as exc:
        raise FormatError(f"generated {name} is not valid Python: {exc}") from None


def _runtime_verbatim(settings: OutputSettings) -> bool:
    """True when the runtime modules are copied as they are: they are kept black-formatted at 100
    columns (``tests/runtime/test_runtime_modules.py``), which ruff's formatter gives too."""
    return settings.line_length == DEFAULT_LINE_LENGTH
