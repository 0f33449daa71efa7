"""The intermediate model (IR): what a provider streams, independent of source format.

Every loader (``ssegen.sources``) produces these frozen dataclasses and every
emitter consumes them; nothing else crosses that boundary.  The tree is
Provider -> Channel -> Message -> payload Schema, and every node carries a
:class:`Provenance` (source file, line, JSON pointer) so that any fact in the
generated code can be traced back to the document that stated it.

The model, one module per job (import the names from ``ssegen.ir``):

* ``provenance.py``: :class:`Provenance`, where a fact comes from;
* ``schema.py``: the payload schemas (:class:`Schema`, :class:`Property`,
  :class:`SchemaRef`, :func:`json_type`);
* ``messages.py``: what a channel carries (:class:`Message`, :class:`Example`);
* ``discrimination.py``: how a channel tells its messages apart (:class:`Dispatch`,
  :class:`Tagged`);
* ``accumulation.py``: how a channel's events assemble into one result
  (:class:`Accumulation`, :class:`AccumulateStep`, :func:`resolve_path`);
* ``request.py``: the request that opens a channel's stream (:class:`Request`,
  :class:`Parameter`, :class:`RequestBody`, :class:`BodyMember`, :class:`AuthScheme`,
  :class:`Resume`, :class:`ErrorResponse`);
* ``provider.py``: the root (:class:`Provider`, :class:`Channel`, :class:`Server`,
  :class:`ExampleStream`, :class:`ErrorCode`, :func:`rewrite_payloads`).

Normalization rules that hold for every IR (whatever the source said):

* nullability is one flag, :attr:`Schema.nullable`; ``null`` never appears in
  ``Schema.enum``, in a ``type`` list or as a ``oneOf`` branch;
* ``Schema.name`` is a PascalCase name taken from the spec (component or
  message name, title) or built from the JSON path, never a counter;
* descriptions given at a use site (a ``$ref`` with a sibling ``description``,
  a ``oneOf`` wrapper) live on the :class:`Property`, so one named schema is
  one class wherever it is used.
"""

from __future__ import annotations

from .accumulation import (
    ACCUMULATE_ACTIONS,
    EACH,
    AccumulateAction,
    AccumulateResult,
    AccumulateStep,
    Accumulation,
    Resolved,
    WhenTest,
    format_path,
    resolve_path,
)
from .discrimination import ANY_EVENT, Dispatch, Tagged
from .messages import Example, Message, MessageKind
from .provenance import Provenance
from .provider import (
    Channel,
    ErrorCode,
    ExampleStream,
    Framing,
    Provider,
    Server,
    StreamEvent,
    rewrite_payloads,
)
from .request import (
    AuthScheme,
    BodyMember,
    ErrorResponse,
    Parameter,
    ParameterLocation,
    Request,
    RequestBody,
    Resume,
    ResumeKind,
    Stated,
)
from .schema import Property, Scalar, Schema, SchemaRef, SchemaType, json_type

__all__ = [
    "ACCUMULATE_ACTIONS",
    "ANY_EVENT",
    "EACH",
    "AccumulateAction",
    "AccumulateResult",
    "AccumulateStep",
    "Accumulation",
    "AuthScheme",
    "BodyMember",
    "ErrorResponse",
    "Channel",
    "Dispatch",
    "ErrorCode",
    "Example",
    "ExampleStream",
    "Framing",
    "Message",
    "MessageKind",
    "Parameter",
    "ParameterLocation",
    "Property",
    "Provenance",
    "Provider",
    "Request",
    "RequestBody",
    "Resolved",
    "Resume",
    "ResumeKind",
    "Scalar",
    "Schema",
    "SchemaRef",
    "SchemaType",
    "Server",
    "Stated",
    "StreamEvent",
    "Tagged",
    "WhenTest",
    "format_path",
    "json_type",
    "resolve_path",
    "rewrite_payloads",
]
