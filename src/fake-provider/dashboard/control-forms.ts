import type { z } from 'zod';
import type { ProviderControl } from '../control.js';
import { zodErrors } from '../http/body.js';

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

/** The changes the Faults page can make: the control API's own (control.ts), its validation, its words for a refusal. */
export function applyForm(control: ProviderControl, form: FormName, fields: Record<string, unknown>): FormOutcome {
  const json = typeof fields.json === 'string' ? fields.json : '';
  switch (form) {
    case 'scenario': {
      const name = typeof fields.name === 'string' ? fields.name : '';
      const switched = control.switchScenario(name);
      if (!switched) return { ok: false, status: 404, text: `no scenario named '${name}'` };
      return { ok: true, status: 200, text: `switched to scenario '${name}': ${switched.faults.rules.length} fault rule(s) installed` };
    }
    case 'plan': {
      const parsed = parseJson(json);
      if (!parsed.ok) return { ok: false, status: 400, text: parsed.text, draft: json };
      const installed = control.installFaults(parsed.value);
      if (!installed.ok) return { ok: false, status: 400, text: explain('fault plan', installed.error), draft: json };
      return { ok: true, status: 200, text: `fault plan installed: ${installed.value.rules.length} rule(s)` };
    }
    case 'behavior': {
      const parsed = parseJson(json);
      if (!parsed.ok) return { ok: false, status: 400, text: parsed.text, draft: json };
      const set = control.setBehavior(parsed.value);
      if (!set.ok) return { ok: false, status: 400, text: explain('behaviour', set.error), draft: json };
      return { ok: true, status: 200, text: 'behaviour saved; it applies to jobs created from now on' };
    }
    case 'reset':
      control.reset();
      return { ok: true, status: 200, text: 'provider reset: no jobs, keys, journal entries or faults' };
  }
}
