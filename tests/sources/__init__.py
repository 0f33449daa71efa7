"""Tests of ``src/ssegen/sources/``."""
