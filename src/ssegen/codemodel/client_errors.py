"""The error object of each streaming operation: what ``APIStatusError.error`` is decoded to.

A provider answering a request with a status other than 2xx sends a JSON error body. Where the
spec declares the shape of that body, the generated ``Operation`` gets an ``error_decoder``
(``msgspec.json.Decoder(ErrorEvent).decode``; ``pydantic.TypeAdapter(...).validate_json``
in that flavour), and ``APIStatusError.error`` is the typed object; elsewhere it is the body as
plain JSON data. The runtime (``client_errors.status_error``) keeps the plain data when the
decoder refuses a body, so a body of another shape never raises from it.

The spec declares it with the operation's error responses first (OpenAPI ``responses`` of a
``4XX``/``5XX`` status or ``default`` with a JSON schema, :attr:`ssegen.ir.Request.errors`): the
first one whose schema is an object with members is a class of ``models`` (a response body, decoded
as leniently as the stream's messages), :func:`declared_error_decoder`. Else the spec declares it
with the channel's error message, when that message is a whole error body:

- the IR says the message is an error: its kind is ``error``, or its accumulation plan is the
  ``error`` step alone, on the whole payload (docs/accumulation.md, ``error``);
- its payload is an object with a required ``error`` member, and requires nothing else but
  members of one allowed value (a tag: Anthropic's ``"type": "error"``). A message that requires
  more carries the stream's bookkeeping (the Responses ``error`` event's ``sequence_number``) and
  is an event, not a response body.

So Anthropic's ``ErrorEvent`` (``{"type": "error", "error": {"type", "message"}}``), Google's
JSON error (``{"error": {"code", "message", "status"}}``), Ollama's ``{"error": "..."}`` and
Xerotier's ``{"error": {"message", "type", "code"}}`` are the HTTP error bodies their documents
describe; the OpenAI-style chunk families, Cohere and the Responses API declare none.
"""

from __future__ import annotations

from ..ir import AccumulateStep, Channel, Message
from .channels import ChannelSpec
from .flavour import Flavour
from .models import ModelsBuilder


def declared_error_decoder(channel: Channel, models: ModelsBuilder, flavour: Flavour) -> str:
    """The ``error_decoder=`` expression of the first error response ``channel``'s request declares
    whose schema is an object with members (its class built by ``models``:
    ``msgspec.json.Decoder(Error).decode``); "" when it declares none."""
    request = channel.request
    for error in request.errors if request is not None else ():
        cls = models.payload_class(error.schema)
        if cls is not None:
            return f"{flavour.adapter.format(cls=cls)}.{flavour.decode_method}"
    return ""


def error_decoder(channel: Channel, spec: ChannelSpec, flavour: Flavour) -> str:
    """The ``error_decoder=`` expression of ``channel``'s operation: the bound decode method of
    the validator of its first message that is a whole error body (module docstring), built as
    ``channels.py`` builds it (``msgspec.json.Decoder(ErrorEvent).decode``); "" when no
    message is one (``APIStatusError.error`` is then plain JSON data)."""
    plans = dict(channel.accumulation.steps) if channel.accumulation is not None else {}
    decoded = {m.name: m for m in spec.messages if m.adapter}
    for message in channel.messages:
        if message.name in decoded and is_error_body(message, plans.get(message.name, ())):
            return f"{decoded[message.name].adapter}.{flavour.decode_method}"
    return ""


def is_error_body(message: Message, plan: tuple[AccumulateStep, ...]) -> bool:
    """``message`` is the provider's error object as a whole response body: an error (its kind, or
    a plan of the ``error`` step alone on the whole payload) whose payload requires ``error`` and
    otherwise only one-value members (tags)."""
    whole_error = len(plan) == 1 and plan[0].action == "error" and not plan[0].key and not plan[0].value
    if message.kind != "error" and not whole_error:
        return False
    payload = message.payload
    error = payload.property("error")
    if payload.type != "object" or error is None or not error.required:
        return False
    return all(len(p.schema.enum) == 1 for p in payload.properties if p.required and p.name != "error")
