"""Normalization: the merge steps that turn the sources' IR parts into one provider's IR.

In the order :func:`ssegen.load.load_provider` runs them:

1. :mod:`.merge`: channels of every source combined by address, messages by name;
2. :mod:`.docs`: a flattened docs page's facts matched to the schema fields they describe;
3. :mod:`.examples`: schemas widened where the provider's own examples contradict them.

:mod:`.jsonschema` exports the result as normalized JSON Schema (the strict view used by
``ssegen conform`` and the generated conformance tests).
"""
