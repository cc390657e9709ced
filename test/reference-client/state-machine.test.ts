import { describe, expect, it } from 'vitest';
import { ALLOWED_TRANSITIONS, FINAL_STATES, OperationStateSchema, type OperationState } from '../../src/contract/client-protocol.js';
import {
  canTransition,
  EVIDENCE_CLASS,
  EVIDENCE_KINDS,
  RefusedTransitionError,
  transition,
  TRANSITIONS,
} from '../../src/reference-client/state-machine.js';

const STATES = OperationStateSchema.options;
const FROMS: (OperationState | null)[] = [null, ...STATES];

describe('transition table', () => {
  it('every (from, to, evidence) triple is either allowed or refused with an error — exhaustively', () => {
    let allowed = 0;
    let refused = 0;
    for (const from of FROMS) {
      for (const to of STATES) {
        for (const ev of EVIDENCE_KINDS) {
          const inTable = (TRANSITIONS[from ?? 'null']?.[to] ?? []).includes(ev);
          expect(canTransition(from, to, ev)).toBe(inTable);
          if (inTable) {
            expect(transition(from, to, ev)).toEqual({ from, to, evidence: ev });
            allowed++;
          } else {
            expect(() => transition(from, to, ev)).toThrow(RefusedTransitionError);
            refused++;
          }
        }
      }
    }
    expect(allowed + refused).toBe(FROMS.length * STATES.length * EVIDENCE_KINDS.length);
    expect(allowed).toBeGreaterThan(40);
  });

  it('is a subset of the protocol-level ALLOWED_TRANSITIONS', () => {
    for (const from of FROMS) {
      for (const [to, kinds] of Object.entries(TRANSITIONS[from ?? 'null'] ?? {})) {
        if (!kinds?.length) continue;
        expect(ALLOWED_TRANSITIONS[from ?? 'null'], `${from} -> ${to}`).toContain(to);
      }
    }
  });

  it('gives final states no way out, whatever the evidence', () => {
    for (const f of FINAL_STATES) for (const to of STATES) for (const ev of EVIDENCE_KINDS) expect(canTransition(f, to, ev)).toBe(false);
  });

  it('uses only three classes of evidence', () => {
    expect(new Set(Object.values(EVIDENCE_CLASS))).toEqual(new Set(['answer', 'intent', 'deadline']));
  });

  it('lets nothing but a provider answer (or the absence of any create) end an operation cancelled', () => {
    for (const from of FROMS) {
      for (const ev of TRANSITIONS[from ?? 'null']?.cancelled ?? []) {
        if (EVIDENCE_CLASS[ev] !== 'answer') expect([from, ev]).toEqual(['create_pending', 'cancel_intent']);
      }
    }
  });

  it('lets only verified results end an operation succeeded', () => {
    for (const from of FROMS) {
      const kinds = TRANSITIONS[from ?? 'null']?.succeeded ?? [];
      if (kinds.length) expect([from, kinds]).toEqual(['result_collecting', ['results_verified']]);
    }
  });

  it('never lets a deadline produce succeeded, failed or cancelled', () => {
    for (const from of FROMS) {
      for (const to of ['succeeded', 'cancelled'] as const) {
        for (const ev of TRANSITIONS[from ?? 'null']?.[to] ?? []) expect(EVIDENCE_CLASS[ev]).not.toBe('deadline');
      }
      // The one deadline-to-failed edge: no create was ever sent, so no job can exist.
      for (const ev of TRANSITIONS[from ?? 'null']?.failed ?? [])
        if (EVIDENCE_CLASS[ev] === 'deadline') expect(from).toBe('create_pending');
    }
  });
});
