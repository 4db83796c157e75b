// runConformance: one run of every selected check against the servers given, then the cleanup.
// Behaviour checks run one after the other (each on its own threads); every answer they receive
// is checked against the spec on the way (http.ts), and the per-operation schema checks are the
// sum of those findings. Whatever happens (a failed check, a network error, an abort), the threads,
// assistants and deployments the run created are deleted before it returns.
import { createAgentServerClient } from '@agentplane/agent-server';
import { createControlPlaneClient } from '@agentplane/control-plane';
import { schemaCheckRule, schemaCheckTitle } from './catalog.js';
import { AGENT_SERVER_CHECKS } from './checks/agent-server.js';
import { AgentServerSession } from './checks/agent-server-session.js';
import type { CheckDefinition } from './checks/check.js';
import type { ControlPlaneSession } from './checks/control-plane.js';
import { CONTROL_PLANE_CHECKS } from './checks/control-plane.js';
import type { Route } from './contract.js';
import type { Fetch } from './http.js';
import { NotServedError, Recorder } from './http.js';
import type { ApiName, CheckResult, ConformanceReport, Finding, RateLimitWait, Verdict } from './model.js';
import type { Selectable, Selection } from './select.js';
import { ConformanceUsageError, checkSelectors, isSelected } from './select.js';
import { differenceNear, operationsOf, specOf } from './spec.js';
import { CheckSkipped, CheckStopped, Verify } from './verify.js';

export interface ConformanceOptions {
  /** The agent server to check (its deployment URL). */
  agentServer?: {
    url: string;
    /** Sent as X-Api-Key. */
    apiKey?: string;
    /**
     * The graph the run uses: metadata.graph_id of its threads (servers that run graphs need it to
     * write state) and the graph of its assistants (without it, the graph of the first default
     * assistant the server lists).
     */
    graphId?: string;
    /**
     * Run graphs: the run checks create runs of the run's graph (`graphId`, else the graph of the
     * server's first default assistant). A run executes the graph: its model calls cost, and its
     * tools act. Without it (and without `scriptedGraphId`) the run checks are skipped.
     */
    allowRuns?: boolean;
    /**
     * A graph of the server that runs the conformance script (CONFORMANCE_GRAPH): the run checks
     * of tool calls, failures and interrupts run on it, and the other run checks too unless
     * `allowRuns` (a scripted graph has no cost and no effect, so naming one allows running it).
     */
    scriptedGraphId?: string;
    fetch?: Fetch;
  };
  /** The control plane to check (its root URL, without /v2). */
  controlPlane?: {
    url: string;
    apiKey: string;
    /** Create a deployment of the run's own (deleted at the end); without it, the control plane is only read. */
    allowWrites?: boolean;
    /** Pause between two polls of a revision (default 2 s). */
    pollIntervalMs?: number;
    /** Longest wait for a revision to reach a terminal status (default 20 min). */
    revisionTimeoutMs?: number;
    fetch?: Fetch;
  };
  /** Only these checks: check ids, areas, operation ids or tags. */
  only?: string[];
  /** Not these (an operation skips every check that calls it). */
  skip?: string[];
  /** Called as each check finishes. */
  onResult?: (result: CheckResult) => void;
  /** Aborting it stops the run after the request in flight; the cleanup still runs. */
  signal?: AbortSignal;
  /** The longest the run waits out 429 answers for one request (default 2 min). */
  maxRateLimitWaitMs?: number;
  /** Called when a 429 answer is about to be waited out. */
  onRateLimit?: (wait: RateLimitWait) => void;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener('abort', abort);
      resolve();
    }
    function abort() {
      clearTimeout(timer);
      reject(signal!.reason);
    }
    signal?.addEventListener('abort', abort, { once: true });
  });

/** Every check the run could include (behaviour checks, then one schema check per operation). */
function schemaChecksOf(api: ApiName): Selectable[] {
  return [...operationsOf(api).keys()].map((operationId) => ({
    id: `schema:${operationId}`,
    api,
    area: 'schema',
    operations: [operationId],
  }));
}

export async function runConformance(options: ConformanceOptions): Promise<ConformanceReport> {
  if (!options.agentServer && !options.controlPlane)
    throw new ConformanceUsageError('nothing to check', 'give an agent server URL, a control plane URL, or both.');
  for (const [name, target] of [
    ['agent server', options.agentServer],
    ['control plane', options.controlPlane],
  ] as const) {
    if (target && !/^https?:$/.test(safeUrl(target.url)?.protocol ?? ''))
      throw new ConformanceUsageError(`the ${name} URL ${JSON.stringify(target.url)} is not an http(s) URL`);
  }
  if (options.controlPlane && !options.controlPlane.apiKey)
    throw new ConformanceUsageError('the control plane needs an API key', 'pass --api-key or set AGENTPLANE_API_KEY.');
  const selection: Selection = { only: options.only ?? [], skip: options.skip ?? [] };
  const apis: ApiName[] = [
    ...(options.agentServer ? ['agent-server' as const] : []),
    ...(options.controlPlane ? ['control-plane' as const] : []),
  ];
  const writes = options.controlPlane?.allowWrites === true;
  const behaviour = (api: ApiName) =>
    (api === 'agent-server' ? AGENT_SERVER_CHECKS : CONTROL_PLANE_CHECKS.filter((c) => writes || !c.writes)) as CheckDefinition<unknown>[];
  checkSelectors(
    selection,
    apis.flatMap((api) => [...behaviour(api), ...schemaChecksOf(api)]),
  );
  // Schema checks judge the answers the behaviour checks get: a selection without any of those
  // would call nothing and report every check skipped, which must not read as a pass.
  if (!apis.some((api) => behaviour(api).some((check) => isSelected(check, selection))))
    throw new ConformanceUsageError(
      'the selection leaves no check that calls the server',
      'schema checks judge the answers of the other checks: select an area (threads, search, …), an operation or a check id too.',
    );

  const started = Date.now();
  const runId = crypto.randomUUID();
  const signal = options.signal ?? new AbortController().signal;
  const results: CheckResult[] = [];
  const cleanup = { created: 0, deleted: 0, failures: [] as string[] };
  const report = (result: CheckResult) => {
    results.push(result);
    options.onResult?.(result);
  };
  const maxRateLimitWaitMs = options.maxRateLimitWaitMs ?? 120_000;
  const timed = {
    sleep: (ms: number, s: AbortSignal) => sleep(ms, s),
    ...(options.onRateLimit ? { onRateLimit: options.onRateLimit } : {}),
  };
  const rateLimited = { answers: 0, waitedMs: 0 };

  for (const api of apis) {
    const target = api === 'agent-server' ? options.agentServer! : options.controlPlane!;
    const baseFetch: Fetch = target.fetch ?? ((request) => fetch(request));
    let session: AgentServerSession | ControlPlaneSession;
    // The run's own resources exist, and so does the graph its assistants are of; a 404 or 405
    // for a route naming only them (or naming none) means the route itself is missing.
    const resourcesExist = (route: Route, requestText: string) => {
      const values = Object.values(route.params);
      if (api === 'control-plane') return values.every((value) => (session as ControlPlaneSession).live.has(value));
      const agent = session as AgentServerSession;
      const { graphId, assistantIds } = namedIn(requestText);
      return (
        values.every((value) => agent.live.has(value) || agent.liveAssistants.has(value) || agent.liveCrons.has(value)) &&
        (graphId === undefined || graphId === agent.knownGraph) &&
        // A run names its assistant by ID or by graph: a 404 for one the run does not know is that assistant's.
        assistantIds.every((id) => agent.liveAssistants.has(id) || agent.servesGraph(id))
      );
    };
    const recorder = new Recorder({
      api,
      baseUrl: target.url,
      fetch: abortable(baseFetch, signal),
      maxRateLimitWaitMs,
      signal,
      resourcesExist,
      ...timed,
    });
    // Cleanup goes through its own fetch: it must run after an abort.
    const cleaner = new Recorder({
      api,
      baseUrl: target.url,
      fetch: baseFetch,
      maxRateLimitWaitMs,
      signal: new AbortController().signal,
      resourcesExist: () => false,
      ...timed,
    });
    const headers = { 'User-Agent': 'agentplane-conformance' };
    if (api === 'agent-server') {
      const options = target as NonNullable<ConformanceOptions['agentServer']>;
      const client = (fetch: Fetch) =>
        createAgentServerClient({
          baseUrl: options.url,
          ...(options.apiKey ? { apiKey: options.apiKey } : {}),
          fetch,
          retry: false,
          headers,
        });
      session = new AgentServerSession(
        client(recorder.fetch),
        runId,
        options.graphId,
        { allowRuns: options.allowRuns === true, scriptedGraphId: options.scriptedGraphId },
        options.fetch ? undefined : { url: options.url, ...(options.apiKey ? { apiKey: options.apiKey } : {}) },
      );
      await runChecks(api, behaviour(api), session, recorder, selection, signal, report);
      const s = session;
      const cleanClient = client(cleaner.fetch);
      await deleteEach(
        s.live,
        'thread',
        (id) => cleanClient.DELETE('/threads/{thread_id}', { params: { path: { thread_id: id } } }),
        cleanup,
      );
      await deleteEach(
        s.liveAssistants,
        'assistant',
        (id) => cleanClient.DELETE('/assistants/{assistant_id}', { params: { path: { assistant_id: id } } }),
        cleanup,
      );
      // Crons first: a thread's crons go with it, and a cron of a deleted assistant too.
      await deleteEach(
        s.liveCrons,
        'cron',
        (id) => cleanClient.DELETE('/runs/crons/{cron_id}', { params: { path: { cron_id: id } } }),
        cleanup,
      );
      await deleteEach(
        s.liveItems,
        'store item',
        (item) => {
          const [namespace, key] = JSON.parse(item) as [string[], string];
          return cleanClient.DELETE('/store/items', { body: { namespace, key } });
        },
        cleanup,
      );
      cleanup.created += s.created;
      cleanup.deleted += s.removed;
    } else {
      const options = target as NonNullable<ConformanceOptions['controlPlane']>;
      const client = (fetch: Fetch) =>
        createControlPlaneClient({ baseUrl: options.url, apiKey: options.apiKey, fetch, retry: false, headers });
      const s: ControlPlaneSession = {
        client: client(recorder.fetch),
        runId,
        allowWrites: writes,
        pollIntervalMs: options.pollIntervalMs ?? 2_000,
        revisionTimeoutMs: options.revisionTimeoutMs ?? 20 * 60_000,
        sleep: (ms) => sleep(ms, signal),
        live: new Set(),
        created: 0,
      };
      session = s;
      await runChecks(api, behaviour(api), s, recorder, selection, signal, report);
      const cleanClient = client(cleaner.fetch);
      await deleteEach(
        s.live,
        'deployment',
        (id) => cleanClient.DELETE('/v2/deployments/{deployment_id}', { params: { path: { deployment_id: id } } }),
        cleanup,
      );
      cleanup.created += s.created;
    }
    for (const r of [recorder, cleaner]) {
      rateLimited.answers += r.rateLimited;
      rateLimited.waitedMs += r.rateLimitedMs;
    }
    for (const schemaCheck of schemaChecksOf(api)) {
      if (!isSelected(schemaCheck, selection)) continue;
      report(schemaResult(api, schemaCheck.operations[0]!, recorder, cleaner, results));
    }
  }

  const counts: Record<Verdict, number> = { pass: 0, fail: 0, 'not served': 0, skipped: 0 };
  for (const result of results) counts[result.verdict]++;
  return {
    specs: Object.fromEntries(apis.map((api) => [api, String(specOf(api).info?.version)])),
    targets: Object.fromEntries(apis.map((api) => [api, (api === 'agent-server' ? options.agentServer! : options.controlPlane!).url])),
    runId,
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    results,
    ok: counts.fail === 0 && cleanup.failures.length === 0 && !signal.aborted,
    counts,
    cleanup,
    rateLimited,
    ...(signal.aborted ? { interrupted: true } : {}),
  };
}

async function runChecks<S>(
  api: ApiName,
  checks: CheckDefinition<S>[],
  session: S,
  recorder: Recorder,
  selection: Selection,
  signal: AbortSignal,
  report: (result: CheckResult) => void,
): Promise<void> {
  for (const check of checks) {
    if (!isSelected(check, selection)) continue;
    const base = { id: check.id, api, area: check.area, title: check.title, rule: check.rule, operations: check.operations };
    const started = Date.now();
    if (signal.aborted) {
      report({ ...base, verdict: 'skipped', findings: [], langGraphDifferences: [], note: 'the run was interrupted', durationMs: 0 });
      continue;
    }
    const missing = check.operations.find((operationId) => recorder.notServed.has(operationId));
    if (missing) {
      report(notServed(base, api, missing, 0));
      continue;
    }
    const verify = new Verify();
    recorder.currentCheck = check.id;
    try {
      await check.run(session, verify);
    } catch (error) {
      if (error instanceof NotServedError) {
        report(notServed(base, api, error.operationId, Date.now() - started));
        continue;
      }
      if (error instanceof CheckSkipped && verify.findings.length === 0) {
        report({
          ...base,
          verdict: 'skipped',
          findings: [],
          langGraphDifferences: [],
          note: error.message,
          durationMs: Date.now() - started,
        });
        continue;
      }
      if (signal.aborted) {
        report({
          ...base,
          verdict: 'skipped',
          findings: [],
          langGraphDifferences: [],
          note: 'the run was interrupted',
          durationMs: Date.now() - started,
        });
        continue;
      }
      if (!(error instanceof CheckStopped)) verify.findings.push({ message: `the check could not go on: ${errorText(error)}` });
    }
    const failed = verify.findings.length > 0;
    const findings: Finding[] = verify.findings.map(({ differs, ...finding }) => {
      const difference = check.difference && (differs || check.differenceIn !== 'marked findings') ? check.difference : undefined;
      return difference ? { ...finding, langGraphDifference: difference } : finding;
    });
    report({
      ...base,
      verdict: failed ? 'fail' : 'pass',
      findings,
      langGraphDifferences: [...new Set(findings.flatMap((finding) => (finding.langGraphDifference ? [finding.langGraphDifference] : [])))],
      durationMs: Date.now() - started,
    });
  }
}

function notServed(
  base: Omit<CheckResult, 'verdict' | 'findings' | 'langGraphDifferences' | 'durationMs'>,
  api: ApiName,
  operationId: string,
  durationMs: number,
): CheckResult {
  const difference = differenceNear(operationsOf(api).get(operationId)!.pointer);
  return {
    ...base,
    verdict: 'not served',
    findings: [],
    langGraphDifferences: difference ? [difference] : [],
    note: `the server does not serve ${operationId}`,
    durationMs,
  };
}

/**
 * An operation's schema check: every finding on its answers during the run (cleanup included),
 * once each. A finding the spec's text does not place on a declared difference, on an answer to a
 * check that failed for its declared difference, is that difference: the answer that breaks the
 * schema is the answer the check refused (the LangGraph JS server's 400 to a malformed ID).
 */
function schemaResult(api: ApiName, operationId: string, recorder: Recorder, cleaner: Recorder, results: CheckResult[]): CheckResult {
  const operation = operationsOf(api).get(operationId)!;
  const base = {
    id: `schema:${operationId}`,
    api,
    area: 'schema',
    title: schemaCheckTitle(operation.method, operation.path),
    rule: schemaCheckRule(operationId),
    operations: [operationId],
    durationMs: 0,
  };
  if (recorder.notServed.has(operationId)) return notServed(base, api, operationId, 0);
  const exchanges = [...recorder.exchanges, ...cleaner.exchanges].filter(
    (exchange) => exchange.route.operation.operationId === operationId,
  );
  if (exchanges.length === 0)
    return { ...base, verdict: 'skipped', findings: [], langGraphDifferences: [], note: 'no selected check called it' };
  const failedFor = new Map(
    results.flatMap((result) =>
      result.verdict === 'fail' && result.langGraphDifferences.length === 1 ? [[result.id, result.langGraphDifferences[0]!] as const] : [],
    ),
  );
  const seen = new Map<string, Finding>();
  for (const exchange of exchanges) {
    for (const finding of exchange.findings) {
      const inherited = !finding.langGraphDifference && exchange.check ? failedFor.get(exchange.check) : undefined;
      if (!seen.has(finding.message)) seen.set(finding.message, inherited ? { ...finding, langGraphDifference: inherited } : finding);
    }
  }
  const findings = [...seen.values()];
  const statuses = [...new Set(exchanges.map((exchange) => exchange.status))].sort();
  return {
    ...base,
    title: `${base.title} (${exchanges.length} answers: ${statuses.join(', ')})`,
    verdict: findings.length > 0 ? 'fail' : 'pass',
    findings,
    langGraphDifferences: [...new Set(findings.flatMap((finding) => (finding.langGraphDifference ? [finding.langGraphDifference] : [])))],
  };
}

/** Deletes what the run created, one by one; any 2xx counts as deleted, and so does a 404 (already gone). */
async function deleteEach(
  ids: Iterable<string>,
  kind: string,
  remove: (id: string) => Promise<{ response: Response }>,
  cleanup: { deleted: number; failures: string[] },
): Promise<void> {
  for (const id of ids) {
    const deleted = await remove(id).catch((error: unknown) => error);
    const status = (deleted as { response?: Response }).response?.status;
    if (status !== undefined && ((status >= 200 && status < 300) || status === 404)) cleanup.deleted++;
    else cleanup.failures.push(`${kind} ${id}: ${status ?? String(deleted)}`);
  }
}

/** The fetch the checks use: an abort stops the request in flight. */
function abortable(fetch: Fetch, signal: AbortSignal): Fetch {
  return (request) => {
    if (signal.aborted) return Promise.reject(signal.reason);
    return fetch(new Request(request, { signal }));
  };
}

/** The `graph_id` a request body names, and the `assistant_id`s (a batch names one per item). */
function namedIn(requestText: string): { graphId: string | undefined; assistantIds: string[] } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(requestText);
  } catch {
    return { graphId: undefined, assistantIds: [] };
  }
  const field = (item: unknown, name: string) => {
    const value = (item as Record<string, unknown> | null)?.[name];
    return typeof value === 'string' ? value : undefined;
  };
  const items = Array.isArray(parsed) ? parsed : [parsed];
  return {
    graphId: Array.isArray(parsed) ? undefined : field(parsed, 'graph_id'),
    assistantIds: items.flatMap((item) => field(item, 'assistant_id') ?? []),
  };
}

function safeUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

function errorText(error: unknown): string {
  if (error instanceof Error) return error.cause instanceof Error ? `${error.message} (${error.cause.message})` : error.message;
  return String(error);
}
