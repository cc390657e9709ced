import { z } from 'zod';

/**
 * A drafted profile (`jobproof profile init --from openapi.yaml`) carries the guesses its drafter could not make
 * from the document in one top-level list. Each names the field it guessed; the checker refuses the profile, with
 * each guess at that field's line, until a person has confirmed (or mended) the field and deleted the entry — so a
 * draft can never be served or certified as if someone had read it.
 */
export const CONFIRM_KEY = 'x-jobproof-confirm';

export const ConfirmEntrySchema = z.strictObject({
  /** The dotted path of the guessed field (`state.values.TIMEOUT_EXCEEDED`). */
  path: z.string().min(1),
  /** What was guessed, as a sentence. */
  guess: z.string().min(1),
  /** Why it is a guess: what the document did not say. */
  why: z.string().min(1),
});
export type ConfirmEntry = z.output<typeof ConfirmEntrySchema>;

export interface Unconfirmed {
  /** Where to point the person: the guessed field's path, split on dots. */
  at: string[];
  message: string;
  fix: string;
}

/** The profile without its confirmation list, and one refusal per entry still in it. */
export function takeConfirmations(raw: unknown): { rest: unknown; unconfirmed: Unconfirmed[] } {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw) || !(CONFIRM_KEY in raw)) return { rest: raw, unconfirmed: [] };
  const { [CONFIRM_KEY]: list, ...rest } = raw as Record<string, unknown>;
  const parsed = z.array(ConfirmEntrySchema).safeParse(list);
  if (!parsed.success)
    return {
      rest,
      unconfirmed: [
        {
          at: [CONFIRM_KEY],
          message: `${CONFIRM_KEY} is not a list of {path, guess, why}`,
          fix: `confirm the draft's guesses and delete ${CONFIRM_KEY}`,
        },
      ],
    };
  const unconfirmed = parsed.data.map((e) => ({
    at: e.path.split('.'),
    message: `unconfirmed guess: ${e.guess} (${e.why})`,
    fix: `check ${e.path} against the API's reference, mend it if the guess is wrong, then delete this entry from ${CONFIRM_KEY}`,
  }));
  return { rest, unconfirmed };
}
