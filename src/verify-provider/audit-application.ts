/**
 * Which audit events record the application of an approved task (tasks-api.md, "Audit"): event names are the
 * provider's own; the event that records an application carries the apply `Idempotency-Key` it came with. So the
 * application is recognised by the key — or by the event name a pilot plan gives (`audit.application_event`).
 */

type AuditEvent = Record<string, unknown>;

/** Whether `value` appears anywhere in the event (the spec fixes no field name for the key). */
export function carries(event: unknown, value: string): boolean {
  if (event === value) return true;
  if (event === null || typeof event !== 'object') return false;
  return Object.values(event as Record<string, unknown>).some((v) => carries(v, value));
}

export interface ApplicationReading {
  /** The events taken to record the application. */
  events: AuditEvent[];
  /** How they were recognised, for the evidence line. */
  how: string;
  /** What is wrong, or null: one logical application, under the key it was applied with. */
  fault: string | null;
}

/**
 * The application of a task applied under `appliedKey` and then asked again under `otherKeys` (each answered 409
 * already_applied). One logical application is one key: events recording it may repeat (a provider may log the
 * replay), but none may carry another key. Without a plan's name, the application events are those of the types that
 * carry the applied key and no other key's (a provider may log every apply request or refusal under its key: those
 * types occur under the other keys too).
 */
export function readApplication(
  events: readonly AuditEvent[],
  appliedKey: string,
  otherKeys: readonly string[],
  planName?: string,
): ApplicationReading {
  if (planName) {
    const named = events.filter((e) => e.type === planName);
    const how = `by the plan's event name '${planName}'`;
    if (!named.length) return { events: named, how, fault: `the audit shows no '${planName}' event (the plan's application event)` };
    const other = otherKeys.find((k) => named.some((e) => carries(e, k)));
    if (other) return { events: named, how, fault: `a '${planName}' event carries the other apply key ${other}: two logical applications` };
    if (!named.some((e) => carries(e, appliedKey)))
      return { events: named, how, fault: `no '${planName}' event carries the apply Idempotency-Key ${appliedKey}` };
    return { events: named, how, fault: null };
  }
  const mine = events.filter((e) => carries(e, appliedKey));
  const otherTypes = new Set(events.filter((e) => otherKeys.some((k) => carries(e, k))).map((e) => String(e.type)));
  const types = [...new Set(mine.map((e) => String(e.type)))].filter((t) => !otherTypes.has(t));
  const found = mine.filter((e) => types.includes(String(e.type)));
  const how = `by the apply key: ${types.length ? types.map((t) => `'${t}'`).join(', ') : 'no event type of its own'}`;
  if (types.length) return { events: found, how, fault: null };
  return {
    events: found,
    how,
    fault: mine.length
      ? `no audit event records the application under the apply key ${appliedKey} alone: each event carrying it is of a type also logged under the other key`
      : `no audit event carries the apply Idempotency-Key ${appliedKey} (tasks-api.md: the event that records an application carries it)`,
  };
}
