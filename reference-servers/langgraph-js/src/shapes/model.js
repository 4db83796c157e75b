// The "model" of the shape graphs' model nodes: src/scripted.js's ScriptedChatModel with a fixed
// list of replies, so that a node calling it streams its reply in chunks (messages modes, events
// mode) as a real chat model would, with no LLM and no network.
import { normaliseScript, ScriptedChatModel } from '../scripted.js';

/**
 * A streaming fake chat model playing `replies` (the scripted graphs' reply objects: `text`,
 * `tool_calls`, `match`, ...) one per call, per thread, cut into words with `delayMs` before each.
 * `name` only labels its errors.
 */
export function scriptedModel(name, replies, { delayMs = 20 } = {}) {
  return new ScriptedChatModel({ graphId: name, script: normaliseScript(name, { replies, stream: { chunk: 'word', delay_ms: delayMs } }) });
}
