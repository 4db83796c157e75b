// What a state read's `select` keeps (the spec's ThreadStateSelect, the LangGraph SDK's `select` of
// getState and getHistory): of the state's values, every key when `values` is selected, the keys
// named by `values.<key>` otherwise, and none when it names neither. The state's other fields are
// always answered, so that every answer is still a ThreadState.
import type { ThreadState } from '@agentplane/agent-server';

type Values = Record<string, unknown>;

const VALUES_KEY = 'values.';

/** The state with only the selected keys of its values; the state itself without `select`. */
export function withSelectedValues(state: ThreadState, select: readonly string[] | undefined): ThreadState {
  if (select === undefined || select.includes('values')) return state;
  const wanted = new Set(select.filter((name) => name.startsWith(VALUES_KEY)).map((name) => name.slice(VALUES_KEY.length)));
  // In the state's own key order, whatever the order of `select`.
  const values: Values = {};
  for (const [key, value] of Object.entries(state.values as Values)) if (wanted.has(key)) values[key] = value;
  return { ...state, values };
}
