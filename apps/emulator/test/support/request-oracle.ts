// What the spec says a valid request must be answered with, given what the emulator holds: a
// model of the records (threads and their checkpoints, assistants and their versions, the graphs
// served, deployments and their revisions, the configured providers and pools) and of every rule
// the spec states beyond its schemas. A schema-valid request is accepted unless a record it names
// is missing (404: a thread, an assistant or one of its versions, a graph the deployment does not
// serve), its thread or assistant ID is taken (409) or it breaks a stated rule (422). Each stated rule names the 422 example of its
// operation that documents it: a rule the spec does not document cannot be predicted here, so a
// refusal by it fails the test as a refusal by an unstated rule.
import type { ListedOperation } from '@agentplane/openapi-toolkit';
import { resolveRef } from '@agentplane/openapi-toolkit';
import { SPECS } from './documented-answers.js';
import type { ApiName } from './harness.js';

export interface ParsedRequest {
  api: ApiName;
  operation: ListedOperation;
  /** Path parameters as sent (not canonicalised). */
  path: Record<string, string>;
  /** Query parameters as sent, read as their schema's type. */
  query: Record<string, any>;
  body: any;
}

/** A rule the spec states that the request breaks: where, and the 422 example documenting it. */
export interface StatedRefusal {
  example: string;
  /** The issue's `loc`, exactly; or, with `prefixOnly`, what every issue of the rule's `loc` starts with. */
  loc: (string | number)[];
  prefixOnly?: boolean;
}

export type Prediction = { status: number } | { status: 422; refusals: StatedRefusal[] };

interface DeploymentRecord {
  deployment: any;
  revisions: Set<string>;
}

/** A run the model knows: its thread, its assistant, and whether it has not ended (pending until a time no test reaches). */
interface RunRecord {
  threadId: string;
  assistantId: string;
  inFlight: boolean;
}

interface AssistantRecord {
  /** The graph of its current version. */
  graphId: string;
  /** Each version's graph, by version number. */
  versions: Map<number, string>;
}

const canonical = (id: string) => id.replace(/^urn:uuid:/i, '').toLowerCase();
const UUID = /^(urn:uuid:)?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The operations that create runs, on a thread or stateless. */
export const RUN_CREATES = new Set(['createRun', 'waitRun', 'createStatelessRun', 'waitStatelessRun', 'createRunBatch']);

export class RecordModel {
  /** Thread ID → the IDs of its checkpoints that answers have shown. */
  readonly threads = new Map<string, Set<string>>();
  /** Threads known to have a checkpoint (created with supersteps, or updated), their IDs shown or not. */
  readonly threadsWithState = new Set<string>();
  readonly deployments = new Map<string, DeploymentRecord>();
  readonly providers = new Set<string>();
  readonly pools = new Set<string>();
  /** Assistant ID → its record; the graphs' default assistants included. */
  readonly assistants = new Map<string, AssistantRecord>();
  /** The graphs the deployment serves, each with its default assistant's ID. */
  readonly graphs = new Map<string, string>();
  readonly runs = new Map<string, RunRecord>();
  /** Cron ID → its thread (null for a cron of its own) and assistant: a cron goes with either. */
  readonly crons = new Map<string, { threadId: string | null; assistantId: string }>();
  /** Thread ID → the assistant its metadata names (the last run started on it while idle). */
  private readonly threadAssistants = new Map<string, string>();
  private readonly resourceDefaults = SPECS['control-plane'].spec.components.schemas.DeploymentType['x-resource-defaults'];

  predict(request: ParsedRequest): Prediction {
    const { operation, path, query, body } = request;
    const thread = path.thread_id === undefined ? undefined : this.threads.get(canonical(path.thread_id));
    const deployment = path.deployment_id === undefined ? undefined : this.deployments.get(canonical(path.deployment_id));
    const assistant = path.assistant_id === undefined ? undefined : this.assistants.get(this.assistantIdOf(path.assistant_id) ?? '');
    // The operations that need the assistant's graph: it must still be served.
    const withGraph = assistant !== undefined && this.graphs.has(assistant.graphId);
    switch (operation.operationId) {
      case 'createThread': {
        const taken = body?.thread_id !== undefined && this.threads.has(canonical(body.thread_id));
        return { status: taken && body.if_exists !== 'do_nothing' ? 409 : 200 };
      }
      case 'searchThreads':
      case 'countThreads':
      case 'pruneThreads':
      case 'listDeployments':
      case 'searchAssistants':
      case 'countAssistants':
      case 'getHealth':
      case 'getServerInfo':
      case 'getStoreItem':
      case 'searchStoreItems':
      case 'listStoreNamespaces':
      case 'searchCrons':
      case 'countCrons':
        return { status: 200 };
      case 'putStoreItem':
      case 'deleteStoreItem':
        return { status: 204 };
      // The time zone is checked first, then the assistant and the thread.
      case 'createCron':
        return unknownTimeZone(body) ?? { status: this.runnableAssistant(body.assistant_id) ? 200 : 404 };
      case 'createThreadCron':
        return unknownTimeZone(body) ?? { status: this.runnableAssistant(body.assistant_id) && thread ? 200 : 404 };
      case 'updateCron':
        return unknownTimeZone(body) ?? { status: this.crons.has(canonical(path.cron_id!)) ? 200 : 404 };
      case 'deleteCron':
        return { status: this.crons.has(canonical(path.cron_id!)) ? 204 : 404 };
      case 'createAssistant': {
        if (!this.graphs.has(body.graph_id)) return { status: 404 };
        const taken = body.assistant_id !== undefined && this.assistants.has(canonical(body.assistant_id));
        return { status: taken && body.if_exists !== 'do_nothing' ? 409 : 200 };
      }
      case 'getAssistant':
      case 'listAssistantVersions':
        return { status: assistant ? 200 : 404 };
      case 'updateAssistant':
        return { status: assistant && (body.graph_id === undefined || this.graphs.has(body.graph_id)) ? 200 : 404 };
      case 'deleteAssistant':
        return { status: assistant ? 204 : 404 };
      case 'setLatestAssistantVersion':
        return { status: assistant?.versions.has(body.version) ? 200 : 404 };
      case 'getAssistantGraph':
      case 'getAssistantSchemas':
      case 'getAssistantSubgraphs':
      case 'getAssistantSubgraphsInNamespace':
        return { status: withGraph ? 200 : 404 };
      case 'getThread':
      case 'getThreadState':
      case 'copyThread':
      case 'getThreadHistory':
      case 'updateThread':
        return { status: thread ? 200 : 404 };
      case 'deleteThread':
        return { status: thread ? 204 : 404 };
      case 'getThreadStateAtCheckpoint':
        return { status: thread?.has(canonical(path.checkpoint_id!)) ? 200 : 404 };
      case 'getThreadStateAtCheckpointObject':
        return { status: thread?.has(canonical(body.checkpoint.checkpoint_id)) ? 200 : 404 };
      case 'updateThreadState': {
        const target = body.checkpoint?.checkpoint_id ?? body.checkpoint_id;
        if (!thread) return { status: 404 };
        if (this.isBusy(canonical(path.thread_id!))) return { status: 409 };
        return { status: target === undefined || thread.has(canonical(target)) ? 200 : 404 };
      }
      case 'createRun':
      case 'waitRun': {
        if (!this.runnableAssistant(body.assistant_id)) return { status: 404 };
        if (!thread && body.if_not_exists !== 'create') return { status: 404 };
        const target = body.checkpoint_id ?? body.checkpoint?.checkpoint_id;
        if (target !== undefined && !thread?.has(canonical(target))) return { status: 404 };
        const rejected = thread && this.isBusy(canonical(path.thread_id!)) && (body.multitask_strategy ?? 'reject') === 'reject';
        return { status: rejected ? 409 : 200 };
      }
      // A stateless run's thread is new: it has no checkpoint to run from.
      case 'createStatelessRun':
      case 'waitStatelessRun':
        return { status: this.runnableAssistant(body.assistant_id) && checkpointOf(body) === undefined ? 200 : 404 };
      case 'createRunBatch':
        return {
          status: body.every((item: any) => this.runnableAssistant(item.assistant_id) && checkpointOf(item) === undefined) ? 200 : 404,
        };
      case 'listRuns':
        return { status: thread ? 200 : 404 };
      case 'getRun':
      case 'joinRun':
        return { status: this.runOf(path) ? 200 : 404 };
      case 'deleteRun': {
        const run = this.runOf(path);
        return { status: run ? (run.inFlight ? 409 : 204) : 404 };
      }
      case 'cancelRun':
        // A reason is recorded only by an interrupt: a run rolled back is deleted.
        if (query.reason !== undefined && query.action === 'rollback')
          return { status: 422, refusals: [{ example: 'ReasonWithRollback', loc: ['query', 'reason'] }] };
        return { status: this.runOf(path) ? (request.query?.wait === true ? 204 : 202) : 404 };
      case 'cancelRuns': {
        if (body.status !== undefined) return { status: 204 };
        const threadId = body.thread_id === undefined ? undefined : canonical(body.thread_id);
        const known = body.run_ids.every((id: string) => {
          const run = this.runs.get(canonical(id));
          return run && (threadId === undefined || run.threadId === threadId);
        });
        return { status: known ? 204 : 404 };
      }
      case 'patchThreadState':
        return { status: thread && this.hasState(canonical(path.thread_id!)) ? 204 : 404 };
      case 'createDeployment': {
        const refusals = [...secretRefusals(body.secrets), ...this.scaleRefusals(body.source_config, null)];
        if (refusals.length) return { status: 422, refusals };
        const taken = [...this.deployments.values()].some((d) => d.deployment.name === body.name);
        return taken ? { status: 422, refusals: [{ example: 'NameTaken', loc: ['body', 'name'] }] } : { status: 201 };
      }
      case 'getDeployment':
      case 'listRevisions':
        return { status: deployment ? 200 : 404 };
      case 'deleteDeployment':
        return { status: deployment ? 204 : 404 };
      case 'getRevision':
      case 'redeployRevision':
        return { status: deployment?.revisions.has(canonical(path.revision_id!)) ? 200 : 404 };
      case 'createRevision':
        return { status: deployment ? 201 : 404 };
      case 'listRevisionLogs': {
        if (!deployment?.revisions.has(canonical(path.revision_id!))) return { status: 404 };
        // The offset parameter's rule: a cursor this server issued for the order asked for.
        const offset = query.offset;
        return offset === undefined || isLogCursor(String(offset), query.order === 'desc' ? 'd' : 'a')
          ? { status: 200 }
          : { status: 422, refusals: [{ example: 'NotACursor', loc: ['query', 'offset'] }] };
      }
      case 'updateDeployment': {
        if (!deployment) return { status: 404 };
        const refusals = this.updateRefusals(deployment.deployment, body);
        return refusals.length ? { status: 422, refusals } : { status: 200 };
      }
      // Every command is answered 200: what its method and the thread refuse is an error frame.
      case 'sendThreadCommand':
        return { status: 200 };
      // Over fetch there is no socket to upgrade.
      case 'connectThreadEvents':
        return { status: 426 };
      case 'getOauthProvider':
        return { status: this.providers.has(path.provider_id!) ? 200 : 404 };
      case 'getSandboxPool':
        return { status: this.pools.has(path.name!) ? 200 : 404 };
      default:
        throw new Error(`the oracle does not know ${operation.operationId}: add its records and rules`);
    }
  }

  /** Takes in what an accepted request changed. */
  apply(request: ParsedRequest, status: number, answer: any): void {
    const { operation, path } = request;
    if (status >= 300) return;
    switch (operation.operationId) {
      case 'createThread':
        if (!this.threads.has(answer.thread_id)) {
          this.threads.set(answer.thread_id, new Set());
          if ((request.body?.supersteps ?? []).length > 0) this.threadsWithState.add(answer.thread_id);
        }
        break;
      case 'copyThread':
        this.threads.set(answer.thread_id, new Set(this.threads.get(canonical(path.thread_id!))));
        if (this.hasState(canonical(path.thread_id!))) this.threadsWithState.add(answer.thread_id);
        break;
      case 'deleteThread':
        this.forget(canonical(path.thread_id!));
        break;
      case 'pruneThreads':
        for (const id of new Set<string>(request.body.thread_ids.map(canonical))) {
          const checkpoints = this.threads.get(id);
          if (!checkpoints) continue;
          if (request.body.strategy !== 'keep_latest') this.forget(id);
          // The newest checkpoint an answer showed is the thread's latest: only updates show one, and
          // every update is newer than the supersteps of the create.
          else this.threads.set(id, new Set([...checkpoints].sort().slice(-1)));
        }
        break;
      case 'updateThreadState':
        this.threads.get(canonical(path.thread_id!))?.add(answer.checkpoint.checkpoint_id);
        this.threadsWithState.add(canonical(path.thread_id!));
        break;
      case 'createRun':
      case 'waitRun':
        this.applyRun(canonical(path.thread_id!), request.body, answer?.run_id);
        break;
      case 'deleteRun':
        this.runs.delete(canonical(path.run_id!));
        break;
      // A protocol command that started a run: run.start makes its thread, as a run with if_not_exists create does.
      case 'sendThreadCommand':
        if (answer?.type === 'success' && typeof answer.result?.run_id === 'string') {
          const params = request.body.params ?? {};
          this.applyRun(
            canonical(path.thread_id!),
            {
              assistant_id: params.assistant_id ?? this.threadAssistants.get(canonical(path.thread_id!)),
              input: params.input,
              multitask_strategy: params.multitask_strategy ?? params.multitaskStrategy ?? 'enqueue',
            },
            answer.result.run_id,
          );
        }
        break;
      case 'cancelRun':
        this.cancel([canonical(path.run_id!)], request.query?.action ?? 'interrupt');
        break;
      case 'cancelRuns': {
        const body = request.body;
        const ids =
          body.status === undefined
            ? body.run_ids.map(canonical)
            : [...this.runs].filter(([, run]) => run.inFlight && body.status !== 'running').map(([id]) => id);
        this.cancel(ids, request.query?.action ?? 'interrupt');
        break;
      }
      case 'createDeployment':
        this.deployments.set(answer.id, { deployment: answer, revisions: new Set([answer.latest_revision_id]) });
        break;
      case 'createCron':
      case 'createThreadCron':
        this.crons.set(answer.cron_id, { threadId: answer.thread_id, assistantId: answer.assistant_id });
        break;
      case 'deleteCron':
        this.crons.delete(canonical(path.cron_id!));
        break;
      case 'updateDeployment':
      case 'redeployRevision': {
        const record = this.deployments.get(answer.id)!;
        record.deployment = answer;
        record.revisions.add(answer.latest_revision_id);
        break;
      }
      case 'createRevision':
        this.deployments.get(canonical(path.deployment_id!))!.revisions.add(answer.id);
        break;
      case 'deleteDeployment':
        this.deployments.delete(canonical(path.deployment_id!));
        break;
      case 'createAssistant':
        if (!this.assistants.has(answer.assistant_id))
          this.assistants.set(answer.assistant_id, { graphId: answer.graph_id, versions: new Map([[1, answer.graph_id]]) });
        break;
      case 'updateAssistant': {
        const record = this.assistants.get(answer.assistant_id)!;
        record.graphId = answer.graph_id;
        record.versions.set(answer.version, answer.graph_id);
        break;
      }
      case 'setLatestAssistantVersion': {
        const record = this.assistants.get(answer.assistant_id)!;
        record.graphId = record.versions.get(answer.version)!;
        break;
      }
      // Its runs go with it; delete_threads deletes the threads whose metadata.assistant_id is the
      // assistant's: those its runs were the last to start on (a generated metadata value never
      // holds an assistant's ID).
      case 'deleteAssistant': {
        const assistantId = this.assistantIdOf(path.assistant_id!)!;
        this.assistants.delete(assistantId);
        for (const [runId, run] of this.runs) if (run.assistantId === assistantId) this.runs.delete(runId);
        for (const [cronId, cron] of this.crons) if (cron.assistantId === assistantId) this.crons.delete(cronId);
        if (request.query?.delete_threads === true)
          for (const [threadId, ofAssistant] of this.threadAssistants) if (ofAssistant === assistantId) this.forget(threadId);
        break;
      }
    }
  }

  /** A graph the deployment serves, with the ID of its default assistant (made at start-up). */
  serveGraph(graphId: string, defaultAssistantId: string): void {
    this.graphs.set(graphId, defaultAssistantId);
    this.assistants.set(defaultAssistantId, { graphId, versions: new Map([[1, graphId]]) });
  }

  /** The assistant ID a path names: a UUID, or a served graph's ID naming its default assistant. */
  private assistantIdOf(named: string): string | undefined {
    return UUID.test(named) ? canonical(named) : this.graphs.get(named);
  }

  private hasState(threadId: string): boolean {
    return (this.threads.get(threadId)?.size ?? 0) > 0 || this.threadsWithState.has(threadId);
  }

  private forget(threadId: string): void {
    this.threads.delete(threadId);
    this.threadsWithState.delete(threadId);
    this.threadAssistants.delete(threadId);
    for (const [runId, run] of this.runs) if (run.threadId === threadId) this.runs.delete(runId);
    for (const [cronId, cron] of this.crons) if (cron.threadId === threadId) this.crons.delete(cronId);
  }

  /** Whether the thread has a run that has not ended: a run waiting for its `after_seconds`, or queued behind one. */
  isBusy(threadId: string): boolean {
    for (const run of this.runs.values()) if (run.threadId === threadId && run.inFlight) return true;
    return false;
  }

  /** The assistant a run names (by its ID, or a served graph's ID), when it exists and its graph is served. */
  private runnableAssistant(name: string): string | undefined {
    const assistantId = this.assistantIdOf(name);
    const assistant = assistantId === undefined ? undefined : this.assistants.get(assistantId);
    return assistant && this.graphs.has(assistant.graphId) ? assistantId : undefined;
  }

  /** The run a path names, when it is on the path's thread. */
  private runOf(path: Record<string, string>): RunRecord | undefined {
    const run = this.runs.get(canonical(path.run_id!));
    return run?.threadId === canonical(path.thread_id!) ? run : undefined;
  }

  /**
   * A run accepted on a thread: it executes at once (the test's graph answers at once) unless it
   * waits for its `after_seconds` or, enqueued, for the runs in flight; a strategy that interrupts
   * or rolls back ends those first.
   */
  private applyRun(threadId: string, body: any, runId: string | undefined): void {
    if (!this.threads.has(threadId)) this.threads.set(threadId, new Set());
    const strategy = body.multitask_strategy ?? 'reject';
    const busy = this.isBusy(threadId);
    if (busy && (strategy === 'interrupt' || strategy === 'rollback'))
      this.cancel(
        [...this.runs].filter(([, run]) => run.threadId === threadId && run.inFlight).map(([id]) => id),
        strategy,
      );
    const inFlight = (body.after_seconds ?? 0) > 0 || (busy && strategy === 'enqueue');
    const writes = (body.input != null && !body.command) || body.command?.update != null || body.command?.goto !== undefined;
    if (!inFlight && writes) this.threadsWithState.add(threadId);
    const assistantId = this.runnableAssistant(body.assistant_id)!;
    // The thread's metadata.assistant_id becomes the run's, unless a run was in flight on it.
    if (!busy) this.threadAssistants.set(threadId, assistantId);
    if (runId) this.runs.set(runId, { threadId, assistantId, inFlight });
  }

  /** Runs cancelled: `interrupt` ends them, `rollback` deletes them. */
  private cancel(runIds: string[], action: 'interrupt' | 'rollback'): void {
    for (const runId of runIds) {
      const run = this.runs.get(runId);
      if (!run?.inFlight) continue;
      if (action === 'rollback') this.runs.delete(runId);
      else run.inFlight = false;
    }
  }

  /** Runs of a thread (its ended ones only, for a join that must not wait), for a request to name. */
  runsOf(threadId: string, options: { ended?: boolean } = {}): string[] {
    return [...this.runs].filter(([, run]) => run.threadId === threadId && !(options.ended && run.inFlight)).map(([id]) => id);
  }

  /** `resource_spec.min_scale` above `max_scale`, the left-out fields taken from `current` or the type's defaults. */
  private scaleRefusals(input: any, current: any): StatedRefusal[] {
    const type = input?.deployment_type ?? current?.deployment_type ?? 'dev';
    const spec =
      input?.resource_spec === undefined
        ? current?.resource_spec
        : input.resource_spec === null
          ? null
          : { ...this.resourceDefaults[type], ...input.resource_spec };
    return spec && spec.min_scale > spec.max_scale
      ? [{ example: 'MinScaleAboveMaxScale', loc: ['body', 'source_config', 'resource_spec', 'min_scale'] }]
      : [];
  }

  /** The rules of DeploymentUpdate's description, judged against the deployment as stored. */
  private updateRefusals(current: any, body: any): StatedRefusal[] {
    const refusals = secretRefusals(body.secrets);
    const requested = body.source_revision_config ?? {};
    const foreign = current.source === 'git_host' ? ['image_uri'] : ['repo_ref', 'graph_config_path'];
    for (const field of foreign) {
      if (requested[field] != null) refusals.push({ example: 'FieldOfAnotherSource', loc: ['body', 'source_revision_config', field] });
    }
    if (body.source_config) refusals.push(...this.scaleRefusals(body.source_config, current.source_config));
    const ref = requested.repo_ref ?? current.source_revision_config.repo_ref;
    const buildOnPush = body.source_config?.build_on_push ?? current.source_config.build_on_push;
    if (typeof ref === 'string' && ref.startsWith('refs/tags/') && buildOnPush) {
      refusals.push({
        example: 'TagRefWithBuildOnPush',
        loc:
          body.source_config?.build_on_push !== undefined
            ? ['body', 'source_config', 'build_on_push']
            : ['body', 'source_revision_config', 'repo_ref'],
      });
    }
    return refusals;
  }
}

/** The checkpoint a run body names, by any of its fields (a batch item's camelCase `checkpointId` too). */
function checkpointOf(body: any): string | undefined {
  return body.checkpoint_id ?? body.checkpoint?.checkpoint_id ?? (body.checkpoint_id === undefined ? body.checkpointId : undefined);
}

/** A cron's `timezone` that the IANA database (as Node.js knows it) does not have: CronCreate's and CronPatch's stated rule. */
function unknownTimeZone(body: any): Prediction | undefined {
  const timeZone = body?.timezone;
  if (typeof timeZone !== 'string') return undefined;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return undefined;
  } catch {
    return { status: 422, refusals: [{ example: 'UnknownTimezone', loc: ['body', 'timezone'] }] };
  }
}

/** A secret name listed again: refused at the repeat. */
function secretRefusals(secrets: { name: string }[] | undefined): StatedRefusal[] {
  const seen = new Set<string>();
  const refusals: StatedRefusal[] = [];
  (secrets ?? []).forEach((secret, i) => {
    if (seen.has(secret.name)) refusals.push({ example: 'RepeatedSecret', loc: ['body', 'secrets', i, 'name'] });
    seen.add(secret.name);
  });
  return refusals;
}

/** The named 422 examples of an operation, by name: each a list of issues. */
export function refusalExamples(api: ApiName, operation: ListedOperation): Map<string, { loc: unknown[]; type: string }[]> {
  const spec = SPECS[api].spec;
  const response = resolveRef(spec, operation.operation.responses?.['422'] ?? {});
  const examples = response?.content?.['application/json']?.examples ?? {};
  return new Map(Object.entries<any>(examples).map(([name, example]) => [name, resolveRef(spec, example).value.detail]));
}

/**
 * Whether `text` is a log cursor of the given direction as listRevisionLogs issues them: the
 * position of a line, `a:N` (oldest first) or `d:N` (newest first), base64url-encoded without
 * padding, spelt exactly as answered.
 */
function isLogCursor(text: string, direction: 'a' | 'd'): boolean {
  if (!/^[A-Za-z0-9_-]+$/.test(text)) return false;
  const decoded = Buffer.from(text, 'base64url').toString('latin1');
  return new RegExp(`^${direction}:(0|[1-9]\\d{0,8})$`).test(decoded) && Buffer.from(decoded).toString('base64url') === text;
}
