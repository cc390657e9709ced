import type { TestProject } from 'vitest/node';
import { startCluster, type PgCluster } from '../helpers/pg-cluster.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** URL of the PostgreSQL server the tests use, or 'skip' when told to skip them (JOBPROOF_TEST_PG=skip). */
    pgUrl: string;
  }
}

/**
 * The PostgreSQL store is the product, so its tests run against a real server: JOBPROOF_TEST_PG when given (CI or a
 * developer's own server), else a throw-away cluster started here and stopped after the run. Missing binaries fail
 * the run with how to install them: a green run must mean PostgreSQL was tested. Skipping is explicit
 * (JOBPROOF_TEST_PG=skip) and loud.
 */
let cluster: PgCluster | null = null;

export async function setup(project: TestProject): Promise<void> {
  const given = process.env.JOBPROOF_TEST_PG;
  if (given === 'skip') {
    process.stderr.write('\n*** JOBPROOF_TEST_PG=skip: the PostgreSQL store tests are SKIPPED. Not a full test run. ***\n\n');
    project.provide('pgUrl', 'skip');
    return;
  }
  if (given) {
    project.provide('pgUrl', given);
    return;
  }
  cluster = await startCluster();
  project.provide('pgUrl', cluster.url);
}

export async function teardown(): Promise<void> {
  cluster?.destroy();
  cluster = null;
}
