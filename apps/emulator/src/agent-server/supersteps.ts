// Superstep semantics (decision A5 of docs/decisions.md, and the Superstep schema's description): updates are applied in
// order; each superstep yields one checkpoint whose metadata has `source` (`input` when all its
// updates are `as_node: __input__`, else `update`), `step` (−1, then +1 each), `writes`
// (`{as_node: values}`) and `parents` (`{}`). Keys of `values` replace earlier ones, except
// `messages`, which appends (a message with an existing `id` replaces it; one without gets an ID).
//
// Pure: no storage. The result either describes every checkpoint or names what is invalid, so a
// create with a bad superstep stores nothing.
import type { components } from '@agentplane/agent-server';
import type { ValidationIssue } from '../contract/validation-errors.js';
import { setOwn } from '../shared/canonical-json.js';
import { newId } from '../shared/ids.js';

type Superstep = components['schemas']['Superstep'];

export interface PlannedCheckpoint {
  values: Record<string, unknown>;
  /** Checkpoint metadata without `thread_id`/`checkpoint_id` (added when read). */
  metadata: { graph_id: string; source: 'input' | 'update'; step: number; writes: Record<string, unknown>; parents: Record<string, never> };
}

/** Checks one message (after its ID is assigned) against the spec's Message schema. */
export type MessageCheck = (message: unknown, loc: (string | number)[]) => ValidationIssue[] | null;

export function planSupersteps(
  supersteps: Superstep[],
  options: { graphId: string; startValues?: Record<string, unknown>; firstStep?: number; checkMessage: MessageCheck },
): { checkpoints: PlannedCheckpoint[]; values: Record<string, unknown> } | { issues: ValidationIssue[] } {
  let values: Record<string, unknown> = { ...(options.startValues ?? {}) };
  const checkpoints: PlannedCheckpoint[] = [];
  const issues: ValidationIssue[] = [];
  let step = options.firstStep ?? -1;

  supersteps.forEach((superstep, s) => {
    const writes: Record<string, unknown> = {};
    for (const [u, update] of superstep.updates.entries()) {
      setOwn(writes, update.as_node, update.values ?? null);
      if (!update.values) continue;
      const loc = ['supersteps', s, 'updates', u, 'values'];
      const next = { ...values };
      for (const [key, value] of Object.entries(update.values)) {
        if (key !== 'messages') {
          setOwn(next, key, value);
          continue;
        }
        const merged = mergeMessages(values.messages, value, [...loc, 'messages'], options.checkMessage);
        if ('issues' in merged) issues.push(...merged.issues);
        else next.messages = merged.messages;
      }
      values = next;
    }
    const source = superstep.updates.every((update) => update.as_node === '__input__') ? 'input' : 'update';
    checkpoints.push({ values, metadata: { graph_id: options.graphId, source, step, writes, parents: {} } });
    step += 1;
  });
  return issues.length > 0 ? { issues } : { checkpoints, values };
}

function mergeMessages(
  current: unknown,
  incoming: unknown,
  loc: (string | number)[],
  checkMessage: MessageCheck,
): { messages: unknown[] } | { issues: ValidationIssue[] } {
  const list = Array.isArray(incoming) ? incoming : [incoming];
  const messages = Array.isArray(current) ? [...current] : [];
  const issues: ValidationIssue[] = [];
  const positions = new Map(messages.map((m, i) => [(m as { id?: unknown }).id, i]));
  list.forEach((raw, i) => {
    const at = Array.isArray(incoming) ? [...loc, i] : loc;
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
      issues.push({ loc: ['body', ...at], msg: 'Input should be a message object', type: 'model_type' });
      return;
    }
    const message = { ...(raw as Record<string, unknown>) };
    if (message.id === undefined || message.id === null || message.id === '') message.id = newId();
    const problems = checkMessage(message, at);
    if (problems) {
      issues.push(...problems);
      return;
    }
    const existing = positions.get(message.id);
    if (existing !== undefined) messages[existing] = message;
    else positions.set(message.id, messages.push(message) - 1);
  });
  return issues.length > 0 ? { issues } : { messages };
}
