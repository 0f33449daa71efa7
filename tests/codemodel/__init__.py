"""Unit tests of the code model (src/ssegen/codemodel/): one decision per test."""
