"""Tests of ``src/ssegen/sources/pages/``."""
