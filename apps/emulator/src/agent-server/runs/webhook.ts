// A finished run's webhook: one POST of the run, as LangGraph's servers send it, to the URL the
// run named. Sent after the run's end is committed; a receiver that fails or does not answer
// within WEBHOOK_TIMEOUT_MS is reported, never retried (the run's own outcome is kept either way).
import type { Run } from '@agentplane/agent-server';
import type { RunOutcome } from './graph-runner.js';
import type { RunRow } from './run-store.js';
import { shownKwargs } from './run-store.js';

const WEBHOOK_TIMEOUT_MS = 10_000;

/** The body LangGraph posts: the run, when it started and ended, its final values, and its error message when it failed. */
export function webhookPayload(run: RunRow, outcome: RunOutcome, startedAt: string, endedAt: string): Record<string, unknown> {
  const { attempt: _attempt, outcome: _answer, ...shown }: RunRow = run;
  const body: Run & Record<string, unknown> = {
    ...shown,
    kwargs: shownKwargs(run.kwargs),
    status: outcome.status,
    run_started_at: startedAt,
    run_ended_at: endedAt,
    webhook_sent_at: new Date().toISOString(),
  };
  if (outcome.status === 'error') body.error = outcome.error.message;
  else body.values = outcome.values;
  return body;
}

export async function sendWebhook(url: string, payload: Record<string, unknown>): Promise<void> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(payload),
    signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
  });
  await response.body?.cancel();
  if (!response.ok) throw new Error(`the receiver answered ${response.status}`);
}
