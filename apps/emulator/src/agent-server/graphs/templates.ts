// The templates of the graphs config: `{{input}}` is the text of the last human message,
// `{{resume}}` the value a resumed interrupt gave (a string as it is, anything else as JSON, "" when
// none), `{{args.<name>}}` an argument of the tool call being answered (likewise; `args.a.b` reads a key of argument `a`), `{{store.<as>}}` an item a step read from the store. A string that
// is only `{{resume}}` (or only `{{args.<name>}}`) in a state write is the value itself, not its text.

export interface TemplateContext {
  input?: string;
  resume?: unknown;
  args?: Record<string, unknown>;
  /** The store items a step read, by the name it gave each. */
  store?: Record<string, unknown>;
}

const PLACEHOLDER = /\{\{(input|resume|(?:args|store)\.[^{}\s]+)\}\}/g;
const WHOLE_PLACEHOLDER = /^\{\{(resume|(?:args|store)\.[^{}\s]+)\}\}$/;

/** A template's text with its placeholders filled in. */
export function renderText(template: string, context: TemplateContext): string {
  return template.replace(PLACEHOLDER, (_, name: string) => asText(placeholderValue(name, context)));
}

/**
 * A state write with the templates of its strings filled in, at any depth; a string that is one
 * whole `{{resume}}` or `{{args.<name>}}` becomes that value.
 */
export function renderValue(value: unknown, context: TemplateContext): unknown {
  if (typeof value === 'string') {
    const whole = WHOLE_PLACEHOLDER.exec(value);
    if (whole) return placeholderValue(whole[1]!, context) ?? null;
    return value.includes('{{') ? renderText(value, context) : value;
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

function placeholderValue(name: string, context: TemplateContext): unknown {
  if (name === 'input') return context.input ?? '';
  if (name === 'resume') return context.resume;
  // `args.a.b` reads argument `a`'s key `b`; `store.x.y` the field `y` of the item read as `x`.
  const [root, ...path] = name.split('.');
  let at: unknown = root === 'store' ? context.store : context.args;
  for (const key of path) {
    at =
      at !== null && typeof at === 'object' && !Array.isArray(at) && Object.hasOwn(at, key)
        ? (at as Record<string, unknown>)[key]
        : undefined;
  }
  return at;
}

function asText(value: unknown): string {
  return typeof value === 'string' ? value : value === undefined ? '' : JSON.stringify(value);
}
