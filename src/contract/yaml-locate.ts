import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, type Node } from 'yaml';
import { pathKey, type Locations, type Position } from './json-locate.js';

/**
 * A YAML text read with the position of every value (and of the key naming it, for map members), in the same
 * path-keyed form as locateJson gives for JSON: so a YAML profile's errors name the line and column exactly as a JSON
 * one's do. YAML 1.2 core schema (`yes`/`no` stay strings), one document.
 */
export type YamlRead = { ok: true; value: unknown; locs: Locations } | { ok: false; at: Position; message: string };

export function readYaml(text: string): YamlRead {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: false, uniqueKeys: true });
  const at = (offset: number): Position => {
    const p = lc.linePos(offset);
    return { line: p.line, col: p.col };
  };
  const err = doc.errors[0];
  if (err) return { ok: false, at: at(err.pos[0]), message: err.message };
  const locs: Locations = new Map();
  const walk = (node: unknown, path: Array<string | number>): void => {
    if (!node || typeof node !== 'object') return;
    const range = (node as Node).range;
    if (range && !locs.has(pathKey(path))) locs.set(pathKey(path), at(range[0]));
    if (isMap(node)) {
      for (const pair of node.items) {
        if (!isPair(pair)) continue;
        const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
        // A member is located at its key: that is where a reader looks for it.
        const keyRange = (pair.key as Node | null)?.range;
        if (keyRange) locs.set(pathKey([...path, key]), at(keyRange[0]));
        walk(pair.value, [...path, key]);
      }
    } else if (isSeq(node)) {
      for (const [i, item] of node.items.entries()) walk(item, [...path, i]);
    }
  };
  walk(doc.contents, []);
  // An alias before its anchor, or aliases that multiply past reason (a "billion laughs"), are refused at 1:1.
  try {
    return { ok: true, value: doc.toJS({ maxAliasCount: 100 }), locs };
  } catch (e) {
    return { ok: false, at: { line: 1, col: 1 }, message: (e as Error).message };
  }
}
