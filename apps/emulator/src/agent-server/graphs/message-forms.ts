// The forms a request may write a message in (the spec's MessageInput), brought to the one form
// the state stores: LangGraph's `type` form. The role form of chat-completion APIs
// (`{"role": "user", "content": ...}`, which LangGraph's quickstarts send) is coerced as LangChain's
// coerceMessageLikeToMessage does it: the role names the type, an assistant's OpenAI-style tool
// calls become tool calls, and a `developer` message is a system message marked as such. A message
// with both `role` and `type` (the AG-UI LangGraph adapter writes every new message so) is coerced
// the same way: the spec holds its role to name its type, so only `developer` adds its mark.

type Values = Record<string, unknown>;

const TYPE_OF_ROLE: Record<string, string> = {
  user: 'human',
  human: 'human',
  assistant: 'ai',
  ai: 'ai',
  system: 'system',
  developer: 'system',
  tool: 'tool',
};

/** The message in the `type` form; a message already in it is returned as it is. */
export function inTypeForm(message: Values): Values {
  if (typeof message.role !== 'string') return message;
  const { role, ...rest } = message;
  const typed: Values = { ...rest, type: TYPE_OF_ROLE[role] ?? role };
  if (role === 'developer') typed.additional_kwargs = { ...(rest.additional_kwargs as Values | undefined), __openai_role__: 'developer' };
  if (typed.type === 'ai' && Array.isArray(rest.tool_calls)) {
    const calls = (rest.tool_calls as Values[]).map(asToolCall);
    typed.tool_calls = calls.filter((call) => call.type === 'tool_call');
    const invalid = calls.filter((call) => call.type === 'invalid_tool_call');
    if (invalid.length > 0) typed.invalid_tool_calls = invalid;
  }
  return typed;
}

/**
 * A tool call as LangChain stores it, from either form: `{id, type: "function", function: {name,
 * arguments}}` has its `arguments` read as JSON. Arguments that are not the JSON of an object make
 * an invalid tool call, as LangChain records a call whose arguments it cannot parse (LangChain's
 * own coercion throws there, which a server answers with a 500).
 */
function asToolCall(call: Values): Values {
  if (call.type !== 'function') return { ...call, type: 'tool_call' };
  const { name, arguments: text } = call.function as { name: string; arguments: string };
  let args: unknown;
  try {
    args = JSON.parse(text);
  } catch {
    args = undefined;
  }
  if (args === null || typeof args !== 'object' || Array.isArray(args))
    return { name, args: text, id: call.id, error: 'Function arguments are not the JSON of an object.', type: 'invalid_tool_call' };
  return { name, args, id: call.id, type: 'tool_call' };
}
