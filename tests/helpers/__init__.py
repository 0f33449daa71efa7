"""Helpers shared by the tests (importable: ``tests/`` is on ``sys.path``)."""
