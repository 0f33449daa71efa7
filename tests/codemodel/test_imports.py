"""Generated modules keep only the imports they use (decided in Python from the rendered code)."""

from __future__ import annotations

import textwrap

import pytest

from ssegen.imports import prune_imports


def _module(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def test_unused_names_are_dropped_and_used_ones_kept_in_order() -> None:
    source = _module(
        """
        from __future__ import annotations

        from collections.abc import Callable, Iterable, Sequence
        from operator import call as _call
        from typing import Any

        import msgspec

        from .stream import (
            Accumulator,
            VendorEvent,
            keep_usage,
        )


        def run(values: Iterable[bytes]) -> Any:
            return keep_usage(msgspec.json.decode(b"1"), Accumulator)
        """
    )
    assert prune_imports(source) == _module(
        """
        from __future__ import annotations

        from collections.abc import Iterable
        from typing import Any

        import msgspec

        from .stream import Accumulator, keep_usage


        def run(values: Iterable[bytes]) -> Any:
            return keep_usage(msgspec.json.decode(b"1"), Accumulator)
        """
    )


def test_a_module_using_every_import_is_returned_unchanged() -> None:
    source = "import json\nfrom typing import Any\n\nVALUE: Any = json.dumps(1)\n"
    assert prune_imports(source) is source


def test_all_annotations_fstrings_and_dotted_imports_count_as_uses() -> None:
    source = _module(
        """
        import os.path
        from typing import ClassVar, Literal
        from . import models, sse
        from .sse import ServerSentEvent

        __all__ = ["ServerSentEvent", "models"]


        class A:
            kind: ClassVar[str] = f"{os.path.sep}"
        """
    )
    pruned = prune_imports(source)
    assert "from typing import ClassVar\n" in pruned and "Literal" not in pruned
    assert "from . import models\n" in pruned and "from .sse import ServerSentEvent\n" in pruned
    assert "import os.path\n" in pruned


def test_future_star_and_nested_imports_are_left_alone() -> None:
    source = _module(
        """
        from __future__ import annotations
        from os import *


        def f() -> None:
            import json
        """
    )
    assert prune_imports(source) is source


def test_invalid_python_is_a_syntax_error() -> None:
    with pytest.raises(SyntaxError):
        prune_imports("def broken(:\n")


def test_an_explicit_re_export_is_kept_though_the_module_does_not_read_it() -> None:
    source = _module(
        """
        from .models import (
            Content as Content,
            Part as Part,
            ToolCall,
        )

        Body = list[Content]
        """
    )
    assert prune_imports(source) == _module(
        """
        from .models import Content as Content, Part as Part

        Body = list[Content]
        """
    )
