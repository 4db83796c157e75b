// The replies of the ReAct shorthand: the chat model of node `agent`, one entry per model call.
//
// Reply choice is deterministic: each thread keeps a cursor; a model call takes the first entry at
// or after the cursor (wrapping around) whose `match` matches the text of the last human message,
// and moves the cursor past it. An entry that interrupts moves it only once it is resumed and
// replies; an entry that raises moves it at once, so a thread is never stuck on an error. Nothing
// moves a cursor back.
import { globToRegExp } from '../../shared/glob.js';
import type { ReplyContext, ReplyEntry, ReplyFunction } from './graph-types.js';

/** A model call's choice: which entry answered, the entry, and where the cursor goes once it completes. */
export interface ReplyChoice {
  index: number;
  entry: ReplyEntry;
  nextCursor: number;
}

export class Replies {
  private readonly replies: readonly { match: RegExp | undefined; reply: ReplyEntry | ReplyFunction }[];

  constructor(
    private readonly graphId: string,
    replies: readonly (ReplyEntry | ReplyFunction)[],
    /** What is wrong with an entry a reply function answers (the config's own check). */
    private readonly problemsOf: (entry: ReplyEntry) => string[],
  ) {
    this.replies = replies.map((reply) => ({
      match: typeof reply !== 'function' && reply.match !== undefined ? globToRegExp(reply.match) : undefined,
      reply,
    }));
  }

  /**
   * The reply of a model call at `cursor`: the first entry at or after it, wrapping around, that
   * matches; undefined when none does. A reply function's answer is checked like a config entry;
   * a bad one throws, and the run fails with that message.
   */
  choose(cursor: number, context: ReplyContext): ReplyChoice | undefined {
    const count = this.replies.length;
    for (let offset = 0; offset < count; offset++) {
      const index = (cursor + offset) % count;
      const { match, reply } = this.replies[index]!;
      let entry: ReplyEntry | undefined;
      if (typeof reply === 'function') {
        entry = reply(context);
        if (entry === undefined) continue;
        const problems = this.problemsOf(entry);
        if (problems.length > 0)
          throw new Error(`reply function ${index} of graph ${this.graphId} answered an invalid reply: ${problems.join('; ')}`);
      } else {
        if (match && !match.test(context.input)) continue;
        entry = reply;
      }
      return { index, entry, nextCursor: (index + 1) % count };
    }
    return undefined;
  }
}
