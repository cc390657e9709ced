import { Layout } from './layout.js';

export interface FaultsPageProps {
  plan: { seed: number; rules: Array<Record<string, unknown>> };
  behavior: unknown;
  scenarios: string[];
  csrf: string;
  lastSeq: number;
  /** After a change: what happened, or why it was refused. */
  message?: { ok: boolean; text: string; form: string };
  /** The text the person submitted, kept when it was refused. */
  draft?: { plan?: string; behavior?: string };
}

/** Remembers the control token for this tab only (sessionStorage), so each form does not ask again. */
const TOKEN_SCRIPT = `
(function(){var k='jobproof-control-token',v=sessionStorage.getItem(k)||'';
document.querySelectorAll('input[name=control_token]').forEach(function(i){if(v&&!i.value)i.value=v;i.addEventListener('change',function(){sessionStorage.setItem(k,i.value);});});})();
`;

function Auth(props: { csrf: string }) {
  return (
    <>
      <input type="hidden" name="csrf" value={props.csrf} />
      <label>
        control token <input type="password" name="control_token" autocomplete="off" required />
      </label>
    </>
  );
}

function Msg(props: { m?: FaultsPageProps['message']; form: string }) {
  if (!props.m || props.m.form !== props.form) return null;
  return (
    <p class={props.m.ok ? 'okmsg' : 'err'} role={props.m.ok ? 'status' : 'alert'} id={`msg-${props.form}`}>
      {props.m.text}
    </p>
  );
}

export function FaultsPage(props: FaultsPageProps) {
  const rules = props.plan.rules;
  return (
    <Layout title="Faults & behaviour" tab="faults" lastSeq={props.lastSeq} script={TOKEN_SCRIPT}>
      <section>
        <h2>Current fault plan</h2>
        <p class="muted">
          seed {props.plan.seed}; {rules.length} rule{rules.length === 1 ? '' : 's'}
        </p>
        <table id="rules">
          <tr>
            <th>rule</th>
            <th>on</th>
            <th>when</th>
            <th>fault</th>
            <th>hits</th>
          </tr>
          {rules.map((r) => (
            <tr>
              <td class="mono">{String(r.id)}</td>
              <td>{String(r.on)}</td>
              <td class="mono">{JSON.stringify({ nth: r.nth, probability: r.probability, times: r.times })}</td>
              <td class="mono">{JSON.stringify(r.fault)}</td>
              <td class="hits">{String(r.hits ?? 0)}</td>
            </tr>
          ))}
        </table>
      </section>
      <section>
        <h2>Switch to a catalog scenario</h2>
        <form method="post" action="/_dashboard/faults/scenario" id="form-scenario">
          <select name="name" aria-label="scenario">
            {props.scenarios.map((s) => (
              <option value={s}>{s}</option>
            ))}
          </select>{' '}
          <Auth csrf={props.csrf} /> <button type="submit">switch</button>
        </form>
        <Msg m={props.message} form="scenario" />
        {props.scenarios.length === 0 ? <p class="muted">No catalog available to this provider.</p> : null}
      </section>
      <section>
        <h2>Edit the fault plan (JSON)</h2>
        <form method="post" action="/_dashboard/faults/plan" id="form-plan">
          <textarea name="json" rows={10}>
            {props.draft?.plan ?? JSON.stringify({ seed: props.plan.seed, rules: rules.map(({ hits: _h, ...r }) => r) }, null, 2)}
          </textarea>
          <Auth csrf={props.csrf} /> <button type="submit">install plan</button>
        </form>
        <Msg m={props.message} form="plan" />
      </section>
      <section>
        <h2>Edit the behaviour of new jobs (JSON)</h2>
        <form method="post" action="/_dashboard/faults/behavior" id="form-behavior">
          <textarea name="json" rows={10}>
            {props.draft?.behavior ?? JSON.stringify(props.behavior, null, 2)}
          </textarea>
          <Auth csrf={props.csrf} /> <button type="submit">save behaviour</button>
        </form>
        <Msg m={props.message} form="behavior" />
      </section>
      <section>
        <h2>Reset</h2>
        <form method="post" action="/_dashboard/faults/reset" id="form-reset">
          <Auth csrf={props.csrf} /> <button type="submit">forget every job, key, journal entry and fault</button>
        </form>
        <Msg m={props.message} form="reset" />
      </section>
    </Layout>
  );
}
