// Where a part of a config file stands in its text, so that each problem can name its line. The
// file is read again as a YAML document with source ranges (YAML 1.2 reads JSON too, so one reader
// serves both formats); a problem names its place by key path, either as parts (`['graphs', 'g',
// 'runs', 0]`, from the schema's errors) or as the text the graph checks write (`graphs.g.runs[0]`),
// whose keys may themselves hold dots, so the text is matched against the keys the file has.
import type { Document, LineCounter, Node as YamlNode } from 'yaml';

export type ConfigPath = readonly (string | number)[];

export interface SourcePosition {
  line: number;
  column: number;
}

/** The positions of a config file's keys and values. */
export interface ConfigSource {
  /** The position of the entry a path names (its key, for a key of a mapping), or of the deepest part of the path the file has. */
  positionOf(path: ConfigPath): SourcePosition | undefined;
  /** The same for a path as text (`graphs.my.graph.runs[0].steps[1]`), matched against the file's own keys. */
  positionOfText(pathText: string): SourcePosition | undefined;
}

type Yaml = typeof import('yaml');

/** Reads `text` (YAML or JSON) for positions; none when it does not parse (its syntax error says where). */
export function configSource(yaml: Yaml, text: string): ConfigSource | undefined {
  const lineCounter = new yaml.LineCounter();
  const document = yaml.parseDocument(text, { lineCounter, keepSourceTokens: false });
  if (document.errors.length > 0) return undefined;
  return {
    positionOf: (path) => position(lineCounter, walk(yaml, document, path)),
    positionOfText: (pathText) => position(lineCounter, walkText(yaml, document, pathText)),
  };
}

/** The line and column (from 1) of a YAML or JSON syntax error's offset in `text`. */
export function positionAt(text: string, offset: number): SourcePosition {
  const before = text.slice(0, Math.max(0, Math.min(offset, text.length)));
  const lines = before.split('\n');
  return { line: lines.length, column: lines.at(-1)!.length + 1 };
}

function position(lineCounter: LineCounter, node: YamlNode | undefined): SourcePosition | undefined {
  const offset = node?.range?.[0];
  if (offset === undefined) return undefined;
  const { line, col } = lineCounter.linePos(offset);
  return { line, column: col };
}

/** The node a path leads to: a mapping entry's key, a list's item; the deepest one the file has when the path goes further. */
function walk(yaml: Yaml, document: Document, path: ConfigPath): YamlNode | undefined {
  let here: unknown = document.contents;
  let found: YamlNode | undefined = document.contents ?? undefined;
  for (const part of path) {
    const next = child(yaml, here, part);
    if (!next) break;
    found = next.at;
    here = next.value;
  }
  return found;
}

/** A mapping's entry by key (positioned at its key) or a list's item. */
function child(yaml: Yaml, node: unknown, part: string | number): { at: YamlNode; value: unknown } | undefined {
  if (yaml.isMap(node)) {
    const pair = node.items.find((item) => yaml.isScalar(item.key) && String(item.key.value) === String(part));
    if (!pair) return undefined;
    return { at: (pair.key as YamlNode | null) ?? (pair.value as YamlNode), value: pair.value };
  }
  if (yaml.isSeq(node) && typeof part === 'number') {
    const item = node.items[part];
    return yaml.isNode(item) ? { at: item, value: item } : undefined;
  }
  return undefined;
}

/** The node a path written as text leads to, trying the file's longest keys first where a key holds dots. */
function walkText(yaml: Yaml, document: Document, pathText: string): YamlNode | undefined {
  let best: { node: YamlNode | undefined; rest: number } = { node: document.contents ?? undefined, rest: pathText.length };
  const visit = (node: unknown, at: YamlNode | undefined, rest: string): boolean => {
    if (rest.length < best.rest) best = { node: at, rest: rest.length };
    if (rest === '') return true;
    const index = /^\[(\d+)\]/.exec(rest);
    if (index) {
      const next = child(yaml, node, Number(index[1]));
      return next ? visit(next.value, next.at, rest.slice(index[0].length)) : false;
    }
    const text = rest.startsWith('.') ? rest.slice(1) : rest;
    if (!yaml.isMap(node)) return false;
    const keys = node.items
      .map((item) => (yaml.isScalar(item.key) ? String(item.key.value) : undefined))
      .filter((key): key is string => key !== undefined && text.startsWith(key) && /^($|[.[])/.test(text.slice(key.length)))
      .sort((a, b) => b.length - a.length);
    return keys.some((key) => {
      const next = child(yaml, node, key)!;
      return visit(next.value, next.at, text.slice(key.length));
    });
  };
  visit(document.contents, document.contents ?? undefined, pathText);
  return best.node;
}
