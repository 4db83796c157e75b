// The emulator next to the real LangGraph JS server (reference-servers/langgraph-js, pinned,
// installed and started by this test): the same SDK scenarios on both, their answers compared
// with ids and timestamps masked. Every difference must be one the spec lists as deliberate, in a
// description saying "**Differs from the LangGraph JS server** (`<id>`): ..., because ...";
// DIFFERENCES below says where each one shows. A new difference fails the test, and so does a
// listed one that no longer shows: the list in the spec stays exactly what users meet.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '@agentplane/openapi-toolkit';
import { Client } from '@langchain/langgraph-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LangGraphServer } from '../../../reference-servers/langgraph-js/server.mjs';
import { SHAPE_ASSISTANT_CONFIGS, SHAPE_GRAPHS, startLangGraphServer } from '../../../reference-servers/langgraph-js/server.mjs';
import { readConfigFile } from '../src/config/config.js';
import type { Recorder, RecordingSummary } from '../src/recorder/recorder.js';
import { startRecorder } from '../src/recorder/recorder.js';
import { AG_UI_SCENARIOS } from './support/ag-ui-scenarios.js';
import type { TestEmulator } from './support/harness.js';
import { isUuid, specOf, startTestEmulator } from './support/harness.js';
import { SDK_PROTOCOL_SCENARIOS, WIRE_PROTOCOL_SCENARIOS } from './support/langgraph-protocol-scenarios.js';
import { RECORD_SUITE, RECORDED_REQUESTS } from './support/langgraph-record-suite.js';
import { RUN_GRAPHS, RUN_SCENARIOS } from './support/langgraph-run-scenarios.js';
import type { Scenario } from './support/langgraph-scenarios.js';
import { SCENARIOS } from './support/langgraph-scenarios.js';
import { APP_SUITE, SHAPE_SCENARIOS } from './support/langgraph-shape-scenarios.js';
import { STORE_SCENARIOS } from './support/langgraph-store-scenarios.js';
import { STREAM_SCENARIOS } from './support/langgraph-stream-scenarios.js';

/** One place where the two observations differ; `path` has `[*]` for every array index. */
interface Difference {
  scenario: string;
  path: string;
  langgraph: unknown;
  emulator: unknown;
}

const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;
const ABSENT = '(absent)';

const RUN_ID = /^run-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const HEX_ID = /^[0-9a-f]{32}$/;

/**
 * Ids and timestamps differ on every run: masked, so that only their presence is compared. Masked
 * too: a message ID made of a model call's run ID (`run-<uuid>`), an interrupt's 32-digit ID, and
 * object keys that are IDs (a thread's `interrupts` are keyed by task ID).
 */
function mask(value: unknown): unknown {
  if (typeof value === 'string') return maskText(value);
  if (Array.isArray(value)) return value.map(mask);
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [maskText(key), mask(item)]));
  return value;
}

function maskText(text: string): string {
  if (isUuid(text)) return '<uuid>';
  if (RUN_ID.test(text)) return 'run-<uuid>';
  if (HEX_ID.test(text)) return '<hex32>';
  return TIMESTAMP.test(text) ? '<timestamp>' : text;
}

function compare(scenario: string, path: string, langgraph: unknown, emulator: unknown, into: Difference[]): void {
  const isObject = (value: unknown) => value !== null && typeof value === 'object' && !Array.isArray(value);
  if (isObject(langgraph) && isObject(emulator)) {
    const [a, b] = [langgraph as Record<string, unknown>, emulator as Record<string, unknown>];
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
      compare(scenario, `${path}.${key}`, key in a ? a[key] : ABSENT, key in b ? b[key] : ABSENT, into);
    }
  } else if (Array.isArray(langgraph) && Array.isArray(emulator) && langgraph.length === emulator.length) {
    for (const [index, item] of langgraph.entries()) compare(scenario, `${path}[*]`, item, emulator[index], into);
  } else if (JSON.stringify(langgraph) !== JSON.stringify(emulator)) {
    into.push({ scenario, path, langgraph, emulator });
  }
}

/**
 * A place in the observations: a scenario and a path into what it observed. A listed place's path
 * may be a pattern, for what shows in every event of a stream that carries it.
 */
type Place = { scenario: string; path: string | RegExp; mayNotShow?: true };

/** Whether a listed place is where a difference showed. */
const isAt = (place: Place, seen: { scenario: string; path: string }) =>
  (place.scenario === '*' || place.scenario === seen.scenario) &&
  (typeof place.path === 'string' ? place.path === seen.path : place.path.test(seen.path));

/**
 * Where each deliberate difference shows: scenario and path of the observation. A `*` scenario is
 * every scenario where the path occurs.
 */
const DIFFERENCES: Record<string, Place[]> = {
  'thread-values': [
    { scenario: '*', path: '$.waited.thread.values' },
    { scenario: 'run that creates its thread', path: '$.thread.values' },
    { scenario: 'create empty', path: '$.values' },
    { scenario: 'create with ttl', path: '$.values' },
    { scenario: 'get', path: '$.values' },
    { scenario: 'copy', path: '$.copy.values' },
    { scenario: 'search with extract', path: '$[*].values' },
    { scenario: 'search with select', path: '$[*].values' },
  ],
  'thread-state-updated-at': [
    { scenario: '*', path: '$.waited.thread.state_updated_at' },
    { scenario: 'run that creates its thread', path: '$.thread.state_updated_at' },
    { scenario: '*', path: '$.state_updated_at' },
    { scenario: 'copy', path: '$.copy.state_updated_at' },
    { scenario: 'search with extract', path: '$[*].state_updated_at' },
  ],
  'state-checkpoint-fields': [
    // Graphs of several shapes, recorded and replayed (SHAPE_SCENARIOS): their states and histories.
    {
      scenario: '*',
      path: /^\$\.(streamed|streamedWithSubgraphs|waited)\.(state|history\[\*\])\.(checkpoint_id|parent_checkpoint_id|metadata\.checkpoint_id)$/,
    },
    ...['', '.state', '.atCheckpoint', '.history[*]'].flatMap((at) =>
      ['checkpoint_id', 'parent_checkpoint_id', 'metadata.checkpoint_id', 'metadata.graph_id', 'metadata.writes'].map((field) => ({
        scenario: '*',
        path: `$${at}.${field}`,
      })),
    ),
    ...['checkpoint_id', 'parent_checkpoint_id', 'metadata.checkpoint_id'].map((field) => ({
      scenario: '*',
      path: `$.history.entries[*].${field}`,
    })),
  ],
  // Runs (RUN_SCENARIOS).
  'run-metadata-platform': [
    ...['langgraph_version', 'langgraph_api_url'].map((key) => ({ scenario: '*', path: `$.history.entries[*].metadata.${key}` })),
    // In streams: the metadata of every task, model call and debug checkpoint, and the versions LangChain adds to a model call's.
    { scenario: '*', path: /^\$\.[a-z+-]+(\.runs\[\*\]\[\*\]|\[\*\]).*\.(langgraph_version|langgraph_api_url|versions)$/ },
    { scenario: '*', path: /^\$\.(streamed|streamedWithSubgraphs|waited)\..*\.(langgraph_version|langgraph_api_url|versions)$/ },
  ],
  'tool-message-metadata': [
    '$.answer.messages[*].metadata',
    '$.after.values.messages[*].metadata',
    '$.continued.messages[*].metadata',
    '$.second.messages[*].metadata',
    '$.history.entries[*].values.messages[*].metadata',
    '$.history.entries[*].tasks[*].result.messages[*].metadata',
  ]
    .map((path): Place => ({ scenario: '*', path }))
    // In streams and their final state: every tool message, wherever an event carries one.
    .concat({ scenario: '*', path: /^\$\.[a-z+-]+[.[].*(messages\[\*\](\[\*\])?|output|data\[\*\])\.metadata$/ }),
  'run-error-message': [
    { scenario: 'scripted error', path: '$.answer.__error__.message' },
    ...['recursion limit 2', 'recursion limit 3', 'helpdesk failed by its recursion limit'].flatMap((scenario) =>
      ['$.answer.__error__.error', '$.answer.__error__.message'].map((path) => ({ scenario, path })),
    ),
    { scenario: 'shape custom_error', path: /^\$\.(waited|joined)\.answers\[\*\]\.__error__\.(error|message)$/ },
  ],
  'task-error-message': [
    { scenario: 'scripted error', path: '$.after.tasks[*].error' },
    { scenario: 'shape custom_error', path: /^\$\.(streamed|waited)\.(state|history\[\*\])\.tasks\[\*\]\.error$/ },
  ],
  'checkpoint-not-sticky': [{ scenario: 'a plain run after regenerating', path: '$.next.messages' }],
  'rollback-deletes-the-run': [
    ...['$.run.answer', '$.run.failedWith', '$.status'].map((path) => ({ scenario: 'cancel with rollback', path })),
    ...['$.first.answer', '$.first.failedWith', '$.joined.messages'].map((path) => ({ scenario: 'multitask rollback', path })),
    // Recorded from that server and replayed: the rolled-back run's question stays there, and its run, as an error.
    ...['$.joined.messages', '$.joined.sleep_ms', '$.firstRun', '$.after.values.messages', '$.after.values.sleep_ms', '$.after.runs'].map(
      (path) => ({ scenario: 'helpdesk rolled back by a second run', path }),
    ),
  ],
  'cancel-wait-false': [{ scenario: 'cancel without waiting', path: '$.status' }],
  'run-reject-409': [{ scenario: 'multitask reject', path: '$.second.failedWith' }],
  'run-unknown-thread-404': [{ scenario: 'run on an unknown thread', path: '$.refused.failedWith' }],
  'runs-list-newest-first': [
    { scenario: 'runs listed', path: '$.all[*]' },
    { scenario: 'runs listed', path: '$.page' },
  ],
  'join-unknown-run-404': ['$.joined.answer', '$.joined.failedWith'].map((path) => ({ scenario: 'join of an unknown run', path })),
  'delete-active-run': ['$.deleted.answer', '$.deleted.failedWith'].map((path) => ({ scenario: 'delete a running run', path })),
  'cancel-many-served': ['$.cancelled.answer', '$.cancelled.failedWith'].map((path) => ({ scenario: 'cancel many', path })),
  // The one run whose last STATE_SNAPSHOT is the one sent as its node started (it fails there).
  'values-before-next-step': [{ scenario: 'a run whose model fails', path: /^\$\.run\.lastSnapshot\./ }],
  'ignored-input-checked': [
    ...['$.resumed.answer', '$.resumed.failedWith'].map((path) => ({ scenario: 'an ignored input that is not valid', path })),
    // Refused here, the resume leaves the thread waiting at its interrupt.
    { scenario: 'an ignored input that is not valid', path: /^\$\.after\./ },
  ],
  'cancel-reason-recorded': ['$.takenByTheRunningRun', '$.listed[*][*]'].map((path) => ({ scenario: 'cancel with reason taken', path })),
  'strict-resume': [
    { scenario: 'strict resume naming an interrupt that does not wait', path: /^\$\.(refused\.(__interrupt__|__error__)|runs\[\*\])$/ },
  ],
  'keyed-by-interrupt-id': ['$.answeredWhole', '$.resumed.messages[*].content'].map((path) => ({
    scenario: 'resume keyed by tool call (keyedByInterruptId false)',
    path,
  })),
  'wait-answers-json': [{ scenario: 'wait answer media type', path: '$.contentType' }],
  'remove-unknown-message': [{ scenario: 'create with a RemoveMessage of an unknown id', path: '$' }],
  // The scenario exists to show this difference: everything it observes may differ.
  'role-message-refusals': [{ scenario: 'role-form messages refused or coerced differently', path: /^\$\./ }],
  'malformed-id-is-422': [{ scenario: 'get malformed id', path: '$' }],
  'history-before-config': [{ scenario: 'history with before', path: '$' }],
  'copy-of-unknown-thread': [{ scenario: 'copy of an unknown thread', path: '$' }],
  'values-filter-needs-values': [
    { scenario: 'search by values', path: '$' },
    { scenario: 'count', path: '$.byValues' },
  ],
  'select-keeps-identifying-fields': ['created_at', 'updated_at', 'status'].map((field) => ({
    scenario: 'search with select',
    path: `$[*].${field}`,
  })),
  'extract-answered': [{ scenario: 'search with extract', path: '$[*].extracted' }],
  'thread-include-ttl': ['$.hasTtl', '$.ttlMinutes'].map((path) => ({ scenario: 'get with include ttl', path })),
  'state-select': [
    { scenario: 'state and history with select', path: /^\$\.(state|atCheckpoint|history\[\*\])\.values\.(topic|messages)$/ },
  ],
  'unknown-checkpoint-is-404': [
    { scenario: 'state at an unknown checkpoint', path: '$' },
    { scenario: 'update state at an unknown checkpoint', path: '$' },
  ],
  'state-without-graph-id': [{ scenario: 'update state of a thread without graph_id', path: '$' }],
  'patch-state-served': [{ scenario: 'patch state', path: '$' }],
  'prune-served': [{ scenario: 'prune', path: '$' }],
  'prefer-return-minimal': [{ scenario: 'update with Prefer: return=minimal', path: '$.answer' }],
  'update-without-metadata': [{ scenario: 'update ttl only', path: '$' }],
  'info-describes-this-server': [
    '$.version',
    '$.langgraph_js_version',
    '$.context',
    '$.flags.crons',
    '$.flags.langsmith_tracing_replicas',
    '$.flags.strict_resume',
    '$.flags.stream_namespaces',
  ].map((path) => ({
    scenario: 'info',
    path,
  })),
  'assistant-graph-must-exist': [{ scenario: 'create assistant of an unknown graph', path: '$' }],
  'versions-empty-page': [{ scenario: 'assistant versions, an empty page', path: '$' }],
  'set-latest-restores-the-version': [
    { scenario: 'set latest assistant version', path: '$.back.context.n' },
    { scenario: 'set latest assistant version', path: '$.back.description' },
  ],
  'delete-assistant-answers-204': [{ scenario: 'delete assistant', path: '$.answer' }],
  'assistant-search-sorts': [
    { scenario: 'search assistants sorted', path: '$.createdAsc[*]' },
    { scenario: 'search assistants sorted', path: '$.nameAsc[*]' },
  ],
  'pagination-next-when-more': [
    { scenario: 'search assistants with pagination', path: '$.first.next' },
    { scenario: 'search assistants with pagination', path: '$.whole.next' },
  ],
  'assistant-select-keeps-identifying-fields': ['graph_id', 'metadata', 'version', 'created_at', 'updated_at'].map((field) => ({
    scenario: 'search assistants with select',
    path: `$[*].${field}`,
  })),
  'schemas-of-a-javascript-graph': [{ scenario: 'assistant schemas', path: '$' }],
  'malformed-assistant-id-is-422': [{ scenario: 'get malformed assistant id', path: '$' }],
  // The store and crons (STORE_SCENARIOS).
  'store-search-order': [{ scenario: 'store search across namespaces stored in turn', path: '$[*]' }],
  'store-query-lexical-score': [
    { scenario: 'store search by query', path: '$[*].key' },
    { scenario: 'store search by query', path: '$[*].score' },
  ],
  'store-filter-deep-equal': [{ scenario: 'store filter on a list', path: '$' }],
  'store-namespaces-of-live-items': [{ scenario: 'store namespaces after their last item is deleted', path: '$' }],
  'crons-served': [
    { scenario: 'crons are served', path: '$.answer' },
    { scenario: 'crons are served', path: '$.failedWith' },
  ],
  // Streams (STREAM_SCENARIOS).
  'stream-location': [{ scenario: '*', path: '$.location' }],
  'stream-stateless-ids': [{ scenario: 'stateless stream on the wire', path: '$.ids' }],
  'stream-heartbeat': [{ scenario: 'a silent run streamed', path: '$.comments' }],
  'join-stream-unknown-run-404': ['$.status', '$.events'].map((path) => ({ scenario: 'join stream of an unknown run', path })),
  'thread-stream': [{ scenario: 'thread stream', path: '$.status' }],
  'join-stream-mode-filter': [{ scenario: 'join stream with stream_mode', path: '$.events' }],
  'stream-namespaces': [{ scenario: 'stream with namespace filters', path: '$.none' }],
  'lifecycle-stream-mode': [{ scenario: 'streamed in lifecycle mode', path: '$' }],
  'join-stream-checkpoint': [{ scenario: 'join stream after a checkpoint', path: '$.events' }],
  // It shows when that server serialises the event after the task wrote, which a task as quick as
  // travel's locate always lets happen so far; a slower one may not.
  'debug-subgraph-task-results': ['shape travel', 'shape nested'].map((scenario) => ({
    scenario,
    path: /^\$\.streamedWithSubgraphs\.runs\[\*\]\.debug\[\*\]\.data\.payload\.tasks\[\*\]\.result$/,
    mayNotShow: true,
  })),
  'join-after-unsent-event-id': ['$.events', '$.texts'].map((path) => ({
    scenario: 'join stream after a Last-Event-ID not reached yet',
    path,
  })),
  'stream-events-kept': [{ scenario: 'two readers of a run', path: '$.sameEvents' }],
  // The thread-centric protocol (PROTOCOL_SCENARIOS; the SDK's threads.stream() shows none).
  'protocol-thread-ids': [{ scenario: 'protocol: a thread ID that is not a UUID', path: '$.answer' }],
  'protocol-command-errors': [
    'unknownMethodOnNewThread',
    'unknownAssistant',
    'noId',
    'malformed',
    'stateOfMissingThread',
    'unknownInterrupt',
    'subscribeOverHttp',
  ].map((key) => ({ scenario: 'protocol: commands refused', path: `$.${key}` })),
  'protocol-runs': [{ scenario: 'protocol: a run.start while a run is in flight, multitask_strategy interrupt', path: /^\$\.statuses/ }],
  'protocol-methods': [{ scenario: 'protocol: state.listCheckpoints', path: '$.answer' }],
  'protocol-event-filter': [{ scenario: 'protocol: a stream of a channel that does not exist', path: '$.status' }],
  'protocol-events-kept': [{ scenario: 'protocol: a silent run streamed', path: '$.comments' }],
  'protocol-event-shapes': [{ scenario: 'protocol: the events of a reply', path: /^\$\.events\[\*\]\.keys/ }],
  'protocol-websocket': [{ scenario: 'protocol: a GET of the event stream without an upgrade', path: '$.status' }],
};

/** What a scenario observed, or the HTTP status of the call that failed it (the SDK throws). */
type Outcome = { answer: unknown } | { failedWith: number };

async function observe(
  apiUrl: string,
  scenario: string,
  tag: string,
  scenarios: Record<string, Scenario> = SCENARIOS,
  masked: (value: unknown) => unknown = mask,
): Promise<Outcome> {
  try {
    return { answer: masked(await scenarios[scenario]!(sdk(apiUrl), tag, apiUrl)) };
  } catch (error) {
    const status = (error as { status?: number }).status;
    if (typeof status !== 'number') throw error;
    return { failedWith: status };
  }
}

const ANY_UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const ANY_TIMESTAMP = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)/g;

/**
 * Streams carry IDs inside strings too (a checkpoint namespace `agent:<task id>`, a streamed tool
 * message's `run-<id>-tool-<call id>`): every UUID, 32-digit ID and timestamp in any string or key
 * is masked.
 */
function maskStream(value: unknown): unknown {
  const text = (t: string) => (HEX_ID.test(t) ? '<hex32>' : t.replace(ANY_UUID, '<uuid>').replace(ANY_TIMESTAMP, '<timestamp>'));
  if (typeof value === 'string') return text(value);
  if (Array.isArray(value)) return value.map(maskStream);
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [text(key), maskStream(item)]));
  return value;
}

/** The differences of two outcomes: a failure on either side is one difference, at `$`. */
function differencesOf(scenario: string, onLangGraph: Outcome, onEmulator: Outcome): Difference[] {
  const differences: Difference[] = [];
  if ('answer' in onLangGraph && 'answer' in onEmulator) compare(scenario, '$', onLangGraph.answer, onEmulator.answer, differences);
  else if (JSON.stringify(onLangGraph) !== JSON.stringify(onEmulator))
    differences.push({ scenario, path: '$', langgraph: onLangGraph, emulator: onEmulator });
  return differences;
}

/** The ids of the differences the spec's descriptions declare. */
function declaredDifferences(): Set<string> {
  const ids = new Set<string>();
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) for (const item of node) walk(item);
    else if (node && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        if (key === 'description' && typeof value === 'string') {
          for (const match of value.matchAll(/\*\*Differs from the LangGraph JS server\*\* \(`([a-z0-9-]+)`\)/g)) ids.add(match[1]!);
        } else walk(value);
      }
    }
  };
  walk(specOf('agent-server').spec);
  return ids;
}

let langgraph: LangGraphServer;
let emulator: TestEmulator;
/** The same pair for runs: both running RUN_GRAPHS. */
let langgraphRuns: LangGraphServer;
let emulatorRuns: TestEmulator;
const observed: Difference[] = [];

const sdk = (apiUrl: string) => new Client({ apiUrl, apiKey: null, callerOptions: { maxRetries: 0 } });

beforeAll(async () => {
  [langgraph, emulator, langgraphRuns, emulatorRuns] = await Promise.all([
    startLangGraphServer({ port: await freePort() }),
    startTestEmulator(),
    startLangGraphServer({ port: await freePort(), graphs: RUN_GRAPHS }),
    startTestEmulator({ graphs: RUN_GRAPHS }),
  ]);
}, 300_000);
afterAll(async () => {
  await Promise.all([langgraph?.stop(), emulator?.close(), langgraphRuns?.stop(), emulatorRuns?.close()]);
});

/** Records a scenario's differences and fails on those no entry of DIFFERENCES (and of the spec) explains. */
function expectDeclared(differences: Difference[]): void {
  observed.push(...differences);
  const undeclared = differences.filter(
    (difference) => !Object.values(DIFFERENCES).some((places) => places.some((place) => isAt(place, difference))),
  );
  expect(undeclared, 'differences no entry of DIFFERENCES (and of the spec) explains').toEqual([]);
}

describe('the same SDK scenarios on the emulator and on the LangGraph JS server', () => {
  for (const scenario of Object.keys(SCENARIOS)) {
    it(scenario, async () => {
      // The same tag on both servers, so that the metadata the scenario writes compares equal.
      const tag = `differential-${crypto.randomUUID()}`;
      const onLangGraph = await observe(langgraph.url, scenario, tag);
      const onEmulator = await observe(emulator.agentServerUrl, scenario, tag);
      expectDeclared(differencesOf(scenario, onLangGraph, onEmulator));
      expect(emulator.errors).toEqual([]);
    });
  }
});

describe('the same store scenarios on the emulator and on the LangGraph JS server', () => {
  for (const scenario of Object.keys(STORE_SCENARIOS)) {
    it(scenario, async () => {
      const tag = `differential-${crypto.randomUUID()}`;
      const onLangGraph = await observe(langgraph.url, scenario, tag, STORE_SCENARIOS);
      const onEmulator = await observe(emulator.agentServerUrl, scenario, tag, STORE_SCENARIOS);
      expectDeclared(differencesOf(scenario, onLangGraph, onEmulator));
      expect(emulator.errors).toEqual([]);
    });
  }
});

describe('the same runs of the same scripted graphs on the emulator and on the LangGraph JS server', () => {
  for (const scenario of Object.keys(RUN_SCENARIOS)) {
    it(scenario, async () => {
      const tag = `differential-${crypto.randomUUID()}`;
      const [onLangGraph, onEmulator] = await Promise.all([
        observe(langgraphRuns.url, scenario, tag, RUN_SCENARIOS),
        observe(emulatorRuns.agentServerUrl, scenario, tag, RUN_SCENARIOS),
      ]);
      expectDeclared(differencesOf(scenario, onLangGraph, onEmulator));
      expect(emulatorRuns.errors).toEqual([]);
    }, 120_000);
  }
});

describe('the same runs streamed in every stream mode on the emulator and on the LangGraph JS server', () => {
  for (const scenario of Object.keys(STREAM_SCENARIOS)) {
    it(scenario, async () => {
      const tag = `differential-${crypto.randomUUID()}`;
      const [onLangGraph, onEmulator] = await Promise.all([
        observe(langgraphRuns.url, scenario, tag, STREAM_SCENARIOS, maskStream),
        observe(emulatorRuns.agentServerUrl, scenario, tag, STREAM_SCENARIOS, maskStream),
      ]);
      expectDeclared(differencesOf(scenario, onLangGraph, onEmulator));
      expect(emulatorRuns.errors).toEqual([]);
    }, 300_000);
  }
});

describe('CopilotKit: the AG-UI LangGraph adapter driven against the emulator and the LangGraph JS server', () => {
  // Each scenario holds the AG-UI events, messages and state a CopilotKit app relies on, on both
  // servers alike; what they observed is then compared as the other scenarios are.
  for (const scenario of Object.keys(AG_UI_SCENARIOS)) {
    it(scenario, async () => {
      const tag = `differential-${crypto.randomUUID()}`;
      const [onLangGraph, onEmulator] = await Promise.all([
        observe(langgraphRuns.url, scenario, tag, AG_UI_SCENARIOS, maskStream),
        observe(emulatorRuns.agentServerUrl, scenario, tag, AG_UI_SCENARIOS, maskStream),
      ]);
      expectDeclared(differencesOf(scenario, onLangGraph, onEmulator));
      expect(emulatorRuns.errors).toEqual([]);
    }, 60_000);
  }
});

describe('the thread-centric protocol on the emulator and on the LangGraph JS server', () => {
  // The SDK's client.threads.stream() over SSE and a WebSocket (what an app does), then what no SDK call sends.
  const PROTOCOL_SCENARIOS = { ...SDK_PROTOCOL_SCENARIOS, ...WIRE_PROTOCOL_SCENARIOS };
  for (const scenario of Object.keys(PROTOCOL_SCENARIOS)) {
    it(scenario, async () => {
      const [onLangGraph, onEmulator] = await Promise.all([
        observe(langgraphRuns.url, scenario, 'protocol', PROTOCOL_SCENARIOS, maskStream),
        observe(emulatorRuns.agentServerUrl, scenario, 'protocol', PROTOCOL_SCENARIOS, maskStream),
      ]);
      expectDeclared(differencesOf(scenario, onLangGraph, onEmulator));
      expect(emulatorRuns.errors).toEqual([]);
    }, 120_000);
  }
});

describe('real graphs of several shapes, recorded through agentplane-emulator record and replayed', () => {
  // The real server runs the reference graphs; the recorder sits in front of it while the
  // scenarios, the app's own suite and the suite of one conversation held many ways run; the
  // emulator then replays what it wrote. One recording session for all of them.
  let shapes: LangGraphServer;
  let recorder: Recorder;
  let summary: RecordingSummary;
  let replay: TestEmulator;
  const onUpstream: Record<string, Outcome> = {};
  const recording = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'agentplane-recording-')), 'recording.yaml');

  beforeAll(async () => {
    shapes = await startLangGraphServer({
      port: await freePort(),
      // The schema graphs are left out: an Annotation's schema takes that server longer to read than it allows.
      rawGraphs: Object.fromEntries(Object.entries(SHAPE_GRAPHS).filter(([graphId]) => !graphId.startsWith('schemas_'))),
      assistantConfigs: SHAPE_ASSISTANT_CONFIGS,
    });
    recorder = await startRecorder({ upstream: new URL(shapes.url), out: recording, port: 0, host: '127.0.0.1' });
    for (const scenario of Object.keys(SHAPE_SCENARIOS))
      onUpstream[scenario] = await observe(recorder.url, scenario, 'recorded', SHAPE_SCENARIOS, maskStream);
    for (const scenario of Object.keys(RECORDED_REQUESTS))
      onUpstream[scenario] = await observe(recorder.url, scenario, 'recorded', RECORDED_REQUESTS);
    // The suites, against the real server: they pass there.
    for (const [name, test] of [...Object.entries(APP_SUITE), ...Object.entries(RECORD_SUITE)])
      await test(sdk(recorder.url)).catch((error: Error) => {
        throw new Error(`a suite failed against the real server itself, at "${name}": ${error.message}`);
      });
    // The upstream stops first: what the recorder read as runs ended is all it needs.
    await shapes.stop();
    summary = await recorder.stop();
    replay = await startTestEmulator({ config: readConfigFile(recording) });
  }, 600_000);
  afterAll(async () => {
    await Promise.all([shapes?.stop(), replay?.close()]);
    fs.rmSync(path.dirname(recording), { recursive: true, force: true });
  });

  it('records every run, though the upstream stopped before the recorder', () => {
    expect(summary.lost).toEqual([]);
    expect(summary.file).toBe(recording);
  });

  for (const scenario of Object.keys(SHAPE_SCENARIOS)) {
    it(scenario, async () => {
      const onReplay = await observe(replay.agentServerUrl, scenario, 'recorded', SHAPE_SCENARIOS, maskStream);
      expectDeclared(differencesOf(scenario, onUpstream[scenario]!, onReplay));
      expect(replay.errors).toEqual([]);
    }, 120_000);
  }

  for (const scenario of Object.keys(RECORDED_REQUESTS)) {
    it(scenario, async () => {
      const onReplay = await observe(replay.agentServerUrl, scenario, 'recorded', RECORDED_REQUESTS);
      expectDeclared(differencesOf(scenario, onUpstream[scenario]!, onReplay));
      expect(replay.errors).toEqual([]);
    }, 60_000);
  }

  for (const [name, test] of Object.entries(APP_SUITE))
    it(`the app's own suite passes against the replay, unchanged: ${name}`, async () => {
      await test(sdk(replay.agentServerUrl));
      expect(replay.errors).toEqual([]);
    }, 60_000);

  for (const [name, test] of Object.entries(RECORD_SUITE))
    it(`one conversation held many ways passes against the replay, unchanged: ${name}`, async () => {
      await test(sdk(replay.agentServerUrl));
      expect(replay.errors).toEqual([]);
    }, 60_000);
});

describe('the list of differences', () => {
  it('every listed difference still shows', () => {
    const unseen = Object.entries(DIFFERENCES).flatMap(([id, places]) =>
      places.filter((place) => !place.mayNotShow && !observed.some((seen) => isAt(place, seen))).map((place) => ({ id, ...place })),
    );
    expect(unseen, 'listed differences the servers no longer show: remove them here and in the spec').toEqual([]);
  });

  // Declared differences the SDK cannot show: it throws on a 404 or 409 before reading the body
  // (error-detail-body), it does not expose response headers (pagination-total-at-offset), and it
  // sends every body as application/json (json-media-types). The HTTP-level conformance run
  // against the same server holds them: packages/conformance/test/langgraph.e2e.test.ts.
  const ONLY_SEEN_OVER_HTTP = ['error-detail-body', 'pagination-total-at-offset', 'json-media-types'];

  it('is the list the spec declares, each with its reason', () => {
    expect([...declaredDifferences()].sort()).toEqual([...Object.keys(DIFFERENCES), ...ONLY_SEEN_OVER_HTTP].sort());
  });
});
