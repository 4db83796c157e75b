// The template language of the graphs config: one syntax for every string a step writes (a reply's
// text, a state write, a tool's answer, an interrupt's value, a route's value). A placeholder is
// `{{name}}` (spaces inside allowed), where the name reads what the step is given:
//
// - `input`: the text of the last human message;
// - `resume`: the value a resumed interrupt gave (`resume.<path>` a part of it);
// - `state.<key>`: a key of the state the node is given (`state.<key>.<path>` a part of it);
// - `last.<type>`: the last message of a type: `message` (any type), `human`, `ai`, `tool` or
//   `system`, with a path into it (`last.ai.content`, `last.ai.tool_calls.0.args.city`), `text`
//   being the message's text (its string content, or its text blocks joined);
// - `args.<name>`: an argument of the tool call a tool answer answers;
// - `store.<as>`: an item a step read from the store (`store_get`), `store.<as>.<field>` a field.
//
// A path's parts are keys, or indexes of a list (`-1` is its last item). In text a value that is not
// a string is written as JSON, and nothing (a name that reads no value) as "". A string that is one
// whole placeholder, in a state write or a value, is the value itself, not its text. `\{{` is a
// literal `{{` (so is any odd run of backslashes before `{{`, each pair of them one backslash): a
// recording writes what a graph said that way. A name that does not exist, or that reads what the
// step is not given (`resume` where nothing was resumed, `args` outside a tool answer), is refused
// at start-up (graph-problems.ts), never rendered as empty.

type Values = Record<string, unknown>;

export interface TemplateContext {
  /** The state the node is given: `state.<key>`, `last.<type>`, and `input` when not given apart. */
  state?: Values;
  input?: string;
  resume?: unknown;
  args?: Record<string, unknown>;
  /** The store items a step read, by the name it gave each. */
  store?: Record<string, unknown>;
}

/** What a template at some place may read: the roots it is given there, and the names each accepts. */
export interface TemplateScope {
  /** Whether a resume value exists there (after an interrupt of its task, or a reply that interrupts). */
  resume: boolean;
  /** Whether it answers a tool call (a tool answer). */
  args: boolean;
  /** The names the task's store reads gave (store_get `as`). */
  store: readonly string[];
  /** The keys of the state the node is given. */
  stateKeys: ReadonlySet<string>;
}

/** The message types `last.<type>` reads; `message` is the last of any type. */
export const MESSAGE_TYPES = ['message', 'human', 'ai', 'tool', 'system'] as const;

const ROOTS = new Set(['input', 'resume', 'state', 'last', 'args', 'store']);

// `\` runs before `{{` are escapes; anything else between `{{` and `}}` (no braces) is a name.
const PLACEHOLDER = /(\\*)\{\{([^{}]*)\}\}/g;
const WHOLE = /^\{\{([^{}]*)\}\}$/;

/** A template's text with its placeholders filled in. */
export function renderText(template: string, context: TemplateContext): string {
  if (!template.includes('{{')) return template;
  return template.replace(PLACEHOLDER, (_, slashes: string, name: string) => {
    const kept = '\\'.repeat(Math.floor(slashes.length / 2));
    // A name of no root is checked away at start-up; one a reply function answered stays as written.
    if (slashes.length % 2 === 1 || !ROOTS.has(name.trim().split('.')[0]!)) return `${kept}{{${name}}}`;
    return kept + asText(read(name.trim(), context));
  });
}

/**
 * A value with the templates of its strings filled in, at any depth; a string that is one whole
 * placeholder becomes the value it reads (null when it reads none).
 */
export function renderValue(value: unknown, context: TemplateContext): unknown {
  if (typeof value === 'string') {
    const whole = WHOLE.exec(value);
    // A copy of what it reads: the runner names the messages a step writes (their IDs), and what
    // it reads may be the thread's state as the latest-checkpoint cache holds it.
    if (whole && ROOTS.has(whole[1]!.trim().split('.')[0]!)) return structuredClone(read(whole[1]!.trim(), context) ?? null);
    return renderText(value, context);
  }
  if (Array.isArray(value)) return value.map((item) => renderValue(item, context));
  // Always a copy (the runner may change what a step writes, never the config), built key by key:
  // a recorded write (a message with its metadata) is rendered on every run.
  if (value !== null && typeof value === 'object') {
    const rendered: Record<string, unknown> = {};
    for (const key of Object.keys(value)) rendered[key] = renderValue((value as Record<string, unknown>)[key], context);
    return rendered;
  }
  return value;
}

/** A text written as it is: every `{{` in it escaped, so that no template reads it (what a recording writes). */
export function literalText(text: string): string {
  return text.includes('{{') ? text.replace(/(\\*)\{\{/g, (_, slashes: string) => `${slashes}${slashes}\\{{`) : text;
}

/** A value written as it is, at any depth (literalText for each string). */
export function literalValue<T>(value: T): T {
  if (typeof value === 'string') return literalText(value) as T;
  if (Array.isArray(value)) return value.map(literalValue) as T;
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, literalValue(item)])) as T;
  return value;
}

/** The placeholders' names of a template, or of every string of a value, at any depth (escaped ones left out). */
export function placeholdersOf(value: unknown): string[] {
  if (typeof value === 'string') {
    if (!value.includes('{{')) return [];
    return [...value.matchAll(PLACEHOLDER)].filter((m) => m[1]!.length % 2 === 0).map((m) => m[2]!.trim());
  }
  if (Array.isArray(value)) return value.flatMap(placeholdersOf);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(placeholdersOf);
  return [];
}

/**
 * What is wrong with a placeholder's name in a scope, or undefined when it reads something there:
 * a name that does not exist, or that reads what the place is not given.
 */
export function nameProblem(name: string, scope: TemplateScope): string | undefined {
  const [root, ...path] = name.split('.');
  const named = `{{${name}}}`;
  const badPart = path.find((part) => part === '');
  if (badPart !== undefined) return `${named}: an empty part in its path`;
  switch (root) {
    case 'input':
      return path.length > 0 ? `${named}: input is the last human message's text, which has no parts` : undefined;
    case 'resume':
      return scope.resume ? undefined : `${named}: nothing is resumed here (resume is read after an interrupt of the same step)`;
    case 'args':
      if (!scope.args) return `${named}: args are read in a tool answer only (the arguments of the call it answers)`;
      return path.length === 0 ? `${named}: name the argument (args.<name>)` : undefined;
    case 'store':
      if (path.length === 0) return `${named}: name the item (store.<as>)`;
      return scope.store.includes(path[0]!)
        ? undefined
        : `${named}: no store_get of this step reads an item as ${path[0]}${scope.store.length > 0 ? ` (it reads ${scope.store.join(', ')})` : ''}`;
    case 'state':
      if (path.length === 0) return `${named}: name the key (state.<key>)`;
      return scope.stateKeys.has(path[0]!)
        ? undefined
        : `${named}: ${path[0]} is not a key of this graph's state (${[...scope.stateKeys].join(', ') || 'it has none'})`;
    case 'last':
      return MESSAGE_TYPES.includes(path[0] as (typeof MESSAGE_TYPES)[number])
        ? undefined
        : `${named}: last reads the last message of a type: ${MESSAGE_TYPES.map((type) => `last.${type}`).join(', ')}`;
    default:
      return `${named} names nothing: a template reads {{input}}, {{resume}}, {{state.<key>}}, {{last.<type>}}, {{args.<name>}} (in a tool answer) or {{store.<as>}} (after store_get); \\{{ is a literal {{`;
  }
}

/** What a name reads in a context; undefined when it reads no value there. */
function read(name: string, context: TemplateContext): unknown {
  const [root, ...path] = name.split('.');
  switch (root) {
    case 'input':
      return context.input ?? (context.state ? lastHumanText(context.state) : '');
    case 'resume':
      return follow(context.resume, path);
    case 'args':
      return follow(context.args, path);
    case 'store':
      return follow(context.store, path);
    case 'state':
      return follow(context.state, path);
    case 'last': {
      const message = lastMessage(context.state ?? {}, path[0] ?? 'message');
      if (path[1] === 'text' && path.length === 2 && message) return messageText(message.content);
      return follow(message, path.slice(1));
    }
    default:
      return undefined;
  }
}

/** A part of a value by its path: keys of objects, indexes of lists (negative from the end). */
function follow(value: unknown, path: readonly string[]): unknown {
  let at = value;
  for (const part of path) {
    if (Array.isArray(at)) {
      const index = /^-?\d+$/.test(part) ? Number(part) : Number.NaN;
      at = Number.isNaN(index) ? undefined : at.at(index);
    } else if (at !== null && typeof at === 'object' && Object.hasOwn(at, part)) at = (at as Values)[part];
    else return undefined;
  }
  return at;
}

/** The type of a message in either form: `type`, or `role` (user, assistant, ...). */
export function messageType(message: Values): string | undefined {
  if (typeof message.type === 'string') return message.type;
  const role = message.role;
  return role === 'user' ? 'human' : role === 'assistant' ? 'ai' : typeof role === 'string' ? role : undefined;
}

/** The last message of the state of a type (`message`: any type). */
export function lastMessage(values: Values, type: string): Values | undefined {
  const messages = Array.isArray(values.messages) ? (values.messages as unknown[]) : [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message === null || typeof message !== 'object') continue;
    if (type === 'message' || messageType(message as Values) === type) return message as Values;
  }
  return undefined;
}

/** The text of a message's content: a string, or the `text` of its text blocks joined. */
export function messageText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((block) =>
      typeof block === 'string'
        ? block
        : block !== null && typeof block === 'object' && typeof (block as Values).text === 'string'
          ? (block as Values).text
          : '',
    )
    .join('');
}

/** The text of the last human message of a state ("" when there is none). */
export function lastHumanText(values: Values): string {
  const message = lastMessage(values, 'human');
  return message ? messageText(message.content) : '';
}

function asText(value: unknown): string {
  return typeof value === 'string' ? value : value === undefined ? '' : JSON.stringify(value);
}
