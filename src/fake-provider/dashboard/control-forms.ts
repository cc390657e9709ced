import { z } from 'zod';
import type { ProviderCore } from '../core.js';
import { zodErrors } from '../http/body.js';
import { parseBehaviorConfig, type BehaviorConfigInput } from '../../contract/behavior.js';
import { FaultPlanSchema, type FaultPlanInput } from '../../contract/faults.js';

export type ScenarioLookup = (name: string) => { behavior: BehaviorConfigInput; faults: FaultPlanInput } | undefined;
export type FormName = 'scenario' | 'plan' | 'behavior' | 'reset';
export interface FormOutcome {
  ok: boolean;
  status: number;
  text: string;
  /** The submitted JSON, kept on the page when it was refused. */
  draft?: string;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false; text: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    return { ok: false, text: `not valid JSON: ${(err as Error).message}` };
  }
}

const explain = (what: string, err: z.ZodError) =>
  `invalid ${what}:\n${zodErrors(err)
    .map((e) => `  ${e.path}: ${e.message}`)
    .join('\n')}`;

/** The changes the Faults page can make, with the same validation as the control API (control-routes.ts). */
export function applyForm(
  core: ProviderCore,
  lookup: ScenarioLookup | undefined,
  form: FormName,
  fields: Record<string, unknown>,
): FormOutcome {
  const json = typeof fields.json === 'string' ? fields.json : '';
  switch (form) {
    case 'scenario': {
      const name = typeof fields.name === 'string' ? fields.name : '';
      const s = lookup?.(name);
      if (!s) return { ok: false, status: 404, text: `no scenario named '${name}'` };
      core.behaviors.set(parseBehaviorConfig(s.behavior));
      core.faults.install(s.faults);
      return {
        ok: true,
        status: 200,
        text: `switched to scenario '${name}': ${core.faults.describe().rules.length} fault rule(s) installed`,
      };
    }
    case 'plan': {
      const parsed = parseJson(json);
      if (!parsed.ok) return { ok: false, status: 400, text: parsed.text, draft: json };
      const plan = FaultPlanSchema.safeParse(parsed.value);
      if (!plan.success) return { ok: false, status: 400, text: explain('fault plan', plan.error), draft: json };
      core.faults.install(plan.data);
      return { ok: true, status: 200, text: `fault plan installed: ${plan.data.rules.length} rule(s)` };
    }
    case 'behavior': {
      const parsed = parseJson(json);
      if (!parsed.ok) return { ok: false, status: 400, text: parsed.text, draft: json };
      try {
        core.behaviors.set(parseBehaviorConfig(parsed.value));
      } catch (err) {
        if (err instanceof z.ZodError) return { ok: false, status: 400, text: explain('behaviour', err), draft: json };
        throw err;
      }
      return { ok: true, status: 200, text: 'behaviour saved; it applies to jobs created from now on' };
    }
    case 'reset':
      core.reset();
      return { ok: true, status: 200, text: 'provider reset: no jobs, keys, journal entries or faults' };
  }
}
