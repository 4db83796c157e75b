// Each thread's protocol events, as they are written and as they are read: a run's projection
// (run-projection.ts) appends them, each with the thread's next `seq`, to the store
// (protocol-event-store.ts); streams and subscriptions follow them. A follower hears an event only
// once it is committed, as an answer is sent only once what it reports is (decision E11), so that
// an event a client saw is never lost nor its `seq` reused, even if the process is killed; and it
// hears every event it selects once, in `seq` order: the kept ones first, then the new ones, with
// no gap between the two (both are read in the turn the commit ends, and a `seq` already sent is
// not sent again).
import type { ProtocolEvent } from '@agentplane/agent-server';
import type { RunEvents } from '../runs/run-events.js';
import { channelOf } from './event-filter.js';
import type { KeptEvent, ProtocolEventStore } from './protocol-event-store.js';

/** An event to append: what the projection says, before the thread gives it its `seq`. */
export interface EventDraft {
  method: ProtocolEvent['method'];
  namespace: readonly string[];
  /** The node whose task made it (messages and tools). */
  node?: string;
  data: unknown;
}

/** Who follows a thread's events: each it selects, and the thread's end (deleted). */
export interface EventFollower {
  selects(event: KeptEvent): boolean;
  /** An event it selects: a kept one it replays (`replayed`), or a new one as it is committed. */
  send(event: KeptEvent, replayed: boolean): void;
  /** The thread was deleted: nothing more comes. */
  gone(): void;
}

interface Following {
  follower: EventFollower;
  /** The last `seq` sent (or skipped): nothing at or before it is sent again. */
  through: number;
  /** Live: the replay is done, new events go straight to it. */
  live: boolean;
}

export class ThreadEvents {
  private readonly followers = new Map<string, Set<Following>>();
  /** The thread watches that end each followed thread's followers when it is deleted. */
  private readonly unwatch = new Map<string, () => void>();
  /** Events appended but not yet committed, to send once they are. */
  private pending: { threadId: string; event: KeptEvent }[] = [];
  /** Runs whose root `running` was told when a command made them, before they execute. */
  private readonly announced = new Set<string>();

  constructor(
    readonly store: ProtocolEventStore,
    private readonly runEvents: RunEvents,
    private readonly now: () => number,
  ) {}

  /**
   * Whether the runs of a thread are told as protocol events: it joined the protocol, or a stream
   * waits for it (then it joins now).
   */
  tells(threadId: string): boolean {
    if (this.store.isJoined(threadId)) return true;
    return this.followers.has(threadId) && this.store.join(threadId);
  }

  /** Appends an event to a thread that tells its runs; root lifecycle events name their run in their ID. */
  append(threadId: string, runId: string, draft: EventDraft, namesRun = false): void {
    const seq = this.store.lastSeq(threadId) + 1;
    const eventId = namesRun ? `synth:${runId}:${seq}` : String(seq);
    const params = {
      namespace: draft.namespace,
      timestamp: this.now(),
      ...(draft.node === undefined ? {} : { node: draft.node }),
      data: draft.data,
    };
    const event: KeptEvent = {
      seq,
      runId,
      method: draft.method,
      eventId,
      channel: channelOf(draft.method, draft.data),
      namespace: [...draft.namespace],
      json: JSON.stringify({ type: 'event', event_id: eventId, seq, method: draft.method, params }),
    };
    this.store.append(threadId, event);
    if (!this.followers.has(threadId)) return;
    if (this.pending.length === 0) this.store.commits.afterCommit((committed) => this.deliver(committed));
    this.pending.push({ threadId, event });
  }

  /**
   * Tells a run's root `running` as soon as a command made it (as the LangGraph JS server does),
   * so that a client sees its run begin at once while it waits its turn to execute.
   */
  announce(threadId: string, runId: string, graphName: string): void {
    this.append(threadId, runId, { method: 'lifecycle', namespace: [], data: { event: 'running', graph_name: graphName } }, true);
    this.announced.add(runId);
    // A run cancelled (or rolled back) before it executed ends here: its clients hear that too.
    this.runEvents.open(runId).follow(undefined, () => {
      if (this.takeAnnounced(runId))
        this.append(threadId, runId, { method: 'lifecycle', namespace: [], data: { event: 'interrupted', graph_name: graphName } }, true);
    });
  }

  /** Whether a run's `running` was told already (once: the run now executes). */
  takeAnnounced(runId: string): boolean {
    return this.announced.delete(runId);
  }

  /**
   * Follows a thread's events after `since` (all it keeps when undefined), then the new ones, until
   * the returned function is called or the thread is deleted. A thread that does not exist yet is
   * followed all the same: its events come once a run makes it.
   */
  follow(threadId: string, since: number | undefined, follower: EventFollower): () => void {
    const following: Following = { follower, through: since ?? 0, live: false };
    let set = this.followers.get(threadId);
    if (!set) {
      set = new Set();
      this.followers.set(threadId, set);
      this.unwatch.set(threadId, this.runEvents.watchThread(threadId, { onRun: () => {}, onGone: () => this.gone(threadId) }));
    }
    set.add(following);
    // Once what is written now is committed, the kept events are what a client may see.
    this.store.commits.afterCommit(() => {
      if (!set.has(following)) return;
      for (const event of this.store.after(threadId, following.through)) this.sendTo(following, event, true);
      following.live = true;
    });
    return () => this.stop(threadId, following);
  }

  /** How many followers the thread has (streams and socket subscriptions). */
  followersOf(threadId: string): number {
    return this.followers.get(threadId)?.size ?? 0;
  }

  private sendTo(following: Following, event: KeptEvent, replayed: boolean): void {
    if (event.seq <= following.through) return;
    following.through = event.seq;
    if (following.follower.selects(event)) following.follower.send(event, replayed);
  }

  private deliver(committed: boolean): void {
    const pending = this.pending;
    this.pending = [];
    // A commit that failed kept none of them: nobody hears of them (the next events take their seqs).
    if (!committed) return;
    for (const { threadId, event } of pending)
      for (const following of this.followers.get(threadId) ?? []) if (following.live) this.sendTo(following, event, false);
  }

  private stop(threadId: string, following: Following): void {
    const set = this.followers.get(threadId);
    if (!set?.delete(following) || set.size > 0) return;
    this.followers.delete(threadId);
    this.unwatch.get(threadId)?.();
    this.unwatch.delete(threadId);
  }

  private gone(threadId: string): void {
    const set = this.followers.get(threadId);
    this.followers.delete(threadId);
    this.unwatch.get(threadId)?.();
    this.unwatch.delete(threadId);
    for (const following of set ?? []) following.follower.gone();
  }
}
