// A check as the runner knows it: its place in the report, the contract rule it enforces, the
// operations it calls (for --only/--skip), and the function that runs it against a session.
import type { CheckIdentity } from '../model.js';
import type { Verify } from '../verify.js';

export interface CheckDefinition<Session> extends CheckIdentity {
  /**
   * The deliberate difference from the LangGraph JS server the spec declares for this rule, if
   * any: the id of its "**Differs from the LangGraph JS server**" paragraph. A failure of this
   * check on that server is that difference (a unit test holds each id to the spec).
   */
  difference?: string;
  /**
   * Which findings are that difference: every one (the default: the whole check is the rule the
   * spec declares a difference on), or only those of the expectations the check marks
   * `{ differs: true }`, where the check also enforces rules no difference touches (the pages of
   * a search, besides its X-Pagination-Total).
   */
  differenceIn?: 'every finding' | 'marked findings';
  run(session: Session, verify: Verify): Promise<void>;
}
