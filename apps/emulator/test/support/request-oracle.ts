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

interface AssistantRecord {
  /** The graph of its current version. */
  graphId: string;
  /** Each version's graph, by version number. */
  versions: Map<number, string>;
}

const canonical = (id: string) => id.replace(/^urn:uuid:/i, '').toLowerCase();
const UUID = /^(urn:uuid:)?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

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
  private readonly resourceDefaults = SPECS['control-plane'].spec.components.schemas.DeploymentType['x-resource-defaults'];

  predict(request: ParsedRequest): Prediction {
    const { operation, path, body } = request;
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
        return { status: 200 };
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
        return { status: thread && (target === undefined || thread.has(canonical(target))) ? 200 : 404 };
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
        return { status: deployment?.revisions.has(canonical(path.revision_id!)) ? 200 : 404 };
      case 'updateDeployment': {
        if (!deployment) return { status: 404 };
        const refusals = this.updateRefusals(deployment.deployment, body);
        return refusals.length ? { status: 422, refusals } : { status: 200 };
      }
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
      case 'createDeployment':
        this.deployments.set(answer.id, { deployment: answer, revisions: new Set([answer.latest_revision_id]) });
        break;
      case 'updateDeployment': {
        const record = this.deployments.get(answer.id)!;
        record.deployment = answer;
        record.revisions.add(answer.latest_revision_id);
        break;
      }
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
      // delete_threads deletes the threads whose metadata.assistant_id is the assistant's: the
      // model does not follow thread metadata, and a generated one never holds an assistant's ID.
      case 'deleteAssistant':
        this.assistants.delete(this.assistantIdOf(path.assistant_id!)!);
        break;
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
