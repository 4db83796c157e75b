// State values as the protocol sends them (ProtocolValues in the spec): every key as stored, but
// messages compacted to what a client renders (type, content, ID, the tool calls and the rest a
// message of its kind carries), their content lists made standard content blocks. The stored
// message keeps LangChain's whole form (`additional_kwargs`, `tool_call_chunks`, ...), which the
// state API still answers.
type Values = Record<string, unknown>;

/** The keys a compacted message keeps, when it has them (and they are not empty). */
const KEPT = ['name', 'tool_calls', 'invalid_tool_calls', 'tool_call_id', 'status', 'artifact', 'example'] as const;

/** The standard content blocks' types: a part of any other type is kept whole as `non_standard`. */
const STANDARD_BLOCKS = new Set([
  'text',
  'reasoning',
  'tool_call',
  'tool_call_chunk',
  'invalid_tool_call',
  'image',
  'audio',
  'video',
  'file',
  'non_standard',
]);

/** A state's values (or a node's writes) with their messages compacted. */
export function compactValues(values: Values): Values {
  if (!Array.isArray(values.messages)) return values;
  return { ...values, messages: values.messages.map((message) => (isObject(message) ? compactMessage(message) : message)) };
}

/** One message, compacted: `type` (the role form's `user` is `human`, `assistant` `ai`), `content`, `id`, and what it carries. */
export function compactMessage(message: Values): Values {
  const compact: Values = { type: typeOf(message), content: contentOf(message.content) };
  if (message.id !== undefined && message.id !== null) compact.id = message.id;
  for (const key of KEPT) {
    const value = message[key];
    if (value === undefined || value === null || (Array.isArray(value) && value.length === 0)) continue;
    compact[key] = value;
  }
  if (isObject(message.response_metadata) && Object.keys(message.response_metadata).length > 0)
    compact.response_metadata = message.response_metadata;
  return compact;
}

/** A content list's parts as standard blocks. */
export function contentBlocksOf(parts: readonly unknown[]): Values[] {
  return parts.map((part) => {
    if (typeof part === 'string') return { type: 'text', text: part };
    if (!isObject(part)) return { type: 'non_standard', value: { value: part } };
    if (part.type === 'image_url') {
      const url = isObject(part.image_url) ? part.image_url.url : part.image_url;
      return typeof url === 'string' ? { type: 'image', url } : { type: 'non_standard', value: part };
    }
    if (part.type === 'text' && typeof part.text !== 'string') return { type: 'non_standard', value: part };
    return typeof part.type === 'string' && STANDARD_BLOCKS.has(part.type) ? part : { type: 'non_standard', value: part };
  });
}

function contentOf(content: unknown): unknown {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return contentBlocksOf(content);
  return content ?? '';
}

function typeOf(message: Values): unknown {
  const given = message.type ?? message.role;
  if (given === 'user') return 'human';
  if (given === 'assistant') return 'ai';
  if (given === 'developer') return 'system';
  return given;
}

const isObject = (value: unknown): value is Values => value !== null && typeof value === 'object' && !Array.isArray(value);
