// Identifiers and timestamps: random v4 UUIDs for records, time-ordered v7 UUIDs for threads, runs and
// assistants, v6 for checkpoints (as LangGraph makes them, so that sorting IDs sorts by time),
// name-based v5 UUIDs for the IDs LangGraph derives from a name (a graph's default assistant), and
// the canonical lower-case form of any UUID a client sends (`urn:uuid:` prefix and upper case are
// accepted by the spec's `format: uuid`).
import { createHash, randomBytes, randomUUID } from 'node:crypto';

export const newId = (): string => randomUUID();

let lastThreadMs = 0;
let threadSequence = 0;

/**
 * A UUID v7 (RFC 9562): 48-bit Unix milliseconds, then 12 bits counting the IDs of the same
 * millisecond (method 1 of §6.2), then 62 random bits. Thread IDs key the store's indexes (the
 * threads, their filter keys, their checkpoints): new ones land at the end of each index instead
 * of on a random page, so a create writes about a third fewer pages (decision E11).
 */
export function newThreadId(): string {
  let ms = Date.now();
  if (ms <= lastThreadMs) {
    ms = lastThreadMs;
    threadSequence++;
    if (threadSequence > 0xfff) {
      ms++;
      threadSequence = 0;
    }
  } else threadSequence = 0;
  lastThreadMs = ms;
  const time = ms.toString(16).padStart(12, '0');
  // A v4 UUID's last two groups are the variant and 62 random bits, as v7 needs them; randomUUID
  // draws from a cached pool of entropy, where randomBytes would make a call into OpenSSL per ID.
  const variantAndRandom = randomUUID().slice(19);
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-7${threadSequence.toString(16).padStart(3, '0')}-${variantAndRandom}`;
}

/** Run IDs are UUID v7 as thread IDs are (LangGraph makes them so): a thread's runs list newest first by ID. */
export const newRunId = (): string => newThreadId();

/** An assistant ID the emulator makes: time-ordered, as the LangGraph servers make them (UUID v7, see newThreadId). */
export const newAssistantId = (): string => newThreadId();

/** The name-based UUID v5 (RFC 9562 §5.5) of `name` in `namespace`: SHA-1 of the two, version and variant set. */
export function uuidV5(name: string, namespace: string): string {
  const digest = createHash('sha1')
    .update(Buffer.from(namespace.replaceAll('-', ''), 'hex'))
    .update(name, 'utf8')
    .digest();
  digest[6] = (digest[6]! & 0x0f) | 0x50;
  digest[8] = (digest[8]! & 0x3f) | 0x80;
  const hex = digest.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a text is a UUID in any form `format: uuid` accepts (with or without `urn:uuid:`, any case). */
export const isUuid = (value: string): boolean => UUID.test(value.replace(/^urn:uuid:/i, ''));

export function canonicalUuid(value: string): string {
  return value.replace(/^urn:uuid:/i, '').toLowerCase();
}

const GREGORIAN_OFFSET_MS = 12_219_292_800_000n; // from 1582-10-15 to 1970-01-01
const node = randomBytes(6).toString('hex');
let lastTicks = 0n;

/**
 * A UUID v6 (RFC 9562): 60-bit timestamp in 100 ns ticks, most significant bits first. Strictly
 * increasing within the process, even for several IDs in the same millisecond.
 */
export function newCheckpointId(): string {
  let ticks = (BigInt(Date.now()) + GREGORIAN_OFFSET_MS) * 10_000n;
  if (ticks <= lastTicks) ticks = lastTicks + 1n;
  lastTicks = ticks;
  const hex = ticks.toString(16).padStart(15, '0');
  // The variant and 14 random bits of clock sequence, from randomUUID's pooled entropy (see newThreadId).
  const clockSeq = randomUUID().slice(19, 23);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-6${hex.slice(12, 15)}-${clockSeq}-${node}`;
}

/** Now as an ISO 8601 timestamp with milliseconds, the format every timestamp of both APIs uses. */
export const isoNow = (): string => new Date().toISOString();
