import type { ProviderCore } from '../core.js';
import type { ProviderModule } from '../module.js';
import { jobControl } from './control.js';
import { registerJobRoutes } from './routes.js';

/**
 * The jobs API (provider-api.md) as a provider module: routes and control additions here, the life cycle in
 * engine/, rows in store/. The provider-wide control API (reset, faults, journal, clock) is http/routes/control-routes.ts.
 */
export function createJobsModule(core: ProviderCore): ProviderModule {
  return {
    name: 'jobs',
    routes: (app) => registerJobRoutes(app, core),
    control: jobControl(core),
    tick: () => core.engine.tick(),
    reset: () => core.engine.reset(),
    close: () => core.engine.close(),
  };
}
