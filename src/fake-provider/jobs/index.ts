import type { ProviderCore } from '../core.js';
import type { ProviderModule } from '../module.js';
import { registerJobRoutes } from './routes.js';

/**
 * The jobs API (provider-api.md) as a provider module: routes here, the life cycle in engine/, rows in store/.
 * Its control API (faults, behaviour, journal, clock) is the provider's own, in http/routes/control-routes.ts.
 */
export function createJobsModule(core: ProviderCore): ProviderModule {
  return {
    name: 'jobs',
    routes: (app) => registerJobRoutes(app, core),
    tick: () => core.engine.tick(),
    reset: () => {
      for (const t of ['jobs', 'webhook_events']) core.db.prepare(`DELETE FROM ${t}`).run();
      core.engine.reschedule();
    },
    close: () => core.engine.close(),
  };
}
