"""The pytest plugin shipped with ssegen (entry point ``pytest11``: ``ssegen``): the ``sse_mock``
fixture routes httpx requests for generated channels to streams, with faults.

::

    def test_consumer_renders_the_answer(sse_mock):
        sse_mock.route(CHANNELS["/chat/completions"], text="Hello world")
        client = openai.OpenAI(api_key="test", http_client=sse_mock.client(openai))
        ...

``sse_mock`` is a :class:`ssegen.transport.SSEMock`: ``route(...)`` (sources and faults),
``client()`` / ``async_client()`` (clients on its transport: httpx by default, ``client(openai)``
the SDK's own client class on the library it uses, httpx2 for openai >= 3), ``transport``,
``requests``. The HTTP library is imported only when a test asks for the fixture, so installing
ssegen changes nothing for test suites that do not use it (``-p no:ssegen`` turns it off).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from .transport import SSEMock


@pytest.fixture
def sse_mock(request: pytest.FixtureRequest) -> Iterator[SSEMock]:
    """An :class:`ssegen.transport.SSEMock` for the test: routes generated channels (a channel,
    a package or a provider name, found through ``[tool.ssegen]`` of the project under test) to a
    replayed capture, a synthesized answer or the spec's examples, with ``cut_at``,
    ``error_event``, ``stall_after``, ``read_size`` and ``delay`` faults; the sync clients it made
    are closed after the test."""
    from .transport import SSEMock

    mock = SSEMock()
    try:
        yield mock
    finally:
        mock.close()
