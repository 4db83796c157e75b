// A scripted graph: LangGraph's ReAct agent shape (`agent` calls a chat model, `tools` answers its
// tool calls) over a fake chat model whose replies come from a script instead of an LLM. The
// emulator implements the same script; this is what it is compared with.
//
// The config is the emulator's `graphs.<graph_id>` object:
//   state:   extra state keys and their defaults (`messages` is always there, default [])
//   replies: [{ match?, text?, tool_calls?, update?, interrupt?, error? }], one used per model call
//   tools:   { <tool name>: <content of the ToolMessage answering it> } (a tool not listed: "ok")
//   stream:  { chunk: 'word' | 'char' | 'whole', delay_ms: number }
//
// Why not `createReactAgent` itself: its agent node writes only `messages` (a reply's `update`
// cannot be written with the reply) and it keeps a `structuredResponse` channel. So the graph is
// built here with the prebuilt's node names, order, edges and ToolNode, and the differences are
// recorded in the corpus notes (createPrebuiltGraph below builds the real prebuilt to compare).
import { randomUUID } from 'node:crypto';
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, AIMessageChunk } from '@langchain/core/messages';
import { ChatGenerationChunk } from '@langchain/core/outputs';
import { AsyncLocalStorageProviderSingleton } from '@langchain/core/singletons';
import { tool } from '@langchain/core/tools';
import { END, interrupt, MessagesValue, START, StateGraph, StateSchema } from '@langchain/langgraph';
import { createReactAgent, ToolNode } from '@langchain/langgraph/prebuilt';

const CHUNKINGS = ['word', 'char', 'whole'];

/** Checks a graph's config and fills its defaults; throws an Error naming the first bad field. */
export function normaliseScript(graphId, config) {
  const where = (field) => `graphs.${graphId}${field}`;
  const isObject = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);
  if (!isObject(config)) throw new Error(`${where('')} must be an object`);
  const state = config.state ?? {};
  if (!isObject(state)) throw new Error(`${where('.state')} must be an object of defaults`);
  if ('messages' in state) throw new Error(`${where('.state.messages')}: messages is always there; do not declare it`);
  const replies = config.replies ?? [];
  if (!Array.isArray(replies)) throw new Error(`${where('.replies')} must be a list`);
  replies.forEach((reply, i) => {
    const at = (field) => where(`.replies[${i}]${field}`);
    if (!isObject(reply)) throw new Error(`${at('')} must be an object`);
    if (reply.match != null && typeof reply.match !== 'string') throw new Error(`${at('.match')} must be a string glob`);
    if (reply.text != null && typeof reply.text !== 'string') throw new Error(`${at('.text')} must be a string`);
    if (reply.error != null && typeof reply.error !== 'string') throw new Error(`${at('.error')} must be a string`);
    if (reply.tool_calls != null) {
      if (!Array.isArray(reply.tool_calls)) throw new Error(`${at('.tool_calls')} must be a list`);
      reply.tool_calls.forEach((call, j) => {
        if (!isObject(call) || typeof call.name !== 'string') throw new Error(`${at(`.tool_calls[${j}].name`)} must be a string`);
        if (call.args != null && !isObject(call.args)) throw new Error(`${at(`.tool_calls[${j}].args`)} must be an object`);
        if (call.id != null && typeof call.id !== 'string') throw new Error(`${at(`.tool_calls[${j}].id`)} must be a string`);
      });
    }
    if (reply.update != null) {
      if (!isObject(reply.update)) throw new Error(`${at('.update')} must be an object`);
      for (const key of Object.keys(reply.update)) {
        if (!(key in state)) throw new Error(`${at(`.update.${key}`)}: ${key} is not a key of ${where('.state')}`);
      }
    }
  });
  const tools = config.tools ?? {};
  if (!isObject(tools)) throw new Error(`${where('.tools')} must be an object`);
  for (const [name, content] of Object.entries(tools)) {
    if (typeof content !== 'string') throw new Error(`${where(`.tools.${name}`)} must be a string (the ToolMessage content)`);
  }
  const stream = { chunk: 'word', delay_ms: 0, ...(config.stream ?? {}) };
  if (!CHUNKINGS.includes(stream.chunk)) throw new Error(`${where('.stream.chunk')} must be one of ${CHUNKINGS.join(', ')}`);
  if (typeof stream.delay_ms !== 'number' || !(stream.delay_ms >= 0)) throw new Error(`${where('.stream.delay_ms')} must be a number >= 0`);
  return { state, replies, tools, stream };
}

/** Whole-string, case-sensitive glob: `*` any run of characters (newlines too), `?` one character. */
export function globMatches(glob, text) {
  let source = '';
  for (const char of glob) {
    if (char === '*') source += '.*';
    else if (char === '?') source += '.';
    else source += char.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, 'su').test(text);
}

/** The text of a message: its string content, or the `text` of its text blocks joined with nothing. */
export function messageText(message) {
  const content = message?.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((block) => typeof block === 'object' && block !== null && block.type === 'text' && typeof block.text === 'string')
    .map((block) => block.text)
    .join('');
}

const isHuman = (message) => (typeof message?._getType === 'function' ? message._getType() : message?.type) === 'human';

/** Cuts a reply's text into the streamed pieces; their concatenation is the text. Never empty. */
export function cutText(text, chunk) {
  let pieces;
  if (chunk === 'whole') pieces = [text];
  else if (chunk === 'char') pieces = Array.from(text);
  // A word with the whitespace before it; whitespace after the last word is a piece of its own.
  else pieces = text.match(/\s*\S+|\s+$/gu) ?? [];
  return pieces.length > 0 ? pieces : [''];
}

/** `{{input}}` is the last human message's text; `{{resume}}` the resume value (a string as is, else JSON). */
function render(text, input, resume) {
  const resumeText = resume === undefined ? '' : typeof resume === 'string' ? resume : JSON.stringify(resume);
  return text.replaceAll('{{input}}', input).replaceAll('{{resume}}', resumeText);
}

function sleep(ms, signal) {
  if (ms <= 0) return signal?.aborted ? Promise.reject(signal.reason) : Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * The chat model of node `agent`. Each thread (config.configurable.thread_id, passed by the node in
 * the call option `scripted`) has a cursor, from 0; a call takes the first reply at or after the
 * cursor, wrapping around, whose `match` matches the last human message, and moves the cursor past
 * it once the reply is complete (an `error` reply moves it before raising; an `interrupt` reply
 * does not move it until it is resumed and completes).
 */
export class ScriptedChatModel extends BaseChatModel {
  constructor({ graphId, script }) {
    super({});
    this.graphId = graphId;
    this.script = script;
    this.cursors = new Map();
  }

  static lc_name() {
    return 'ScriptedChatModel';
  }

  _llmType() {
    return 'scripted';
  }

  /** The tools are the script's: binding them changes nothing (the prebuilt binds them). */
  bindTools() {
    return this;
  }

  /** Chooses the reply and plays the parts that do not depend on streaming. */
  _play(messages, options) {
    const threadId = options?.scripted?.threadId ?? AsyncLocalStorageProviderSingleton.getRunnableConfig()?.configurable?.thread_id ?? '';
    const replies = this.script.replies;
    const human = [...messages].reverse().find(isHuman);
    const input = human ? messageText(human) : '';
    const cursor = this.cursors.get(threadId) ?? 0;
    let index = -1;
    for (let step = 0; step < replies.length; step += 1) {
      const candidate = (cursor + step) % replies.length;
      const { match } = replies[candidate];
      if (match == null || globMatches(match, input)) {
        index = candidate;
        break;
      }
    }
    if (index === -1) {
      throw new Error(`No scripted reply of graph ${JSON.stringify(this.graphId)} matches the last human message ${JSON.stringify(input)}`);
    }
    const reply = replies[index];
    const complete = () => this.cursors.set(threadId, (index + 1) % replies.length);
    if (reply.error != null) {
      complete();
      throw new Error(reply.error);
    }
    // Raises GraphInterrupt the first time; once resumed, returns the resume value.
    const resume = reply.interrupt !== undefined ? interrupt(reply.interrupt) : undefined;
    const text = render(reply.text ?? '', input, resume);
    const toolCalls = (reply.tool_calls ?? []).map((call) => ({ name: call.name, args: call.args ?? {}, id: call.id ?? randomUUID() }));
    if (options?.scripted) options.scripted.update = reply.update;
    return { text, toolCalls, complete };
  }

  async *_streamResponseChunks(messages, options, runManager) {
    const { text, toolCalls, complete } = this._play(messages, options);
    const pieces = cutText(text, this.script.stream.chunk);
    for (const [i, piece] of pieces.entries()) {
      await sleep(this.script.stream.delay_ms, options?.signal);
      const last = i === pieces.length - 1;
      const message = new AIMessageChunk({
        content: piece,
        ...(last && toolCalls.length > 0
          ? {
              tool_call_chunks: toolCalls.map((call, index) => ({
                name: call.name,
                args: JSON.stringify(call.args),
                id: call.id,
                index,
                type: 'tool_call_chunk',
              })),
            }
          : {}),
      });
      const chunk = new ChatGenerationChunk({ message, text: piece });
      yield chunk;
      await runManager?.handleLLMNewToken(piece, undefined, undefined, undefined, undefined, { chunk });
    }
    complete();
  }

  /** Not streamed: the same pauses (one per piece), then the whole reply as one AIMessage. */
  async _generate(messages, options) {
    const { text, toolCalls, complete } = this._play(messages, options);
    for (const _piece of cutText(text, this.script.stream.chunk)) await sleep(this.script.stream.delay_ms, options?.signal);
    complete();
    const message = new AIMessage({ content: text, tool_calls: toolCalls.map((call) => ({ ...call, type: 'tool_call' })) });
    return { generations: [{ text, message }] };
  }
}

/** The state: `messages` with LangGraph's messages reducer (default []), and each declared key. */
function stateSchema(script) {
  const fields = { messages: MessagesValue };
  for (const [key, fallback] of Object.entries(script.state)) {
    // A Standard Schema (the interface StateSchema reads) accepting anything, whose default is the
    // declared value: a LastValue channel holding the default from the first checkpoint on.
    fields[key] = {
      '~standard': {
        version: 1,
        vendor: 'agentplane-scripted',
        validate: (value) => ({ value: value === undefined ? structuredClone(fallback) : value }),
        jsonSchema: { input: () => ({ default: fallback }), output: () => ({ default: fallback }) },
      },
    };
  }
  return new StateSchema(fields);
}

/** One tool per name the script can call (or lists), answering the listed content or "ok". */
function scriptTools(script) {
  const names = new Set(Object.keys(script.tools));
  for (const reply of script.replies) for (const call of reply.tool_calls ?? []) names.add(call.name);
  return [...names].map((name) =>
    tool(async () => script.tools[name] ?? 'ok', {
      name,
      description: `${name} (scripted)`,
      schema: { type: 'object', properties: {}, additionalProperties: true },
    }),
  );
}

const route = (state) => (state.messages.at(-1)?.tool_calls?.length ? 'tools' : END);

/** The scripted graph of `graphId` (the compiled graph the server registers). */
export function createScriptedGraph(graphId, config) {
  const script = normaliseScript(graphId, config);
  const model = new ScriptedChatModel({ graphId, script });
  async function agent(state, config) {
    const scripted = { threadId: config?.configurable?.thread_id ?? '' };
    const response = await model.invoke(state.messages, { ...config, scripted });
    return { messages: [response], ...(scripted.update ?? {}) };
  }
  // The prebuilt's order: `tools` is added first, then `agent`.
  return new StateGraph(stateSchema(script))
    .addNode('tools', new ToolNode(scriptTools(script)))
    .addNode('agent', agent)
    .addEdge(START, 'agent')
    .addConditionalEdges('agent', route, { tools: 'tools', [END]: END })
    .addEdge('tools', 'agent')
    .compile();
}

/**
 * The real prebuilt (`createReactAgent`) over the same model and tools, to record what it would
 * differ in. It cannot write a reply's `update` and has no declared state keys.
 */
export function createPrebuiltGraph(graphId, config) {
  const script = normaliseScript(graphId, config);
  const model = new ScriptedChatModel({ graphId, script });
  return createReactAgent({ llm: model, tools: scriptTools(script) });
}
