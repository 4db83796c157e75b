// What a conformance run is made of: checks, their results and the report, as runConformance
// returns them and the CLI, the JSON output and the JUnit file show them.

/** The two APIs a run can check. */
export type ApiName = 'agent-server' | 'control-plane';

/** A check's verdict. `not served`: the server does not serve an operation the check needs (a 404 or 405 for a route of the spec). */
export type Verdict = 'pass' | 'fail' | 'not served' | 'skipped';

/** One thing a server got wrong. */
export interface Finding {
  message: string;
  /** The operation whose answer showed it. */
  operationId?: string;
  /** Where the spec states the rule broken (a JSON pointer into the bundled spec). */
  pointer?: string;
  /**
   * Set when the spec declares that the LangGraph JS server differs on purpose on the rule this
   * finding breaks: the id of that paragraph ("**Differs from the LangGraph JS server** (`id`)").
   * On that server the finding is that known difference; on any other server it is a failure
   * like any other, the id only saying where the spec discusses the rule.
   */
  langGraphDifference?: string;
}

/** What names a check, wherever it shows: its definition, the catalogue, a result. */
export interface CheckIdentity {
  /** Stable id: `schema:getThread`, `threads:create-supersteps`. */
  id: string;
  api: ApiName;
  /** The summary table's first column: `schema`, `threads`, `state`, `history`, `search`, `errors`, `deployments`. */
  area: string;
  /** What is checked, in one line. */
  title: string;
  /** The rule of the contract the check enforces: the spec operation and field, or the decision record entry (`getThread: 200 Thread.values (decision A8)`). */
  rule: string;
  /** The operations the check calls, the one it is about first. */
  operations: string[];
}

export interface CheckResult extends CheckIdentity {
  verdict: Verdict;
  findings: Finding[];
  /**
   * The ids of the spec's "Differs from the LangGraph JS server" paragraphs on the rules its
   * findings break (or on the operation it found not served), as in `Finding.langGraphDifference`.
   */
  langGraphDifferences: string[];
  /** Why it was skipped or not served. */
  note?: string;
  durationMs: number;
}

export interface ConformanceReport {
  /** The spec versions the answers were checked against (the bundled specs of this package's version). */
  specs: Partial<Record<ApiName, string>>;
  targets: Partial<Record<ApiName, string>>;
  startedAt: string;
  durationMs: number;
  results: CheckResult[];
  /** True when every check of a served operation passed (skipped and not served do not count against it). */
  ok: boolean;
  counts: Record<Verdict, number>;
  /** The run's id: the value of the `agentplane_conformance_run` metadata key of every thread it created. */
  runId: string;
  /** What the run created and removed again. */
  cleanup: { created: number; deleted: number; failures: string[] };
  /** The 429 answers the run waited out (as Retry-After said) instead of counting them as failures. */
  rateLimited: { answers: number; waitedMs: number };
  /** Set when the run was interrupted (its checks after that point are skipped). */
  interrupted?: boolean;
}

/** A 429 answer the run waits out, as progress reports it. */
export interface RateLimitWait {
  api: ApiName;
  operationId: string;
  /** How long the run waits before it sends the request again (Retry-After, or a backoff without one). */
  waitMs: number;
}
