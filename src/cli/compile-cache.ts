import * as nodeModule from 'node:module';

/**
 * Keep V8's compiled code of the modules loaded from here on in Node's on-disk cache (Node ≥ 22.1; a no-op on 20,
 * whose `node:module` has no such call). certify starts the client ~90 times per catalog and most of a start is
 * compiling what it loads; the cache is Node's own (`os.tmpdir()/node-compile-cache`, checked against each file's
 * contents, off with NODE_DISABLE_COMPILE_CACHE=1). Call it before the entry's dynamic imports: modules already
 * loaded are not cached.
 */
export function enableCompileCache(): void {
  const enable = (nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache;
  if (typeof enable === 'function') enable();
}
