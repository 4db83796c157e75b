// Cron syntax (CronSchedule in the spec) and the times it names in a time zone. The spec's pattern
// has already refused what is not cron syntax, so parsing here only reads it.
//
// The next time is searched in wall-clock time (the fields a clock in the zone shows), field by
// field (month, then day, hour, minute), and turned into an instant at the end: a wall time a
// daylight-saving change skips becomes the instant the offset before the change gives it (02:30
// is run at 03:30), and one it repeats is run at its first occurrence.

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;
/** How far ahead a time is looked for: past every leap-day and weekday combination. */
const SEARCH_YEARS = 8;

const MACROS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

const MONTH_NAMES = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAY_NAMES = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

interface FieldSpec {
  min: number;
  max: number;
  names?: string[];
  /** The first name's value. */
  namesFrom?: number;
}

const FIELDS: FieldSpec[] = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  { min: 1, max: 12, names: MONTH_NAMES, namesFrom: 1 },
  // 7 is Sunday too; folded into 0 below.
  { min: 0, max: 7, names: DAY_NAMES, namesFrom: 0 },
];

/** A parsed schedule: which values of each field it runs at. */
export interface CronSchedule {
  minutes: boolean[];
  hours: boolean[];
  days: boolean[];
  months: boolean[];
  weekdays: boolean[];
  /** Both day fields restricted: a day matching either runs (Vixie cron's rule). */
  eitherDay: boolean;
}

export function parseSchedule(text: string): CronSchedule {
  const trimmed = text.trim();
  const fields = (MACROS[trimmed] ?? trimmed).split(/[ \t]+/);
  const [minutes, hours, days, months, weekdays] = fields.map((field, i) => parseField(field, FIELDS[i]!)) as boolean[][];
  if (weekdays![7]) weekdays![0] = true;
  return {
    minutes: minutes!,
    hours: hours!,
    days: days!,
    months: months!,
    weekdays: weekdays!,
    eitherDay: fields[2] !== '*' && fields[4] !== '*',
  };
}

function parseField(field: string, spec: FieldSpec): boolean[] {
  const allowed = new Array<boolean>(spec.max + 1).fill(false);
  const value = (text: string) => {
    const named = spec.names?.indexOf(text.toLowerCase()) ?? -1;
    return named >= 0 ? named + spec.namesFrom! : Number(text);
  };
  for (const item of field.split(',')) {
    const [range, stepText] = item.split('/') as [string, string | undefined];
    const step = stepText === undefined ? 1 : Number(stepText);
    let from: number;
    let to: number;
    if (range === '*') [from, to] = [spec.min, spec.max];
    else if (range.includes('-')) [from, to] = range.split('-').map(value) as [number, number];
    // `a/n` runs from a to the field's end, every n.
    else [from, to] = [value(range), stepText === undefined ? value(range) : spec.max];
    // A range whose start is after its end wraps around the field's values.
    const span = to >= from ? to - from : spec.max - from + 1 + (to - spec.min);
    for (let offset = 0; offset <= span; offset += step) {
      const at = from + offset;
      allowed[at > spec.max ? at - (spec.max - spec.min + 1) : at] = true;
    }
  }
  return allowed;
}

/** Whether the time zone is one of the IANA database's (as this Node.js knows it). */
export function isKnownTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return true;
  } catch {
    return false;
  }
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The wall-clock time in the zone at an instant, as epoch milliseconds of that time read as UTC. */
function wallTime(instant: number, timeZone: string): number {
  if (timeZone === 'UTC') return instant;
  let format = formatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, format);
  }
  const parts: Record<string, number> = {};
  for (const part of format.formatToParts(instant)) if (part.type !== 'literal') parts[part.type] = Number(part.value);
  return Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!) + (instant % 1000);
}

/** The instant a wall-clock time of the zone names: its first occurrence, or past a skipped hour. */
function instantOf(wall: number, timeZone: string): number {
  if (timeZone === 'UTC') return wall;
  const offsetAt = (instant: number) => wallTime(instant, timeZone) - instant;
  const before = wall - offsetAt(wall - DAY_MS / 2);
  const after = wall - offsetAt(wall + DAY_MS / 2);
  const occurrences = [before, after].filter((instant) => wallTime(instant, timeZone) === wall).sort((a, b) => a - b);
  return occurrences[0] ?? before;
}

/** The first time after `afterMs` that the schedule names in the zone (default UTC); null when none is left. */
export function nextRunTime(schedule: CronSchedule, afterMs: number, timeZone = 'UTC'): number | null {
  let wall = Math.floor(wallTime(afterMs, timeZone) / MINUTE_MS) * MINUTE_MS + MINUTE_MS;
  const limit = wall + SEARCH_YEARS * 366 * DAY_MS;
  while (wall < limit) {
    const at = new Date(wall);
    if (!schedule.months[at.getUTCMonth() + 1]) {
      wall = Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1);
      continue;
    }
    if (!dayMatches(schedule, at)) {
      wall = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1);
      continue;
    }
    if (!schedule.hours[at.getUTCHours()]) {
      wall = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate(), at.getUTCHours() + 1);
      continue;
    }
    if (schedule.minutes[at.getUTCMinutes()]) {
      const instant = instantOf(wall, timeZone);
      if (instant > afterMs) return instant;
    }
    wall += MINUTE_MS;
  }
  return null;
}

function dayMatches(schedule: CronSchedule, at: Date): boolean {
  const byDate = schedule.days[at.getUTCDate()]!;
  const byWeekday = schedule.weekdays[at.getUTCDay()]!;
  return schedule.eitherDay ? byDate || byWeekday : byDate && byWeekday;
}
