// openapi-fetch's `pathSerializer` option, answering exactly what its `defaultPathSerializer`
// answers, with less work for the paths these APIs have.
//
// Why: the default runs a global regex over the whole URL and a `String.replace` per parameter
// on every call; in the client benchmark that was about a fifth of the client's own per-request
// cost. This one walks the URL once with `indexOf` and builds the result in one pass.
//
// Same answers: `{name}` parameters in the default ("simple") style whose value is a string,
// number or boolean become `encodeURIComponent(value)`; a parameter without a value (undefined or
// null) stays as written. Everything else, where the default has more to say (label `{.name}`,
// matrix `{;name}` and exploded `{name*}` styles, array or object values, braces inside a
// name, an empty `{}`), is handed to `defaultPathSerializer` itself.
import { defaultPathSerializer } from 'openapi-fetch';

export function pathSerializer(pathname: string, pathParams: Record<string, unknown>): string {
  let result = '';
  let copied = 0; // pathname[0, copied) is in result
  for (let open = pathname.indexOf('{'); open !== -1; ) {
    const close = pathname.indexOf('}', open + 1);
    if (close === -1) break;
    const name = pathname.slice(open + 1, close);
    const first = name.charCodeAt(0);
    // '.' label, ';' matrix, '*' explode, '{' nested: the default's cases (an empty name too).
    if (name === '' || first === 0x2e || first === 0x3b || name.charCodeAt(name.length - 1) === 0x2a || name.includes('{')) {
      return defaultPathSerializer(pathname, pathParams);
    }
    const value = pathParams[name];
    if (value !== undefined && value !== null) {
      if (typeof value === 'object') return defaultPathSerializer(pathname, pathParams);
      result += pathname.slice(copied, open) + encodeURIComponent(value as string | number | boolean);
      copied = close + 1;
    }
    open = pathname.indexOf('{', close + 1);
  }
  return copied === 0 ? pathname : result + pathname.slice(copied);
}
