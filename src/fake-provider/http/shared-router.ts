import type { ParamIndexMap, Params, ParamStash, Result, Router } from 'hono/router';
import { RegExpRouter } from 'hono/router/reg-exp-router';
import { SmartRouter } from 'hono/router/smart-router';
import { TrieRouter } from 'hono/router/trie-router';

/**
 * Hono's default router (RegExp, Trie as fallback), built once per route table and shared by every app that adds
 * the same routes in the same order.
 *
 * An in-process run opens a provider per schedule (and per restart): each app adds the same ~90 routes with handlers
 * of its own. Building the default matcher per app costs more than a schedule's requests save, and matching linearly
 * costs ~25 µs a request; here the matcher maps a route's position in the table, the app its own handler at that
 * position. The same routes in the same order match as in any Hono router.
 */
const tables = new Map<string, Router<number>>();
/** Route tables kept: one per combination of modules and profiles a process runs, few in practice. */
const MAX_TABLES = 64;

function matcherFor(key: string, routes: ReadonlyArray<readonly [string, string]>): Router<number> {
  let m = tables.get(key);
  if (m) return m;
  m = new SmartRouter<number>({ routers: [new RegExpRouter(), new TrieRouter()] });
  for (let i = 0; i < routes.length; i++) m.add(routes[i]![0], routes[i]![1], i);
  if (tables.size >= MAX_TABLES) tables.delete(tables.keys().next().value!);
  tables.set(key, m);
  return m;
}

export class SharedTableRouter<T> implements Router<T> {
  name = 'SharedTableRouter';
  private readonly routes: Array<readonly [string, string]> = [];
  private readonly handlers: T[] = [];
  private key = '';
  private matcher: Router<number> | null = null;

  add(method: string, path: string, handler: T): void {
    this.routes.push([method, path]);
    this.handlers.push(handler);
    this.key += `${method} ${path}\n`;
    this.matcher = null;
  }

  match(method: string, path: string): Result<T> {
    this.matcher ??= matcherFor(this.key, this.routes);
    const [found, stash] = this.matcher.match(method, path) as [[number, ParamIndexMap | Params][], ParamStash?];
    const own = found.map(([i, params]) => [this.handlers[i]!, params] as [T, ParamIndexMap & Params]);
    return (stash ? [own, stash] : [own]) as Result<T>;
  }
}
