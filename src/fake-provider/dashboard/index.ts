import type { Hono } from 'hono';
import type { ProviderControl } from '../control.js';
import type { ProviderCore } from '../core.js';
import type { Env } from '../http/context.js';
import { dashboardApp, type DashboardOptions } from './app.js';

export type { DashboardOptions } from './app.js';
export { dashboardApp } from './app.js';

/**
 * Mount the dashboard on the provider's app, ahead of its journal middleware: `/_dashboard/*` is answered by the
 * sub-app (never journalled, never faulted), and the exchange log records headers and bodies around every other route.
 */
export function mountDashboard(app: Hono<Env>, core: ProviderCore, control: ProviderControl, opts: DashboardOptions): void {
  const dash = dashboardApp(core, control, opts);
  app.use('*', dash.exchanges.middleware());
  app.route('/_dashboard', dash.app as unknown as Hono<Env>);
}
