import type { Logger } from 'pino';
import type { WorkGate } from './security/work-gate.js';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { Db, Dialect } from './db/database.js';
import type { TaskEventBus } from './events/types.js';
import type { JobQueue } from './jobs/types.js';
import type { ProviderFactory } from './providers/factory.js';
import type { SecretBox } from './security/secret-box.js';
import type { AccessTokens } from './security/tokens.js';
import type { FileStorage } from './storage/types.js';

/**
 * The services a process shares: built once in main.ts (or by a test), handed to every module.
 * Modules never reach for globals; a test builds its own context with its own database.
 */
export interface AppContext {
  config: Config;
  db: Db;
  dialect: Dialect;
  clock: Clock;
  log: Logger;
  tokens: AccessTokens;
  secrets: SecretBox;
  storage: FileStorage;
  /** Task events: stored with a gap-free seq, fanned out to live streams (events/bus.ts). */
  events: TaskEventBus;
  /** Background work by id (jobs/): BullMQ with REDIS_URL, else the durable `jobs` table. */
  queue: JobQueue;
  /** Provider for a key's credentials: OpenAI-compatible presets or the offline `local` (providers/). */
  providers: ProviderFactory;
  /** Admission of login password checks (security/work-gate.ts). */
  logins: WorkGate;
}
