// The messages reducer (channels.ts, mergeMessages) as LangGraph's: replaced in place by ID,
// appended with a new ID, removed by ID or all at once. And its short way for the messages a node
// made and the emulator named just now (nameFreshly, freshlyNamedMessage): no list holds such an ID,
// so the reducer appends them without reading the conversation's IDs, which made every reply on a
// long thread cost a pass over its whole list.
import { describe, expect, it } from 'vitest';
import { freshlyNamedMessage, mergeMessages, nameFreshly } from '../src/agent-server/graphs/channels.js';

type Message = Record<string, unknown>;

const human = (id: string, content: string): Message => ({ type: 'human', id, content });
const idsOf = (messages: unknown[]) => messages.map((message) => (message as Message).id);
const contentsOf = (messages: unknown[]) => messages.map((message) => (message as Message).content);

/** A conversation whose messages count every read of their ID. */
function counted(length: number): { messages: Message[]; idReads: () => number } {
  let reads = 0;
  const messages = Array.from({ length }, (_, i) => {
    const message: Message = { type: 'human', content: `m${i}` };
    Object.defineProperty(message, 'id', {
      enumerable: true,
      get: () => {
        reads++;
        return `m${i}`;
      },
    });
    return message;
  });
  return { messages, idReads: () => reads };
}

describe('the messages reducer', () => {
  it('replaces a message by its ID, appends one with a new ID, and removes by ID or all', () => {
    const current = [human('a', 'one'), human('b', 'two')];
    expect(contentsOf(mergeMessages(current, [human('b', 'TWO'), human('c', 'three')]))).toEqual(['one', 'TWO', 'three']);
    expect(idsOf(mergeMessages(current, [{ type: 'remove', id: 'a' }]))).toEqual(['b']);
    expect(mergeMessages(current, [{ type: 'remove', id: '__remove_all__' }, human('d', 'four')])).toHaveLength(1);
    const unnamed = mergeMessages(current, [{ type: 'human', content: 'no id' }]);
    expect(unnamed).toHaveLength(3);
    expect((unnamed[2] as Message).id).toMatch(/^[0-9a-f-]{36}$/);
    expect(current).toHaveLength(2); // the list it was given is left as it was
  });

  it('appends a freshly named message without reading the IDs of the conversation', () => {
    const { messages, idReads } = counted(2_000);
    const reply = freshlyNamedMessage({ type: 'ai', id: 'run-new', content: 'answer' });
    const tool: Message = { type: 'tool', tool_call_id: 'call-1', content: 'result' };
    nameFreshly(tool, 'run-new-tool-call-1');
    const merged = mergeMessages(messages, [reply, tool]);
    expect(idReads()).toBe(0);
    expect(idsOf(merged.slice(-2))).toEqual(['run-new', 'run-new-tool-call-1']);
    // The same ID given by a client is looked for, as any other.
    mergeMessages(messages, [human('m5', 'edited')]);
    expect(idReads()).toBeGreaterThanOrEqual(2_000);
  });

  it('keeps one message of a name two of one write share, the later, as by ID', () => {
    const first: Message = { type: 'ai', content: 'first' };
    const second: Message = { type: 'ai', content: 'second' };
    nameFreshly(first, 'run-call');
    nameFreshly(second, 'run-call');
    const merged = mergeMessages([human('a', 'question')], [first, second]);
    expect(contentsOf(merged)).toEqual(['question', 'second']);
  });

  it('finds a freshly named message a removal moved, in the same write', () => {
    const reply: Message = { type: 'ai', content: 'draft' };
    nameFreshly(reply, 'run-x');
    const again: Message = { type: 'ai', content: 'final' };
    nameFreshly(again, 'run-x');
    const merged = mergeMessages([human('a', 'q1'), human('b', 'q2')], [reply, { type: 'remove', id: 'a' }, again]);
    expect(idsOf(merged)).toEqual(['b', 'run-x']);
    expect(contentsOf(merged)).toEqual(['q2', 'final']);
  });
});
