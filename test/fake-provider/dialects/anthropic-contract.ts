/**
 * The official Anthropic SDK's types as a runtime check: `check('MessageBatch', body)` lists where a JSON body is
 * not a value of that type (a required property missing, a property the type does not have, a wrong primitive or
 * literal), [] if it is one. The types come from anthropic-types.ts through the TypeScript compiler, so the check
 * follows the installed SDK without a hand copy.
 */
import ts from 'typescript';

const FILE = new URL('./anthropic-types.ts', import.meta.url).pathname;

const program = ts.createProgram([FILE], {
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2022,
  strict: true,
  noEmit: true,
  skipLibCheck: true,
});
const checker = program.getTypeChecker();
const answers = (() => {
  const sf = program.getSourceFile(FILE)!;
  const decl = sf.statements.find((s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === 'AnthropicAnswers');
  return checker.getTypeAtLocation(decl!);
})();

function isEmptyObject(t: ts.Type): boolean {
  return (t.flags & ts.TypeFlags.Object) !== 0 && checker.getPropertiesOfType(t).length === 0 && !checker.getIndexInfosOfType(t).length;
}

function problems(value: unknown, t: ts.Type, path: string, depth = 0): string[] {
  if (depth > 40) return [];
  const f = t.flags;
  if (f & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return [];
  if (t.isUnion()) {
    const each = t.types.map((m) => problems(value, m, path, depth + 1));
    if (each.some((p) => p.length === 0)) return [];
    // Name the member the value's own `type` picks (a discriminated union), else the one with fewest problems.
    const wrongKind = (p: string[]) => (p.some((x) => x.startsWith(`${path}.type:`)) ? 1 : 0);
    return each.sort((a, b) => wrongKind(a) - wrongKind(b) || a.length - b.length)[0]!;
  }
  if (t.isIntersection()) return t.types.flatMap((m) => problems(value, m, path, depth + 1));
  const want = checker.typeToString(t);
  const bad = [`${path}: ${JSON.stringify(value)?.slice(0, 80)} is not ${want}`];
  if (t.isStringLiteral() || t.isNumberLiteral()) return value === t.value ? [] : bad;
  if (f & ts.TypeFlags.BooleanLiteral) return value === (want === 'true') ? [] : bad;
  if (f & ts.TypeFlags.Null) return value === null ? [] : bad;
  if (f & ts.TypeFlags.Undefined) return value === undefined ? [] : bad;
  if (f & ts.TypeFlags.String) return typeof value === 'string' ? [] : bad;
  if (f & ts.TypeFlags.Number) return typeof value === 'number' ? [] : bad;
  if (f & ts.TypeFlags.Boolean) return typeof value === 'boolean' ? [] : bad;
  if (isEmptyObject(t)) return value !== null && value !== undefined ? [] : bad; // `string & {}`
  if (checker.isArrayType(t)) {
    if (!Array.isArray(value)) return bad;
    const item = checker.getTypeArguments(t as ts.TypeReference)[0]!;
    return value.flatMap((v, i) => problems(v, item, `${path}[${i}]`, depth + 1));
  }
  if (f & ts.TypeFlags.Object) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return bad;
    const obj = value as Record<string, unknown>;
    const props = checker.getPropertiesOfType(t);
    const out: string[] = [];
    for (const p of props) {
      const v = obj[p.name];
      if (v === undefined) {
        if (!(p.flags & ts.SymbolFlags.Optional)) out.push(`${path}.${p.name}: missing (required by ${want})`);
        continue;
      }
      out.push(...problems(v, checker.getTypeOfSymbol(p), `${path}.${p.name}`, depth + 1));
    }
    if (!checker.getIndexInfosOfType(t).length) {
      const known = new Set(props.map((p) => p.name));
      for (const k of Object.keys(obj)) if (!known.has(k)) out.push(`${path}.${k}: not a property of ${want}`);
    }
    return out;
  }
  return [];
}

export type AnswerType = 'MessageBatch' | 'MessageBatchesPage' | 'DeletedMessageBatch' | 'MessageBatchIndividualResponse' | 'ErrorResponse';

export function check(name: AnswerType, body: unknown): string[] {
  const prop = answers.getProperty(name);
  if (!prop) throw new Error(`no ${name} in anthropic-types.ts`);
  return problems(body, checker.getTypeOfSymbol(prop), name);
}
