// How a run's `command.resume` answers what its thread waits at (the spec's RunCommand and
// RunCreate.strict_resume), as LangGraph reads a Command's resume: one answer for every waiting
// task, or answers by interrupt ID (an object whose keys are all interrupt IDs, or any object the
// LangGraph SDK marks `keyedByInterruptId: true`), each for the task waiting at that interrupt.
// With `strict_resume`, a resume that does not match the interrupts waiting is refused before the
// run does anything, with LangGraph's UnknownInterruptError and its reasons.
import type { RunCommand, RunError, ThreadTask } from '@agentplane/agent-server';

/** What a resume answers: one value for every waiting task, or a value per interrupt ID. */
export type ResumeAnswers = { kind: 'one'; value: unknown } | { kind: 'by-interrupt'; answers: ReadonlyMap<string, unknown> };

/** An interrupt ID as LangGraph makes them (an xxh3 hash): 32 lower-case hexadecimal digits. */
const INTERRUPT_ID = /^[0-9a-f]{32}$/;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** Whether the resume names interrupts: by the SDK's flag when it gives one, else by LangGraph's rule. */
function namesInterrupts(command: RunCommand, allowEmpty: boolean): boolean {
  const { resume, keyedByInterruptId } = command;
  if (keyedByInterruptId !== undefined) return keyedByInterruptId && isPlainObject(resume);
  if (!isPlainObject(resume)) return false;
  const keys = Object.keys(resume);
  return (allowEmpty || keys.length > 0) && keys.every((key) => INTERRUPT_ID.test(key));
}

/** What the command's resume answers; undefined when it has none. */
export function resumeAnswersOf(command: RunCommand | undefined): ResumeAnswers | undefined {
  if (command === undefined || !Object.hasOwn(command, 'resume')) return undefined;
  // As LangGraph maps a Command: an empty object is one answer, not a map naming no interrupt.
  if (namesInterrupts(command, false)) return { kind: 'by-interrupt', answers: new Map(Object.entries(command.resume as object)) };
  return { kind: 'one', value: command.resume };
}

/** The IDs of the interrupts the tasks wait at: those of the tasks that stopped at one and wrote nothing. */
export function waitingInterruptIds(tasks: readonly ThreadTask[]): string[] {
  const ids = tasks
    .filter((task) => (task.interrupts?.length ?? 0) > 0 && task.result == null)
    .flatMap((task) => task.interrupts!.flatMap((interrupt) => (interrupt.id === undefined ? [] : [interrupt.id])));
  return [...new Set(ids)].sort();
}

/**
 * Why strict resume refuses the command's resume, waiting at `pending`, as LangGraph's strict mode
 * refuses it; undefined when it does not (no resume, or a null one, is not checked).
 */
export function strictResumeRefusal(command: RunCommand | undefined, pending: readonly string[]): RunError | undefined {
  if (command?.resume == null) return undefined;
  if (namesInterrupts(command, true)) {
    const named = Object.keys(command.resume as object);
    if (named.length === 0) return unknownInterrupt('The resume map names no interrupt', 'empty_map', [], pending);
    const unknown = named.filter((id) => !pending.includes(id)).sort();
    if (unknown.length > 0)
      return unknownInterrupt(`Unknown or already-consumed interrupt: ${unknown[0]}`, 'not_pending', unknown, pending);
    return undefined;
  }
  if (pending.length > 1)
    return unknownInterrupt(
      'When there are multiple pending interrupts, you must specify the interrupt id when resuming.',
      'ambiguous',
      [],
      pending,
    );
  return undefined;
}

function unknownInterrupt(
  message: string,
  reason: NonNullable<RunError['reason']>,
  interruptIds: string[],
  pendingIds: readonly string[],
): RunError {
  return { error: 'UnknownInterruptError', message, reason, interrupt_ids: interruptIds, pending_ids: [...pendingIds] };
}
