// One page of a revision log: the filters, the order, and the opaque cursor of listRevisionLogs.
// A cursor is the position of a line in its log (lines are only ever added at the end, so a
// position never moves): `a:N` reads on from line N oldest first, `d:N` reads the lines before
// line N newest first. It is base64url-encoded so that clients treat it as opaque, and checked
// strictly: a cursor this server did not issue, or one of the other order, is a 422 (the
// parameter's description states the rule and the operation documents it as NotACursor).
import type { LogLevel, RevisionLogEntry, RevisionLogPage } from '@agentplane/control-plane';
import { LogLevelSchema } from '../generated/control-plane/contract.js';
import { validationError } from '../http/http-error.js';
import type { ScriptedLine } from './revision-log-script.js';

export interface LogPageRequest {
  order: 'asc' | 'desc';
  limit: number;
  offset?: string;
  level?: LogLevel;
  query?: string;
  start_time?: string;
  end_time?: string;
}

interface Cursor {
  direction: 'a' | 'd';
  index: number;
}

/** Severity rank: the spec lists the levels from the least to the most severe. */
const RANK = new Map<LogLevel, number>(LogLevelSchema.enum.map((level, i) => [level, i]));

const CURSOR_TEXT = /^([ad]):(0|[1-9]\d{0,8})$/;

function encodeCursor(cursor: Cursor): string {
  return Buffer.from(`${cursor.direction}:${cursor.index}`).toString('base64url');
}

/** The cursor an `offset` names, or a 422 at `query.offset` when it is none this server issued for this order. */
function readCursor(offset: string | undefined, order: LogPageRequest['order']): Cursor | undefined {
  if (offset === undefined) return undefined;
  const match = /^[A-Za-z0-9_-]+$/.test(offset) ? CURSOR_TEXT.exec(Buffer.from(offset, 'base64url').toString('latin1')) : null;
  const cursor: Cursor | undefined = match ? { direction: match[1] as Cursor['direction'], index: Number(match[2]) } : undefined;
  // Only the canonical spelling counts: a cursor is handed back as it was answered.
  if (!cursor || encodeCursor(cursor) !== offset || cursor.direction !== (order === 'asc' ? 'a' : 'd')) {
    throw validationError([
      {
        loc: ['query', 'offset'],
        msg: 'Not a log cursor of this order: pass the next_offset of an earlier answer with the same order, or no offset',
        type: 'value_error',
      },
    ]);
  }
  return cursor;
}

/**
 * The page of `lines` (one log's lines visible now, in the order written) that the request asks
 * for. With `asc`, `next_offset` is null only once the log is `complete` and read to its end;
 * otherwise it continues after the last line looked at, so a client following the log gets
 * each new line once.
 */
export function logPage(lines: ScriptedLine[], complete: boolean, request: LogPageRequest): RevisionLogPage {
  const cursor = readCursor(request.offset, request.order);
  const minimum = request.level === undefined ? 0 : RANK.get(request.level)!;
  const needle = request.query ? request.query.toLowerCase() : undefined;
  const from = request.start_time === undefined ? -Infinity : Date.parse(request.start_time);
  const to = request.end_time === undefined ? Infinity : Date.parse(request.end_time);
  const matches = (line: ScriptedLine) =>
    RANK.get(line.level)! >= minimum &&
    (needle === undefined || line.message.toLowerCase().includes(needle)) &&
    line.at_ms >= from &&
    line.at_ms < to;
  const page: ScriptedLine[] = [];
  let next: string | null;
  if (request.order === 'asc') {
    let index = cursor?.index ?? 0;
    for (; index < lines.length && page.length < request.limit; index++) if (matches(lines[index]!)) page.push(lines[index]!);
    next = index >= lines.length && complete ? null : encodeCursor({ direction: 'a', index });
  } else {
    let index = Math.min(cursor?.index ?? lines.length, lines.length) - 1;
    for (; index >= 0 && page.length < request.limit; index--) if (matches(lines[index]!)) page.push(lines[index]!);
    next = index < 0 ? null : encodeCursor({ direction: 'd', index: index + 1 });
  }
  return { logs: page.map(entry), next_offset: next };
}

function entry(line: ScriptedLine): RevisionLogEntry {
  return { timestamp: new Date(line.at_ms).toISOString(), level: line.level, message: line.message };
}
