// Recent threads' latest checkpoints, parsed (decision E13). A state update reads its thread's
// latest checkpoint, merges into its values and writes a new one; on a long conversation parsing
// the stored text was a quarter of its time. The update's own checkpoint is kept here, so the next
// update or state read of the thread skips the read and the parse.
//
// An entry is used only when its checkpoint ID is the one the database says is the thread's latest.
// Checkpoint IDs are never reused, so neither a rolled-back write nor a deleted and re-created
// thread can match; values never change once written; the writes that change a checkpoint's
// metadata or parent forget the thread's entry.
// Cached checkpoints are shared with their readers, which must not modify them: the superstep
// planner copies what it changes, and answers are only serialised.

/** The cache's whole budget, counted in characters of the values' canonical text. */
const BUDGET_CHARS = 16 * 1024 * 1024;
/** A state larger than this share of the budget is not kept: it would evict everything else. */
const LARGEST_CHARS = BUDGET_CHARS / 8;

interface Entry<Content> {
  checkpointId: string;
  content: Content;
  chars: number;
}

/** `Content`: what is kept of a thread's latest checkpoint (the store keeps it whole). */
export class LatestCheckpointCache<Content> {
  /** In least recently used order: a Map iterates in insertion order, and a hit is re-inserted. */
  private readonly entries = new Map<string, Entry<Content>>();
  private chars = 0;

  /** What is kept of the thread's latest checkpoint, if `checkpointId` (its latest) is the one kept. */
  get(threadId: string, checkpointId: string): Content | undefined {
    const entry = this.entries.get(threadId);
    if (entry?.checkpointId !== checkpointId) return undefined;
    this.entries.delete(threadId);
    this.entries.set(threadId, entry);
    return entry.content;
  }

  /** Keeps `content` as the thread's latest; `chars` is the length of its values' canonical text. */
  set(threadId: string, checkpointId: string, content: Content, chars: number): void {
    this.forget(threadId);
    if (chars > LARGEST_CHARS) return;
    this.entries.set(threadId, { checkpointId, content, chars });
    this.chars += chars;
    for (const [oldest, entry] of this.entries) {
      if (this.chars <= BUDGET_CHARS) break;
      this.entries.delete(oldest);
      this.chars -= entry.chars;
    }
  }

  forget(threadId: string): void {
    const entry = this.entries.get(threadId);
    if (!entry) return;
    this.entries.delete(threadId);
    this.chars -= entry.chars;
  }
}
