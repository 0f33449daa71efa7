"""How the default run (``pytest``: ``-n auto``, pytest-xdist) deals the tests out to its workers.

Each worker is a process of its own, so a module-scoped fixture (or a ``functools.cache``) is built
again in every worker that runs one of its tests.  Dealt out one by one (``--dist load``), the
tests sharing a costly one (a whole generation, the hostile specs' runs: 10 to 20 s each) land in
every worker, and it is built once per worker.  :class:`SharedFixtureScheduling` sends each group of
:data:`GROUPS` to one worker, as one unit, and every other test alone, as ``--dist load`` does.

``--dist loadgroup`` (``xdist_group`` marks) would say the same with marks, but loses its groups on
pytest 9.2 with pytest-xdist 3.8 (pytest-dev/pytest-xdist#1386): the scheduler reads the group from
the test id, which pytest 9.2 no longer lets a plugin rewrite.  The groups here are test ids as the
scheduler receives them, with no rewriting.
"""

from __future__ import annotations

from xdist.scheduler import LoadScopeScheduling

#: The tests sharing one costly fixture, by module (``tests/e2e/test_x.py``) or by test function
#: (``tests/e2e/test_x.py::test_y``, every parameter of it), with the name of what they share.
#: A test missing here still runs and passes; it only builds the fixture in its own worker.
GROUPS = {
    # the `runs` and `imported` fixtures: every case through the CLI (20 s), imported at once
    "tests/e2e/test_hostile_specs.py": "hostile specs run",
    # `_corpus()`: the AsyncAPI corpus generated as one folder (15 s)
    "tests/e2e/test_corpus.py": "AsyncAPI corpus generated",
    # `root_generation`: `ssegen generate` from the repository root (10 s)
    "tests/e2e/test_golden.py::test_regenerating_reproduces_committed_output": "seeds generated",
    "tests/e2e/test_golden.py::test_the_seeds_build_strict_and_print_at_most_one_screen": "seeds generated",
    # `helpers.flavours.pydantic_output()`: the seeds generated with pydantic models (7 s)
    "tests/e2e/test_pydantic_flavour.py": "pydantic flavour generated",
    "tests/runtime/test_flavour_differential.py": "pydantic flavour generated",
    "tests/runtime/test_encoding.py::test_a_number_sent_as_an_integer_is_written_back_as_one": (
        "pydantic flavour generated"
    ),
    "tests/runtime/test_encoding.py::test_both_flavours_encode_alike": "pydantic flavour generated",
    "tests/runtime/test_generated_client.py::test_the_pydantic_flavours_typed_method_sends_the_same_body": (
        "pydantic flavour generated"
    ),
}


def group_of(nodeid: str) -> str | None:
    """The group of :data:`GROUPS` the test ``nodeid`` belongs to, or None."""
    module, _, rest = nodeid.partition("::")
    function = rest.partition("[")[0]
    return GROUPS.get(f"{module}::{function}") or GROUPS.get(module)


class SharedFixtureScheduling(LoadScopeScheduling):
    """pytest-xdist's scope scheduling with the groups of :data:`GROUPS` as scopes and every other
    test a scope of its own.  The larger scopes are dealt first (``--loadscope-reorder``, the
    default), so the groups start at once, and the single tests even out the end."""

    def _split_scope(self, nodeid: str) -> str:
        group = group_of(nodeid)
        return nodeid if group is None else f"group: {group}"
