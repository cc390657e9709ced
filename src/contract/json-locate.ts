/**
 * Where each value of a JSON text sits (line and column, 1-based), by its path of keys and indices: so a profile's
 * errors can name the line to mend. A small parser of its own because JSON.parse keeps no positions; it is only run
 * on text JSON.parse has accepted.
 */
export interface Position {
  line: number;
  col: number;
}

export type Locations = Map<string, Position>;

export function pathKey(path: ReadonlyArray<string | number>): string {
  return JSON.stringify(path.map(String));
}

/** Line and column of a character offset. */
export function positionOf(text: string, offset: number): Position {
  let line = 1;
  let col = 1;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text[i] === '\n') {
      line++;
      col = 1;
    } else col++;
  }
  return { line, col };
}

/** The position of every value (and of the key naming it, for object members) of a valid JSON text. */
export function locateJson(text: string): Locations {
  const out: Locations = new Map();
  let i = 0;
  const ws = () => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  const str = (): string => {
    const start = i;
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const value = (path: Array<string | number>): void => {
    ws();
    if (!out.has(pathKey(path))) out.set(pathKey(path), positionOf(text, i));
    const ch = text[i];
    if (ch === '{') {
      i++;
      ws();
      while (text[i] !== '}' && i < text.length) {
        ws();
        const keyAt = i;
        const key = str();
        // A member is located at its key: that is where a reader looks for it.
        out.set(pathKey([...path, key]), positionOf(text, keyAt));
        ws();
        i++; // :
        value([...path, key]);
        ws();
        if (text[i] === ',') i++;
        ws();
      }
      i++;
    } else if (ch === '[') {
      i++;
      let n = 0;
      ws();
      while (text[i] !== ']' && i < text.length) {
        value([...path, n++]);
        ws();
        if (text[i] === ',') i++;
        ws();
      }
      i++;
    } else if (ch === '"') str();
    else while (i < text.length && /[^\s,\]}]/.test(text[i]!)) i++;
  };
  value([]);
  return out;
}

/** The nearest located ancestor of `path` (a missing member is reported where its object is). */
export function nearest(locs: Locations, path: ReadonlyArray<string | number>): Position {
  for (let n = path.length; n >= 0; n--) {
    const p = locs.get(pathKey(path.slice(0, n)));
    if (p) return p;
  }
  return { line: 1, col: 1 };
}
