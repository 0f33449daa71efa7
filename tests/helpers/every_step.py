"""A spec whose stated plans use every action, entry and kind of path the plan language has
(docs/accumulation.md): the accumulation compiler's whole vocabulary, for the tests that check
compiled plans against the oracle (``plan_oracle``) and the names compiled code reaches the
accumulator by (``runtime/sink.py``).

``/blocks`` assembles output blocks (``result: output``), ``/choices`` chat choices
(``result: choices``). Paths go through arrays (``[*]``), a tagged union (``variant``), members
typed as any JSON (read by wire name) and a union of a string and an array; ``when`` tests
each kind; keys are integers, an element's position, or read from any JSON.
"""

from __future__ import annotations

EVERY_STEP = """\
asyncapi: 2.6.0
info: {title: Every step, version: '1'}
channels:
  /blocks:
    x-ssegen-accumulate:
      start:
        - {action: meta, value: id, extra: model}
        - {action: usage, value: usage}
      open:
        - action: open
          key: index
          value: block
          members: {kind: kind, name: fn.name, arguments: fn.args, id: id}
      delta:
        - {action: append, key: index, value: delta.text, field: text, variant: {delta: text}}
        - {action: append, key: index, value: delta.note, field: note, variant: {delta: note}}
        - {action: delta, key: index, value: delta}
      extra:
        - {action: append, key: slot, value: data.inner.text, field: thinking}
        - {action: append, key: info.slot, value: data.words, field: signature}
        - {action: collect, key: slot, value: 'items[*]', field: kept, when: {flag: true}}
        - {action: append, value: 'items[*].label', field: labels, when: {n: 2}}
        - {action: collect, value: 'items[*]', field: flagged, when: {flag: {present: true}}}
        - {action: stop, key: slot, value: 'items[*].label', when: {flag: {not: true}}}
        - {action: append, key: 'items[*].n', value: 'items[*].label', field: refusal}
      call:
        - action: tool_call
          key: index
          value: call
          members: {id: id, name: name, arguments: args}
        - action: tool_call
          value: 'calls[*]'
          members: {id: id, name: name, arguments: args}
      close:
        - {action: close, key: index, value: item}
        - {action: close, key: index}
      end:
        - {action: snapshot, value: output}
        - {action: stop, value: why}
        - {action: usage, members: [counts.a, counts.b]}
        - {action: final_text, value: text}
        - {action: done}
      fail:
        - {action: error, value: error}
        - {action: error}
        - {action: complete, value: error.message}
    subscribe:
      message:
        oneOf:
          - name: start
            payload:
              type: object
              required: [type]
              properties:
                type: {const: start}
                id: {type: string}
                model: {type: string}
                usage: {type: object, properties: {input: {type: integer}}}
          - name: open
            payload:
              type: object
              required: [type, index]
              properties:
                type: {const: open}
                index: {type: integer}
                block:
                  type: object
                  properties:
                    kind: {type: string}
                    id: {type: string}
                    fn: {type: object, properties: {name: {type: string}, args: {type: string}}}
          - name: delta
            payload:
              type: object
              required: [type, index, delta]
              properties:
                type: {const: delta}
                index: {type: integer}
                delta:
                  oneOf:
                    - type: object
                      title: TextPiece
                      required: [type]
                      properties: {type: {const: text}, text: {type: string}}
                    - type: object
                      title: NotePiece
                      required: [type]
                      properties: {type: {const: note}, note: {type: string}}
                    - type: object
                      title: OtherPiece
                      required: [type]
                      properties: {type: {const: other}, data: {type: string}}
                  discriminator: type
          - name: extra
            payload:
              type: object
              required: [type]
              properties:
                type: {const: extra}
                slot: {type: integer}
                data: {}
                info: {}
                items:
                  type: array
                  items:
                    type: object
                    properties:
                      label: {type: string}
                      flag: {type: boolean}
                      n: {type: integer}
          - name: call
            payload:
              type: object
              required: [type]
              properties:
                type: {const: call}
                index: {type: integer}
                call:
                  type: object
                  title: WholeCall
                  properties: {id: {type: string}, name: {type: string}, args: {type: object}}
                calls:
                  type: array
                  items:
                    type: object
                    title: CallItem
                    properties: {id: {type: string}, name: {type: string}, args: {type: string}}
          - name: close
            payload:
              type: object
              required: [type, index]
              properties:
                type: {const: close}
                index: {type: integer}
                item: {type: object, properties: {type: {type: string}, text: {type: string}}}
          - name: end
            payload:
              type: object
              required: [type]
              properties:
                type: {const: end}
                why: {type: string}
                text: {type: string}
                output: {type: array, items: {type: object, properties: {text: {type: string}}}}
                counts: {type: object, properties: {a: {type: integer}, b: {type: integer}}}
          - name: fail
            payload:
              type: object
              required: [type]
              properties:
                type: {const: fail}
                error: {type: object, properties: {message: {type: string}}}
  /choices:
    x-ssegen-accumulate:
      result: choices
      chunk:
        - {action: meta, extra: model}
        - {action: open, key: 'choices[*].index', value: 'choices[*]'}
        - {action: append, key: 'choices[*].index', value: 'choices[*].delta.content', field: content}
        - {action: append, key: 'choices[*].index', value: 'choices[*].delta.reasoning', field: thinking}
        - {action: append, key: 'choices[*].index', value: 'choices[*].delta.aside', field: aside}
        - action: append
          key: 'choices[*].index'
          value: 'choices[*].parts[*].text'
          field: refusal
          when: {kind: note}
        - action: collect
          key: 'choices[*].index'
          value: 'choices[*].parts[*]'
          field: parts
          when: {kind: {not: note}}
        - {action: tool_calls, key: 'choices[*].index', value: 'choices[*].delta.calls'}
        - {action: tool_calls, key: 'choices[*].index', value: 'choices[*].delta.raw_calls'}
        - action: tool_call
          key: 'choices[*]'
          value: 'choices[*].delta.fn'
          members: {name: name, arguments: args, id: id}
        - {action: tool_call, value: 'choices[*].delta.fn', members: {arguments: args}}
        - {action: stop, key: 'choices[*].index', value: 'choices[*].finish'}
        - {action: stop, value: 'choices[*].finish'}
        - {action: collect, value: 'choices[*].parts[*].text', field: texts}
        - {action: usage, value: usage, mode: replace}
        - {action: final_text, value: summary}
    subscribe:
      message:
        name: chunk
        payload:
          type: object
          properties:
            model: {type: string}
            summary: {type: string}
            usage: {type: object, properties: {total: {type: integer}}}
            choices:
              type: array
              items:
                type: object
                properties:
                  index: {type: integer}
                  finish: {type: string}
                  parts:
                    type: array
                    items: {type: object, properties: {kind: {type: string}, text: {type: string}}}
                  delta:
                    type: object
                    properties:
                      content:
                        oneOf:
                          - {type: string}
                          - type: array
                            items: {type: object, properties: {type: {type: string}, text: {type: string}}}
                      reasoning: {type: string}
                      aside: {type: string}
                      fn: {type: object, properties: {id: {type: string}, name: {type: string}, args: {type: object}}}
                      calls:
                        type: array
                        items:
                          type: object
                          properties:
                            index: {type: integer}
                            id: {type: string}
                            type: {type: string}
                            function:
                              type: object
                              properties: {name: {type: string}, arguments: {type: string}}
                      raw_calls: {type: array, items: {}}
"""
