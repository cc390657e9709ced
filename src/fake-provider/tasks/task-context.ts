import type { Db } from '../store/database.js';
import type { ObjectsRepo } from './objects-repo.js';
import type { TaskLog } from './task-log.js';
import type { TasksRepo } from './tasks-repo.js';

/** What the parts of the task service share: the store, its repos, the log of changes and the provider's now. */
export interface TaskContext {
  db: Db;
  tasks: TasksRepo;
  objects: ObjectsRepo;
  log: TaskLog;
  now(): number;
}
