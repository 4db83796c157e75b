// What the graphs config's JSON Schema (graph-config.ts) cannot say, one readable line per
// problem, each naming where it is: graph ids are the spec's GraphId, which fits in a URL and
// cannot be mistaken for an assistant's UUID or a path under /assistants/; a graph has replies or
// runs; a key written must be a key of the state; a node a step or an edge names must be a node of
// the graph; a reply or a task does something, and one that raises writes nothing.
// The walks over a config's steps (tasksOfStep, allTasks) live here, with the checks that use them
// most; the compile steps (task-plan.ts) import them from here: validation sits below compilation.
import { GraphIdSchema } from '../../generated/agent-server/contract.js';
import { api } from '../../generated/agent-server/operations.js';
import { END, START } from './graph-shape.js';
import type { GraphDefinition, ReplyEntry, StepConfig, TaskConfig } from './graph-types.js';
import type { TemplateScope } from './templates.js';
import { nameProblem, placeholdersOf } from './templates.js';

type Values = Record<string, unknown>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// What a graph ID is, as the spec's GraphId states it.
const GRAPH_ID = new RegExp(GraphIdSchema.pattern, 'u');
/** The last segments of the concrete paths under /assistants/ (`search`, `count`): a graph of that ID could not be named there. */
const ASSISTANT_PATH_WORDS = new Set(
  Object.values(api.operations).flatMap(({ path }) => /^\/assistants\/([^/{}]+)$/.exec(path)?.slice(1) ?? []),
);

export function graphConfigProblems(graphs: Readonly<Record<string, GraphDefinition>>): string[] {
  const problems: string[] = [];
  for (const [graphId, graph] of Object.entries(graphs)) {
    const at = `graphs.${graphId}`;
    if (UUID.test(graphId)) problems.push(`${at}: a graph id cannot be a UUID (assistant ids are UUIDs, and either names a graph)`);
    else if (ASSISTANT_PATH_WORDS.has(graphId))
      problems.push(
        `${at}: a graph id cannot be ${graphId} (/assistants/${graphId} is another operation, so its default assistant could not be named)`,
      );
    else if (!GRAPH_ID.test(graphId) || graphId.length > GraphIdSchema.maxLength)
      problems.push(
        `${at}: a graph id is ${GraphIdSchema.minLength} to ${GraphIdSchema.maxLength} letters, digits, "_", "-" or "." (not starting with "-" or ".")`,
      );
    problems.push(...graphProblems(graph, at));
  }
  return problems;
}

/** The state keys a graph declares: its channels (or `messages`) and the keys of `state`. */
function stateKeysOf(graph: Pick<GraphDefinition, 'channels' | 'state'>): Set<string> {
  return new Set([...Object.keys(graph.channels ?? { messages: {} }), ...Object.keys(graph.state ?? {})]);
}

function graphProblems(graph: GraphDefinition, at: string): string[] {
  const problems: string[] = [];
  const state = graph.state ?? {};
  if (!graph.channels && Object.hasOwn(state, 'messages'))
    problems.push(`${at}.state.messages: messages is always in the state (default []); remove it`);
  const keys = stateKeysOf(graph);
  for (const [key, channel] of Object.entries(graph.channels ?? {}))
    if (Object.hasOwn(channel, 'default'))
      problems.push(...defaultProblems(channel.reducer ?? 'replace', channel.default, `${at}.channels.${key}`));
  problems.push(...messagesChannelProblems(graph.channels, `${at}.channels`));
  for (const [node, subgraph] of Object.entries(graph.subgraphs ?? {}))
    problems.push(...messagesChannelProblems(subgraph.channels, `${at}.subgraphs.${node}.channels`));
  const has = ['replies', 'runs'].filter((key) => Object.hasOwn(graph, key));
  if (has.length !== 1) {
    problems.push(
      `${at}: a graph has replies (the ReAct shorthand) or runs (steps of nodes of any shape), ${has.length === 0 ? 'and this one has neither' : 'not both'}`,
    );
    return problems;
  }
  if (graph.replies) {
    for (const key of ['nodes', 'edges', 'subgraphs'] as const)
      if (Object.hasOwn(graph, key))
        problems.push(`${at}.${key}: the replies shorthand has the ReAct agent's shape (agent and tools); ${key} goes with runs`);
    graph.replies.forEach((reply, index) => {
      if (typeof reply === 'function') return;
      for (const problem of replyProblems(reply, keys, graph.tools ?? {})) problems.push(`${at}.replies[${index}]: ${problem}`);
    });
    problems.push(...replyTemplateProblems(graph, at, keys));
    return problems;
  }
  const nodes = graph.nodes ? new Set(graph.nodes) : undefined;
  for (const [i, edge] of (graph.edges ?? []).entries()) {
    if (edge.from !== START && nodes && !nodes.has(edge.from))
      problems.push(`${at}.edges[${i}].from: ${edge.from} is not a node of this graph (nodes)`);
    for (const target of [edge.to].flat())
      if (target !== END && nodes && !nodes.has(target))
        problems.push(`${at}.edges[${i}].to: ${target} is not a node of this graph (nodes)`);
  }
  problems.push(...routeProblems(graph.edges, `${at}.edges`, keys));
  for (const [node, subgraph] of Object.entries(graph.subgraphs ?? {}))
    problems.push(
      ...routeProblems(subgraph.edges, `${at}.subgraphs.${node}.edges`, subgraph.channels ? new Set(Object.keys(subgraph.channels)) : keys),
    );
  // A subgraph node at any depth: a node of the graph, or of a subgraph's steps.
  const subgraphNodes = new Set(
    (graph.runs ?? []).flatMap((run) =>
      [...allTasks(run.steps as StepConfig[], '')].filter(({ task }) => task.subgraph).map(({ task }) => task.node),
    ),
  );
  for (const node of Object.keys(graph.subgraphs ?? {}))
    if (!(nodes?.has(node) ?? true) && !subgraphNodes.has(node))
      problems.push(`${at}.subgraphs.${node}: not a node of this graph (nodes) nor a subgraph node of its runs`);
  const graphNodes =
    nodes ??
    new Set(
      (graph.runs ?? []).flatMap((run) =>
        ((run.steps ?? []) as StepConfig[]).flatMap((step) => tasksOfStep(step).map((task) => task.node)),
      ),
    );
  problems.push(...runEntryProblems(graph.runs!, `${at}.runs`, nodes));
  graph.runs!.forEach((run, r) => {
    const where = `${at}.runs[${r}].steps`;
    problems.push(...stepProblems(run.steps as StepConfig[], where, nodes, keys, graph));
    problems.push(...stepTemplateProblems(run.steps as StepConfig[], where, keys, graph));
    problems.push(...gotoProblems(run.steps as StepConfig[], where, graphNodes, graph));
    problems.push(...toolCallProblems(run.steps as StepConfig[], where));
  });
  return problems;
}

/**
 * A Command goes to a node of the graph it is returned in (or `__end__`): LangGraph refuses any
 * other at run time. A subgraph's task goes to a node of that subgraph, as its steps or its
 * declared nodes name them.
 */
function gotoProblems(steps: readonly StepConfig[], at: string, nodes: ReadonlySet<string>, graph: GraphDefinition): string[] {
  const problems: string[] = [];
  for (const { task, at: where, within } of allTasks(steps, at)) {
    if (task.goto === undefined) continue;
    const known = within === undefined ? nodes : subgraphNodesOf(steps, within, graph);
    for (const target of [task.goto].flat())
      if (target !== END && !known.has(target))
        problems.push(
          `${where}.goto: ${target} is not a node of ${within === undefined ? 'this graph' : `subgraph ${within}`}; go to one of ${[...known, END].join(', ')}`,
        );
  }
  return problems;
}

/** A subgraph node's own nodes: declared under subgraphs, or those its steps run, wherever it runs. */
function subgraphNodesOf(steps: readonly StepConfig[], node: string, graph: GraphDefinition): Set<string> {
  const declared = graph.subgraphs?.[node]?.nodes;
  if (declared) return new Set(declared);
  const inner = [...allTasks(steps, '')].filter(({ task }) => task.node === node && task.subgraph);
  return new Set(inner.flatMap(({ task }) => (task.subgraph as StepConfig[]).flatMap((step) => tasksOfStep(step).map((t) => t.node))));
}

/**
 * The tool calls of a step's AI message are answered before the conversation goes on, as a chat
 * model's API requires: a later step that answers tools has an answer for each call, and no other
 * AI message comes first (a step that writes ToolMessages itself answers them too). A run may end with calls unanswered (a tool the client runs). Each
 * subgraph's steps are a conversation of their own.
 */
function toolCallProblems(steps: readonly StepConfig[], at: string): string[] {
  const problems: string[] = [];
  let pending: { calls: string[]; at: string } | undefined;
  for (const [i, step] of steps.entries()) {
    const tasks = tasksOfStep(step).map((task, j) => ({ task, where: 'parallel' in step ? `${at}[${i}].parallel[${j}]` : `${at}[${i}]` }));
    for (const { task, where } of tasks) {
      if (task.subgraph) problems.push(...toolCallProblems(task.subgraph as StepConfig[], `${where}.subgraph`));
      if (task.tools === undefined || !pending) continue;
      if (Array.isArray(task.tools)) {
        if (task.tools.length < pending.calls.length)
          problems.push(
            `${where}.tools: ${task.tools.length} answer(s) for the ${pending.calls.length} tool calls of ${pending.at} (${pending.calls.join(', ')}); give one per call`,
          );
      } else
        for (const name of new Set(pending.calls))
          if (!Object.hasOwn(task.tools, name))
            problems.push(`${where}.tools: no answer for tool ${name}, which ${pending.at} calls; add it: ${name}: <its answer>`);
    }
    if (tasks.some(({ task }) => task.tools !== undefined || writesToolMessages(task))) pending = undefined;
    for (const { task, where } of tasks)
      for (const { message, at: messageAt } of messagesOf(task, where)) {
        if (pending)
          problems.push(
            `${messageAt}: an AI message follows the tool calls of ${pending.at} (${pending.calls.join(', ')}) before a step answers them; answer them first (a step with tools)`,
          );
        const calls = (message.tool_calls ?? []).map((call) => call.name);
        pending = calls.length > 0 ? { calls, at: messageAt } : undefined;
      }
  }
  return problems;
}

/** Whether a task answers tool calls by writing ToolMessages itself (a plain function as tool node, as a recording keeps it). */
function writesToolMessages(task: TaskConfig): boolean {
  const messages = (task.update as Values | undefined)?.messages;
  return [messages].flat().some((message) => {
    const kind = (message as Values | undefined)?.type ?? (message as Values | undefined)?.role;
    return kind === 'tool';
  });
}

/** The chat model replies a task writes: its `message`, or its `do` actions' messages, where each is. */
function messagesOf(task: TaskConfig, at: string): { message: NonNullable<TaskConfig['message']>; at: string }[] {
  if (task.message) return [{ message: task.message, at: `${at}.message` }];
  return (task.do ?? []).flatMap((action, k) => (action.message ? [{ message: action.message, at: `${at}.do[${k}].message` }] : []));
}

/** The problems of a list of steps, in a graph or a subgraph with these nodes and state keys. */
function stepProblems(
  steps: readonly StepConfig[],
  at: string,
  nodes: ReadonlySet<string> | undefined,
  keys: ReadonlySet<string>,
  graph: GraphDefinition,
): string[] {
  const problems: string[] = [];
  for (const [i, step] of steps.entries()) {
    const tasks = tasksOfStep(step);
    const names = tasks.map((task) => task.node);
    const twice = names.find((name, j) => names.indexOf(name) !== j);
    if (twice) problems.push(`${at}[${i}].parallel: ${twice} runs twice in one superstep`);
    // Two writes in one superstep to a key that keeps one value: LangGraph refuses them.
    const written = new Map<string, string>();
    for (const task of tasks)
      for (const key of Object.keys(task.update ?? {})) {
        const reducer = graph.channels?.[key]?.reducer ?? (key === 'messages' && !graph.channels ? 'messages' : 'replace');
        if (reducer === 'replace' && written.has(key))
          problems.push(
            `${at}[${i}].parallel: ${written.get(key)} and ${task.node} both write ${key}, which keeps one value (give it a reducer under channels)`,
          );
        written.set(key, task.node);
      }
  }
  for (const { task, at: where, within } of allTasks(steps, at)) {
    if (!within && nodes && !nodes.has(task.node)) problems.push(`${where}.node: ${task.node} is not a node of this graph (nodes)`);
    const inner = within === undefined ? undefined : graph.subgraphs?.[within];
    if (inner?.nodes && !inner.nodes.includes(task.node))
      problems.push(`${where}.node: ${task.node} is not a node of subgraph ${within} (subgraphs.${within}.nodes)`);
    problems.push(...taskProblems(task, where, inner?.channels ? new Set(Object.keys(inner.channels)) : keys));
  }
  return problems;
}

function taskProblems(task: TaskConfig, at: string, keys: ReadonlySet<string>): string[] {
  const problems: string[] = [];
  const shorthand = ['delay_ms', 'custom', 'message', 'interrupt'].filter((key) => Object.hasOwn(task, key));
  if (task.do && shorthand.length > 0)
    problems.push(`do cannot be combined with ${shorthand.join(', ')}: write them as do actions, in their order`.replace(/^/, `${at}: `));
  if (task.error !== undefined) {
    const writes = ['update', 'tools', 'goto', 'subgraph'].filter((key) => Object.hasOwn(task, key));
    if (writes.length > 0) problems.push(`${at}: error cannot be combined with ${writes.join(', ')}: a node that raises writes nothing`);
  }
  if (task.tool_events !== undefined && task.tools === undefined)
    problems.push(`${at}.tool_events: goes with tools (the tool calls the node answers)`);
  for (const key of Object.keys(task.update ?? {}))
    if (!keys.has(key)) problems.push(`${at}.update.${key}: not a key of this graph's state (declare it under state or channels)`);
  return problems;
}

/** What is wrong with one reply entry (the schema checked its fields' types already). */
export function replyProblems(reply: ReplyEntry, keys: ReadonlySet<string> | Values, tools: Readonly<Record<string, string>>): string[] {
  const declared = keys instanceof Set ? keys : new Set(['messages', ...Object.keys(keys)]);
  const problems: string[] = [];
  const does = ['text', 'tool_calls', 'interrupt', 'error'].filter((key) => Object.hasOwn(reply, key));
  if (does.length === 0) problems.push('a reply needs text, tool_calls, interrupt or error');
  if (reply.error !== undefined && does.length > 1)
    problems.push(`error cannot be combined with ${does.filter((key) => key !== 'error').join(', ')}: a reply that raises says nothing`);
  if (reply.error !== undefined && reply.update !== undefined)
    problems.push('error cannot be combined with update: a node that raises writes nothing');
  for (const [c, call] of (reply.tool_calls ?? []).entries())
    if (!Object.hasOwn(tools, call.name))
      problems.push(
        `tool_calls[${c}].name: no answer for tool ${call.name} (node tools answers from the graph's tools); add it: tools: {${call.name}: <its answer>}`,
      );
  for (const key of Object.keys(reply.update ?? {})) {
    if (key === 'messages') problems.push('update.messages: the reply is the message the node writes; update writes the other keys');
    else if (!declared.has(key)) problems.push(`update.${key}: not a key of this graph's state (declare it under state)`);
  }
  return problems;
}

/**
 * `messages` is the conversation, which the API types as messages (and clients such as useStream
 * read as such): its reducer is the messages reducer. A graph that keeps other values there has its
 * answers refused by its own contract; it keeps them under another key.
 */
function messagesChannelProblems(channels: Readonly<Record<string, { reducer?: string }>> | undefined, at: string): string[] {
  const reducer = channels?.messages?.reducer;
  return reducer !== undefined && reducer !== 'messages'
    ? [
        `${at}.messages.reducer: ${reducer} is not allowed; messages is the conversation, which the API types as messages: its reducer is messages (keep other values under another key)`,
      ]
    : [];
}

/** A channel's default must fit its reducer: a list to append to, a number to add to, an object to merge into. */
function defaultProblems(reducer: string, value: unknown, at: string): string[] {
  const fits: Record<string, [(v: unknown) => boolean, string]> = {
    append: [Array.isArray, 'a list'],
    messages: [Array.isArray, 'a list'],
    add: [(v) => typeof v === 'number', 'a number'],
    merge: [(v) => v !== null && typeof v === 'object' && !Array.isArray(v), 'a mapping'],
  };
  const rule = fits[reducer];
  return rule && !rule[0](value) ? [`${at}.default: the ${reducer} reducer needs ${rule[1]}`] : [];
}

/** A step's tasks: the one task, or its parallel ones. */
export function tasksOfStep(step: StepConfig): TaskConfig[] {
  return 'parallel' in step ? (step.parallel as TaskConfig[]) : [step as TaskConfig];
}

/** Every task of a run's steps, subgraphs' included: where it is, and the subgraph node it runs in (none at the top). */
export function* allTasks(
  steps: readonly StepConfig[],
  at: string,
  within?: string,
): Generator<{ task: TaskConfig; at: string; within: string | undefined }> {
  for (const [i, step] of steps.entries()) {
    const tasks = tasksOfStep(step);
    for (const [j, task] of tasks.entries()) {
      const where = 'parallel' in step ? `${at}[${i}].parallel[${j}]` : `${at}[${i}]`;
      yield { task, at: where, within };
      if (task.subgraph) yield* allTasks(task.subgraph as StepConfig[], `${where}.subgraph`, task.node);
    }
  }
}

/**
 * The templates of the ReAct shorthand (templates.ts): a reply's text reads the resume value only
 * when the reply interrupts; the tools' answers read the call's arguments.
 */
function replyTemplateProblems(graph: GraphDefinition, at: string, stateKeys: ReadonlySet<string>): string[] {
  const problems: string[] = [];
  (graph.replies ?? []).forEach((reply, index) => {
    if (typeof reply !== 'function')
      problems.push(...replyTextProblems(reply, stateKeys).map((problem) => `${at}.replies[${index}].${problem}`));
  });
  for (const [tool, answer] of Object.entries(graph.tools ?? {}))
    problems.push(...templateProblems(answer, `${at}.tools.${tool}`, { resume: false, args: true, store: [], stateKeys }));
  return problems;
}

/** The placeholders of a reply's text that read nothing (also asked of what a reply function answers). */
export function replyTextProblems(reply: ReplyEntry, stateKeys: ReadonlySet<string>): string[] {
  if (reply.text === undefined) return [];
  return templateProblems(reply.text, 'text', { resume: Object.hasOwn(reply, 'interrupt'), args: false, store: [], stateKeys });
}

/**
 * The templates of a run's steps (templates.ts), each read where it is: a task's store reads come
 * first (each may read those before it), then its actions in order (the resume value exists after
 * its first interrupt), then what it returns and raises (the resume value exists when it
 * interrupts at all); only its tool answers read a call's arguments; `state` is the state of the
 * graph the task runs in (a subgraph's own when it declares channels).
 */
function stepTemplateProblems(steps: readonly StepConfig[], at: string, graphKeys: ReadonlySet<string>, graph: GraphDefinition): string[] {
  const problems: string[] = [];
  for (const { task, at: where, within } of allTasks(steps, at)) {
    const channels = within === undefined ? undefined : graph.subgraphs?.[within]?.channels;
    const stateKeys = channels ? new Set(Object.keys(channels)) : graphKeys;
    const check = (value: unknown, path: string, scope: Omit<TemplateScope, 'stateKeys'>) =>
      problems.push(...templateProblems(value, `${where}${path}`, { ...scope, stateKeys }));
    const reads: string[] = [];
    for (const [i, read] of (task.store_get ?? []).entries()) {
      check(read.namespace, `.store_get[${i}].namespace`, { resume: false, args: false, store: [...reads] });
      check(read.key, `.store_get[${i}].key`, { resume: false, args: false, store: [...reads] });
      reads.push(read.as);
    }
    const inTask = { args: false, store: reads };
    const actions = task.do
      ? task.do.map((action, i) => ({ action: action as Record<string, unknown>, path: `.do[${i}]` }))
      : [
          ...(task.custom ?? []).map((custom, i) => ({ action: { custom }, path: `.custom[${i}]`, bare: true })),
          ...(Object.hasOwn(task, 'interrupt') ? [{ action: { interrupt: task.interrupt }, path: '', bare: true }] : []),
          ...(task.message ? [{ action: { message: task.message }, path: '', bare: true }] : []),
        ];
    let resumed = false;
    for (const { action, path, bare } of actions as { action: Record<string, unknown>; path: string; bare?: boolean }[]) {
      for (const [key, value] of Object.entries(action))
        if (key !== 'delay_ms') check(value, bare && key === 'custom' ? path : `${path}.${key}`, { ...inTask, resume: resumed });
      if (Object.hasOwn(action, 'interrupt')) resumed = true;
    }
    const returned = { ...inTask, resume: resumed };
    if (task.update !== undefined) check(task.update, '.update', returned);
    if (task.error !== undefined) check(typeof task.error === 'string' ? task.error : task.error.message, '.error', returned);
    for (const [i, item] of (task.store_put ?? []).entries()) check(item, `.store_put[${i}]`, returned);
    for (const [i, item] of (task.store_delete ?? []).entries()) check(item, `.store_delete[${i}]`, returned);
    const answers: [string, string][] = Array.isArray(task.tools)
      ? task.tools.map((answer, i) => [`[${i}]`, answer])
      : Object.entries(task.tools ?? {}).map(([tool, answer]) => [`.${tool}`, answer]);
    for (const [path, answer] of answers) check(answer, `.tools${path}`, { ...returned, args: true });
  }
  return problems;
}

/** The placeholders of a template (or of every string of a value) that read nothing where they are. */
function templateProblems(value: unknown, at: string, scope: TemplateScope): string[] {
  return placeholdersOf(value).flatMap((name) => {
    const problem = nameProblem(name, scope);
    return problem ? [`${at}: ${problem}`] : [];
  });
}

type EdgeConfig = NonNullable<GraphDefinition['edges']>[number];

/**
 * A conditional edge's routes (routes.ts): each branch goes to one of the edge's targets, says one
 * condition (tool_calls, or value with one test) or none (the default, last), and its value is a
 * template of the state the router is given.
 */
function routeProblems(edges: readonly EdgeConfig[] | undefined, at: string, stateKeys: ReadonlySet<string>): string[] {
  const problems: string[] = [];
  for (const [i, edge] of (edges ?? []).entries()) {
    if (!edge.routes) continue;
    const where = `${at}[${i}]`;
    if (edge.conditional === false) problems.push(`${where}.routes: routes go with a conditional edge (remove conditional: false)`);
    const targets = [edge.to].flat();
    for (const [j, route] of edge.routes.entries()) {
      const branch = `${where}.routes[${j}]`;
      if (!targets.includes(route.to)) problems.push(`${branch}.to: ${route.to} is not one of this edge's targets (${targets.join(', ')})`);
      const tests = (['equals', 'in', 'matches', 'empty'] as const).filter((key) => Object.hasOwn(route, key));
      if (route.tool_calls !== undefined && (route.value !== undefined || tests.length > 0))
        problems.push(`${branch}: tool_calls is a condition of its own (not with value, ${tests.join(', ') || 'or a test'})`);
      else if (route.value !== undefined && tests.length !== 1)
        problems.push(
          `${branch}: value goes with one test: equals, in, matches or empty${tests.length > 1 ? ` (not ${tests.join(' and ')})` : ''}`,
        );
      else if (route.value === undefined && tests.length > 0)
        problems.push(`${branch}: ${tests.join(', ')} tests a value: add value (a template)`);
      const isDefault = route.tool_calls === undefined && route.value === undefined && tests.length === 0;
      if (isDefault && j < edge.routes.length - 1)
        problems.push(`${branch}: a branch without a condition is the default, and comes last (the branches after it never hold)`);
      if (!isDefault && j === edge.routes.length - 1)
        problems.push(`${where}.routes: the last branch is the default, without a condition (where the graph goes when no other holds)`);
      if (route.value !== undefined)
        problems.push(...templateProblems(route.value, `${branch}.value`, { resume: false, args: false, store: [], stateKeys }));
    }
  }
  return problems;
}

type RunEntryConfig = NonNullable<GraphDefinition['runs']>[number];

/**
 * What ties one entry of `runs` to another, or to the graph (run-scripts.ts): ids name one entry
 * each, `continues` names an entry and a step it has, `next` names nodes of the graph, and an entry
 * answers a command or an input, not both.
 */
function runEntryProblems(runs: readonly RunEntryConfig[], at: string, nodes: ReadonlySet<string> | undefined): string[] {
  const problems: string[] = [];
  const ids = new Map<string, number>();
  for (const [i, run] of runs.entries()) {
    if (run.id === undefined) continue;
    if (ids.has(run.id)) problems.push(`${at}[${i}].id: ${run.id} names runs[${ids.get(run.id)}] already`);
    else ids.set(run.id, i);
  }
  for (const [i, run] of runs.entries()) {
    const where = `${at}[${i}]`;
    if (run.continues !== undefined) {
      const named = typeof run.continues === 'string' ? run.continues : run.continues.run;
      const target = ids.get(named);
      if (target === undefined) problems.push(`${where}.continues: no entry of runs is named ${named} (id)`);
      else if (typeof run.continues !== 'string' && run.continues.step > runs[target]!.steps.length)
        problems.push(`${where}.continues.step: runs[${target}] has ${runs[target]!.steps.length} step(s)`);
      else if (target === i) problems.push(`${where}.continues: an entry cannot go on from itself`);
    }
    for (const node of run.next ?? [])
      if (nodes && !nodes.has(node)) problems.push(`${where}.next: ${node} is not a node of this graph (nodes)`);
    const input = ['match', 'match_input'].filter((key) => Object.hasOwn(run, key));
    if (run.request?.input !== undefined) input.push('request.input');
    if (run.request?.command !== undefined && input.length > 0)
      problems.push(`${where}.request.command: a run gives a command or an input, not both (${input.join(', ')})`);
  }
  return problems;
}
