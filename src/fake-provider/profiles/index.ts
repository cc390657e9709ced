import type { Hono } from 'hono';
import type { Profile } from '../../contract/profiles.js';
import { profileJsonSchema } from '../../contract/profiles.js';
import type { ProviderCore } from '../core.js';
import type { Env } from '../http/context.js';
import { seam } from '../http/seam/index.js';
import type { ProviderModule } from '../module.js';
import type { ProfileDeps } from './answers.js';
import { cancelJob } from './cancel.js';
import { createJob, describeCreate } from './create.js';
import { profileMount } from './mount.js';
import { fetchResults, findJobs, readJob } from './read.js';
import { mountRoutes, type ProfileHandler, SEAM_ROUTE } from './router.js';
import { profileKind } from './view.js';
import { profileShaper } from './webhooks.js';

const RESERVED = /^\/(v1|openai|anthropic|_control|_dashboard|_profiles|openapi\.json)(\/|$)/;

function handlers(d: ProfileDeps): ProfileHandler[] {
  const { core, profile: p } = d;
  const describe = describeCreate(d);
  const out: ProfileHandler[] = [
    { route: p.create.route, mw: seam(core, SEAM_ROUTE.create, { describe, hold: true }), handle: (c) => createJob(d, c, describe) },
    { route: p.read.route, mw: seam(core, SEAM_ROUTE.read), handle: (c, id) => readJob(d, c, id!) },
  ];
  if (p.find) out.push({ route: p.find.route, mw: seam(core, SEAM_ROUTE.find), handle: (c) => findJobs(d, c) });
  if (p.cancel) {
    const route = 'route' in p.cancel ? p.cancel.route : p.cancel.unsupported.route;
    out.push({ route, mw: seam(core, SEAM_ROUTE.cancel), handle: (c, id) => cancelJob(d, c, id!) });
  }
  if (p.results.route) out.push({ route: p.results.route, mw: seam(core, SEAM_ROUTE.results), handle: (c, id) => fetchResults(d, c, id!) });
  return out;
}

let schemaText: string | undefined;

/** Profiles that cannot be served together (same name, overlapping or reserved prefixes). */
export class ProfileConflictError extends Error {}

/**
 * Every profile given to the provider (profiles.md), each under its prefix on the same engine, fault seam, journal
 * (its name as the dialect), tenants and behaviours as the native API. A profile job is an engine job of kind
 * `profile.<name>`; its view is rendered from the job at request time, so the module keeps no table of its own.
 * `GET /_profiles` lists them, `GET /_profiles/schema.json` is the profile JSON Schema.
 */
export function createProfilesModule(core: ProviderCore, profiles: readonly Profile[]): ProviderModule {
  const names = new Set<string>();
  for (const p of profiles) {
    if (names.has(p.name)) throw new ProfileConflictError(`two profiles are named '${p.name}'`);
    if (RESERVED.test(p.prefix))
      throw new ProfileConflictError(
        `profile '${p.name}': prefix ${p.prefix} is the provider's own; choose another (e.g. /profiles/${p.name})`,
      );
    const clash = profiles.find((o) => o !== p && (o.prefix === p.prefix || o.prefix.startsWith(`${p.prefix}/`)));
    if (clash) throw new ProfileConflictError(`profiles '${p.name}' and '${clash.name}' overlap at ${p.prefix}`);
    names.add(p.name);
  }
  return {
    name: 'profiles',
    webhookShapers: Object.fromEntries(profiles.filter((p) => p.webhooks).map((p) => [profileKind(p), profileShaper(core, p)])),
    mounts: profiles.map((p) => ({ prefix: p.prefix, mount: profileMount(p) })),
    routes: (app: Hono<Env>) => {
      app.get('/_profiles/schema.json', () => {
        schemaText ??= JSON.stringify(profileJsonSchema(), null, 2);
        return new Response(schemaText, { headers: { 'content-type': 'application/schema+json' } });
      });
      app.get('/_profiles', (c) =>
        Response.json({
          data: profiles.map((p) => ({ name: p.name, prefix: p.prefix, base_url: `${new URL(c.req.url).origin}${p.prefix}` })),
        }),
      );
      for (const p of profiles) mountRoutes(app, p.prefix, handlers({ core, profile: p }));
    },
    tick: () => undefined,
    reset: () => undefined,
    close: () => undefined,
  };
}
