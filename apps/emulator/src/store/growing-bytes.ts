// The UTF-8 bytes of a text that grows at its end (a long conversation's message list, decision
// E29), in a buffer that grows in place: an append writes only what it adds, after the bytes it
// follows, into room kept at the buffer's end (doubled when it runs out), and every length handed
// out is a view that later appends never change. A second append to the same bytes (a fork from an
// older checkpoint) finds the room taken and copies instead.
//
// Why bytes and not the text: a run's answer is its thread's values, and a string of a long
// conversation is made anew for each answer (V8 joins the parts into fresh memory, then node
// encodes it into more); on the machine this was measured on, first touching that memory cost
// 6.5 ms per 500 KB. These bytes are written to the socket as they are.

/** A buffer, and how much of it the longest view holds. */
interface Owner {
  buffer: Buffer;
  used: number;
}

const FIRST_ROOM = 4096;

export class GrowingBytes {
  private constructor(
    private readonly owner: Owner,
    readonly length: number,
  ) {}

  static of(text: string): GrowingBytes {
    const length = Buffer.byteLength(text);
    const buffer = Buffer.allocUnsafe(Math.max(2 * length, FIRST_ROOM));
    buffer.write(text, 0, 'utf8');
    return new GrowingBytes({ buffer, used: length }, length);
  }

  /** These bytes, then `text`'s. */
  append(text: string): GrowingBytes {
    const added = Buffer.byteLength(text);
    let owner = this.owner;
    if (owner.used !== this.length || owner.buffer.length - this.length < added) {
      const buffer = Buffer.allocUnsafe(Math.max(2 * (this.length + added), FIRST_ROOM));
      owner.buffer.copy(buffer, 0, 0, this.length);
      owner = { buffer, used: this.length };
    }
    owner.buffer.write(text, this.length, 'utf8');
    owner.used = this.length + added;
    return new GrowingBytes(owner, owner.used);
  }

  /** The bytes, as a view of the buffer. */
  get view(): Buffer {
    return this.owner.buffer.subarray(0, this.length);
  }

  /** The bytes the buffer holds room for (what it costs in memory). */
  get capacity(): number {
    return this.owner.buffer.length;
  }
}
