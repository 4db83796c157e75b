// The `graphs` of the emulator config: the JSON Schema of one scripted graph. It is the one source
// of the format: config.ts validates with it, the GraphConfig types are derived from it, and the
// build writes it into the published config.schema.json that editors read. The rules a JSON Schema
// cannot say (a key written must be declared, a node named must exist) are graph-problems.ts's.
//
// A graph is either the ReAct shorthand (`replies`: LangGraph's prebuilt ReAct agent, a model
// node `agent` and a tool node `tools`) or a graph of any shape (`nodes`, `edges` and `runs`: each
// run a list of steps, each step a node's task). Both compile into the tasks one runner executes.

/** A glob, as the config's globs read: `*` any run of characters, `?` one, the whole text, case-sensitive. */
const GLOB = { type: 'string', minLength: 1 } as const;

/** A delay in milliseconds, at most ten minutes. */
const DELAY_MS = { type: 'integer', minimum: 0, maximum: 600_000 } as const;

/** How a model's reply is cut into streamed chunks. */
const CHUNK = { enum: ['word', 'char', 'whole'] } as const;

/** A state key (a channel): not empty, not one of LangGraph's reserved names. */
const STATE_KEY = { type: 'string', minLength: 1, pattern: '^(?!__).*' } as const;

/** A node of a graph: not `__start__` or `__end__`, which every graph has. */
const NODE_NAME = {
  type: 'string',
  minLength: 1,
  maxLength: 256,
  pattern: '^(?!__start__$|__end__$)[^:|]+$',
  description: 'a node name: not __start__ or __end__, no ":" or "|" (LangGraph uses them in namespaces)',
} as const;

/** Where a Command goes: a node, or __end__. */
const NODE_NAME_OR_END = { type: 'string', minLength: 1, pattern: '^(?!__start__$)[^:|]+$' } as const;

const TOOL_CALL = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1 },
    args: { type: 'object', description: "The call's arguments (default {}); a tool answer reads them as {{args.<name>}}." },
    id: { type: 'string', minLength: 1, description: 'Default: a fresh UUID per call.' },
  },
} as const;

const ERROR = {
  description: "The node raises: a message (an `Error`), or the error's class name and message. The run fails with it.",
  anyOf: [
    { type: 'string', minLength: 1 },
    {
      type: 'object',
      additionalProperties: false,
      required: ['message'],
      properties: {
        name: { type: 'string', minLength: 1, description: "The error class (default Error), as the run's error names it." },
        message: { type: 'string', description: 'The error message.' },
      },
    },
  ],
} as const;

/** Answers to tool calls: by tool name, a template of the ToolMessage content. */
const TOOL_ANSWERS = {
  type: 'object',
  description:
    'By tool name, the content of the ToolMessage answering each call: a template where {{args.<name>}} is an argument of the call (as JSON when not a string), {{last.ai.content}} the calling message as the state holds it, {{state.<key>}} a key of the state. Every tool a call names needs its answer here: a call without one is refused at start-up.',
  additionalProperties: { type: 'string' },
} as const;

/** A step's answers to the pending tool calls: by tool name, or one per call in the calls' order. */
const STEP_TOOL_ANSWERS = {
  description:
    "The node answers each tool call of the last AI message with a ToolMessage, as LangGraph's ToolNode does: by tool name, the answer's template ({{args.<name>}} reads an argument), or a list of answers, one per call in order. Each call of the AI message before it needs an answer (checked at start-up).",
  anyOf: [TOOL_ANSWERS, { type: 'array', items: { type: 'string' } }],
} as const;

/** A chat model call of a node: the reply it streams and the node writes to `messages`. */
const MESSAGE = {
  type: 'object',
  additionalProperties: false,
  description:
    'A chat model call: its reply is streamed in chunks (messages modes, events) and written to `messages` by the node. Its text, chunks and tool call arguments are templates: {{input}} the last human message, {{state.<key>}} a key of the state, {{last.<type>.<field>}} the last message of a type, {{resume}} the resume value (after an interrupt).',
  properties: {
    text: { type: 'string', description: 'The reply\'s text (default "").' },
    tool_calls: { type: 'array', items: TOOL_CALL },
    chunk: { ...CHUNK, description: "How the text is cut into chunks (default: the graph's stream.chunk)." },
    delay_ms: { ...DELAY_MS, description: "Pause before each chunk (default: the graph's stream.delay_ms)." },
    chunks: {
      type: 'array',
      minItems: 1,
      items: { type: 'string' },
      description: 'The chunks exactly, in place of cutting `text` (a recording keeps them so); their concatenation is the text.',
    },
    name: { type: 'string', minLength: 1, description: "The message's `name` (an agent's name in a multi-agent graph)." },
  },
} as const;

/** One thing a node does before it returns, in order (a task's `do`). */
const ACTION = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  maxProperties: 1,
  description: 'One thing the node does: wait, send a custom stream event, call the chat model, or pause for a human.',
  properties: {
    delay_ms: { ...DELAY_MS, description: 'The node works this long.' },
    custom: { description: 'A value the node writes to the stream (`custom` mode), as `config.writer` does.' },
    message: MESSAGE,
    interrupt: {
      description:
        'The node pauses with this value (the thread waits); resumed with a Command, it runs again from its first action, and this interrupt gives the resume value ({{resume}}).',
    },
  },
} as const;

/** An item of the store a step reads or writes: its namespace (labels; templates allowed) and key. */
const STORE_ITEM_REF = {
  namespace: {
    type: 'array',
    minItems: 1,
    items: { type: 'string', minLength: 1 },
    description: "The item's namespace, label by label; each a template ({{input}}, {{state.<key>}}, {{last.<type>.<field>}}).",
  },
  key: { type: 'string', minLength: 1, description: "The item's key (a template)." },
} as const;

/** The fields of a task: one node's work in a superstep. `subgraph` is added where it is defined. */
const TASK_PROPERTIES = {
  node: NODE_NAME,
  do: { type: 'array', items: ACTION, description: 'What the node does before it returns, in order.' },
  delay_ms: { ...DELAY_MS, description: 'Shorthand: the node works this long first (a `do` action).' },
  custom: { type: 'array', description: 'Shorthand: values written to the custom stream, after the delay (`do` actions).' },
  message: MESSAGE,
  interrupt: { description: 'Shorthand: the node pauses with this value last (a `do` action).' },
  update: {
    type: 'object',
    description:
      'What the node returns: state keys and the values written to them, each through its channel\'s reducer (`messages` merges). String values are templates ({{input}}, {{state.<key>}}, {{last.<type>.<field>}}, {{resume}}; a value that is one whole placeholder, such as "{{resume}}", is the value itself).',
  },
  tools: STEP_TOOL_ANSWERS,
  goto: {
    anyOf: [NODE_NAME_OR_END, { type: 'array', minItems: 1, items: NODE_NAME_OR_END }],
    description:
      'The node returns a Command that goes there (with `update` as its update): no router runs after it. Where the run goes is the next step all the same.',
  },
  tool_events: {
    type: 'boolean',
    description:
      'Whether the tool calls are executed as tools (on_tool_start/on_tool_end in the tools and events modes: default true), or answered by a plain function (false).',
  },
  error: ERROR,
  store_get: {
    type: 'array',
    description:
      'Items of the store (long-term memory) the node reads before anything else: each as `as`, so that templates read it ({{store.<as>}} is its value, {{store.<as>.<field>}} a field of it; a missing item is null).',
    items: {
      type: 'object',
      additionalProperties: false,
      required: ['namespace', 'key', 'as'],
      properties: { ...STORE_ITEM_REF, as: { type: 'string', minLength: 1, pattern: '^[A-Za-z_][A-Za-z0-9_]*$' } },
    },
  },
  store_put: {
    type: 'array',
    description: 'Items the node writes to the store as it returns (with its checkpoint): their values are templates too.',
    items: {
      type: 'object',
      additionalProperties: false,
      required: ['namespace', 'key', 'value'],
      properties: {
        ...STORE_ITEM_REF,
        value: { type: 'object', description: 'The item (a JSON object).' },
        ttl: { type: 'number', exclusiveMinimum: 0, description: 'Minutes it lives (default: for ever).' },
      },
    },
  },
  store_delete: {
    type: 'array',
    description: 'Items the node deletes from the store as it returns.',
    items: { type: 'object', additionalProperties: false, required: ['namespace', 'key'], properties: STORE_ITEM_REF },
  },
} as const;

/** A task's fields, with `subgraph` (its steps) of the given schema. */
const taskSchema = <Steps extends object>(subgraphSteps: Steps) =>
  ({
    type: 'object',
    additionalProperties: false,
    required: ['node'],
    properties: {
      ...TASK_PROPERTIES,
      subgraph: {
        ...subgraphSteps,
        description:
          "The node is a subgraph: these are its steps, run in its own namespace (<node>:<task id>). What the node returns to the parent is `update`, else the subgraph's final values of the parent's keys.",
      },
    },
  }) as const;

/** A superstep: one task, or tasks that run in parallel. */
const stepSchema = <Task extends object>(task: Task) =>
  ({
    anyOf: [
      task,
      {
        type: 'object',
        additionalProperties: false,
        required: ['parallel'],
        properties: {
          parallel: {
            type: 'array',
            minItems: 2,
            items: task,
            description:
              "Tasks of one superstep, run in parallel: their writes are applied together, in the order of their node names (as LangGraph orders a superstep's tasks).",
          },
        },
      },
    ],
  }) as const;

// Subgraphs nest: three levels of steps are spelled out (JSON Schema has no recursion without
// `$ref`s, which json-schema-to-ts's types and this one source keep out), deeper ones are objects.
const STEPS_DEPTH_3 = { type: 'array', minItems: 1, items: stepSchema(taskSchema({ type: 'array', minItems: 1 } as const)) } as const;
const STEPS_DEPTH_2 = { type: 'array', minItems: 1, items: stepSchema(taskSchema(STEPS_DEPTH_3)) } as const;
const STEPS = { type: 'array', minItems: 1, items: stepSchema(taskSchema(STEPS_DEPTH_2)) } as const;
/** A run's steps: none for a run that stopped before its first node (a breakpoint there, a cancel). */
const RUN_STEPS = { ...STEPS, minItems: 0 } as const;

const BREAKPOINT_NODES = { anyOf: [{ const: '*' }, { type: 'array', items: { type: 'string', minLength: 1 } }] } as const;

/** What a run was asked, beyond its input: the run's request, as an entry answers it exactly. */
const RUN_REQUEST = {
  type: 'object',
  additionalProperties: false,
  description:
    "The run's request exactly: the entry answers a run only when its request has these, every field left out at its default (no command, no breakpoints, the reject strategy, a run on a thread, nothing beyond the default assistant's config and context). A recording writes one per run, so that the same input with and without a breakpoint, resumed with another value, or under another config replays as the upstream answered each.",
  properties: {
    input: { description: "The run's whole input, where `match` does not say all of it (message IDs aside)." },
    command: {
      type: 'object',
      description: "The run's command (`resume`, `update`, `goto`; message IDs aside): the entry answers that command, and no input.",
    },
    config: {
      type: 'object',
      description:
        "What the run's config holds beyond the default assistant's: its assistant's and its own (configurable keys, recursion_limit, tags), without the server's IDs and the request's headers.",
    },
    context: { type: 'object', description: "What the run's context holds beyond the default assistant's." },
    interrupt_before: { ...BREAKPOINT_NODES, description: "The run's own interrupt_before." },
    interrupt_after: { ...BREAKPOINT_NODES, description: "The run's own interrupt_after." },
    multitask_strategy: { enum: ['reject', 'interrupt', 'rollback', 'enqueue'], description: 'Default reject.' },
    stateless: { type: 'boolean', description: 'A stateless run (POST /runs, /runs/wait, /runs/stream): a thread of its own.' },
  },
} as const;

/** One branch of a router: where the graph goes when its condition holds (no condition: the default branch, last). */
const ROUTE = {
  type: 'object',
  additionalProperties: false,
  required: ['to'],
  description:
    'A branch of the router: `to` when its condition holds. A condition is `tool_calls`, or `value` with one of `equals`, `in`, `matches`, `empty`; a branch without one is the default, and comes last.',
  properties: {
    to: { ...NODE_NAME_OR_END, description: "Where the graph goes: a node of the edge's `to`, or __end__." },
    tool_calls: {
      type: 'boolean',
      description: 'Holds when the last message is an AI message that calls tools (true), or is not (false), as tools_condition routes.',
    },
    value: {
      type: 'string',
      description:
        'A template read from the state the router is given: {{state.<key>}}, {{last.<type>.<field>}} (the last message of a type), {{input}}; one whole placeholder is the value itself.',
    },
    equals: { description: 'Holds when `value` is this (any JSON value).' },
    in: { type: 'array', description: 'Holds when `value` is one of these.' },
    matches: { ...GLOB, description: 'Holds when `value` is a text this glob (* and ?) matches.' },
    empty: { type: 'boolean', description: 'Holds when `value` is absent, null, "", [] or {} (true), or is not (false).' },
  },
} as const;

const EDGE = {
  type: 'object',
  additionalProperties: false,
  required: ['from', 'to'],
  properties: {
    from: { type: 'string', minLength: 1, description: 'A node, or __start__.' },
    to: {
      anyOf: [
        { type: 'string', minLength: 1 },
        { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } },
      ],
      description: 'A node, __end__, or several: all of them run next (fan-out), unless the edge is conditional.',
    },
    conditional: { type: 'boolean', description: 'A router picks one of `to` (drawn dashed; default false, true with `routes`).' },
    routes: {
      type: 'array',
      minItems: 1,
      items: ROUTE,
      description:
        "How the router picks, in order: the first branch whose condition holds on the state (the default branch last). With routes, `next` is computed wherever LangGraph's router would run: after a state update as the node, after supersteps, at the end of a run's steps; without, a router's choice is known only inside a run (the next step of its script).",
    },
  },
} as const;

/** Nodes the graph stops before or after, as LangGraph's `compile({ interruptBefore, interruptAfter })` makes it. */
const BREAKPOINTS = {
  interrupt_before: {
    type: 'array',
    items: NODE_NAME,
    description: 'The graph stops before these nodes, every run (a breakpoint compiled into the graph); a run with input null goes on.',
  },
  interrupt_after: { type: 'array', items: NODE_NAME, description: 'The graph stops after these nodes, every run.' },
} as const;

const CHANNEL = {
  type: 'object',
  additionalProperties: false,
  properties: {
    reducer: {
      enum: ['replace', 'append', 'add', 'merge', 'messages'],
      description:
        "How a write is applied: replace (the default), append (lists are concatenated), add (numbers are summed), merge (objects, key by key), messages (LangGraph's messages reducer).",
    },
    default: { description: 'The value before anything writes it; without one, the key is absent from values until written.' },
  },
} as const;

export const GRAPH_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  description:
    'A scripted graph: `replies` (the ReAct shorthand: a model node `agent` and a tool node `tools`) or `runs` (steps of nodes of any shape).',
  properties: {
    state: {
      type: 'object',
      propertyNames: STATE_KEY,
      description:
        'State keys and their defaults, present from the start; `messages` is always there (default []) unless `channels` says otherwise.',
    },
    channels: {
      type: 'object',
      propertyNames: STATE_KEY,
      additionalProperties: CHANNEL,
      description:
        "The state's keys (channels), each with its reducer and default. With `channels`, the state is exactly these keys and those of `state`.",
    },
    replies: {
      type: 'array',
      minItems: 1,
      description: 'The ReAct shorthand: the chat model of node `agent`, one entry per model call, chosen at the thread cursor.',
      items: {
        type: 'object',
        additionalProperties: false,
        properties: {
          match: { ...GLOB, description: 'Glob (* and ?) on the text of the last human message.' },
          text: {
            type: 'string',
            description:
              'The reply, a template: {{input}} is the last human message, {{state.<key>}} a key of the state, {{last.<type>.<field>}} the last message of a type, {{resume}} the resume value (in a reply that interrupts).',
          },
          tool_calls: { type: 'array', items: TOOL_CALL },
          update: { type: 'object', description: 'Extra state the node writes with the reply (keys declared in `state`).' },
          interrupt: { description: 'The node pauses with this value; once resumed, it replies.' },
          error: ERROR,
        },
      },
    },
    tools: { ...TOOL_ANSWERS, description: `With replies, node \`tools\`: ${TOOL_ANSWERS.description}` },
    nodes: {
      type: 'array',
      minItems: 1,
      uniqueItems: true,
      items: NODE_NAME,
      description: "The graph's nodes, in the order it adds them (its drawing lists them so).",
    },
    edges: { type: 'array', items: EDGE, description: "The graph's edges: its drawing, and what runs after a state update as a node." },
    subgraphs: {
      type: 'object',
      description:
        "Nodes that are subgraphs (at any depth, by node name): the subgraph's nodes, edges and channels (its drawing with xray, its schemas, its state).",
      additionalProperties: {
        type: 'object',
        additionalProperties: false,
        properties: {
          nodes: { type: 'array', items: NODE_NAME },
          edges: { type: 'array', items: EDGE },
          channels: { type: 'object', propertyNames: STATE_KEY, additionalProperties: CHANNEL },
          ...BREAKPOINTS,
        },
      },
    },
    ...BREAKPOINTS,
    runs: {
      type: 'array',
      description:
        'What a run does, by its input: one entry per run, chosen at the thread cursor as replies are (the first at or after it that matches, wrapping around). None: every run fails, saying no entry matches (a recorded graph no run was seen on).',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['steps'],
        properties: {
          id: {
            type: 'string',
            minLength: 1,
            maxLength: 128,
            description: "The entry's name, which an entry that goes on from it gives as `continues`.",
          },
          match: { ...GLOB, description: 'Glob (* and ?) on the text of the last human message of the input.' },
          match_input: { ...GLOB, description: "Glob (* and ?) on the run's input as JSON (for graphs without messages)." },
          continues: {
            anyOf: [
              { type: 'string', minLength: 1 },
              {
                type: 'object',
                additionalProperties: false,
                required: ['run', 'step'],
                properties: { run: { type: 'string', minLength: 1 }, step: { type: 'integer', minimum: 0 } },
              },
            ],
            description:
              "Where the thread stands when this run starts: where the run of the entry so named left it (its `id`), or `{run, step}`, at a checkpoint that entry's run wrote before its step `step` (a run from an earlier checkpoint). An entry without `continues` but with `request` starts where no entry's run left the thread (a new thread, or a state the client wrote). A resume, `input: null` or a command is answered by an entry that continues where the thread stands; without one, it goes on in the entry it stands in (an entry without `request`).",
          },
          request: RUN_REQUEST,
          steps: { ...RUN_STEPS, description: "The run's supersteps in order: a task, or `parallel` tasks." },
          next: {
            type: 'array',
            items: NODE_NAME,
            description:
              'The nodes the thread waits before once the steps are done: the run stops there, as it did at a breakpoint or when it was cancelled (with until_cancelled).',
          },
          until_cancelled: {
            type: 'boolean',
            description:
              'The run was cancelled where its steps end (a client cancelled it, or a later run interrupted or rolled it back): it waits there until it is cancelled. With no steps and no `next`, it waits before it writes anything.',
          },
        },
      },
    },
    assistant: {
      type: 'object',
      additionalProperties: false,
      description: "The graph's default assistant.",
      properties: {
        config: { type: 'object', description: 'Its config (its `configurable` reaches every run).' },
        context: { type: 'object', description: 'Its context.' },
        metadata: { type: 'object', description: 'Its metadata (besides created_by: system).' },
        description: { type: ['string', 'null'] },
      },
    },
    drawing: {
      type: 'object',
      description:
        "The graph's drawing as /assistants/{id}/graph answers it, `plain` and with `xray`, as recorded from a server (default: drawn from nodes and edges).",
      additionalProperties: false,
      properties: { plain: { type: 'object' }, xray: { type: 'object' } },
    },
    schemas: {
      type: 'object',
      description: "The graph's schemas as /assistants/{id}/schemas answers them, as recorded from a server (default: from the channels).",
    },
    stream: {
      type: 'object',
      additionalProperties: false,
      properties: {
        chunk: { ...CHUNK, description: 'How a reply is cut into message chunks (default word).' },
        delay_ms: { ...DELAY_MS, description: 'Pause before each chunk (default 0).' },
      },
    },
  },
} as const;
