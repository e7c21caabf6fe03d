import type { DestinationStream } from 'pino';
import { systemClock, type Clock } from './clock.js';
import type { Config } from './config.js';
import type { AppContext } from './context.js';
import { openDatabase } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { createLogger } from './logging.js';
import { SecretBox } from './security/secret-box.js';
import { AccessTokens } from './security/tokens.js';
import { createFileStorage } from './storage/index.js';

export interface Runtime {
  ctx: AppContext;
  close(): Promise<void>;
}

/** Opens the database (migrated) and builds the shared services of one process. */
export async function createRuntime(
  config: Config,
  opts: { clock?: Clock; logDestination?: DestinationStream; migrate?: boolean } = {},
): Promise<Runtime> {
  const clock = opts.clock ?? systemClock;
  const log = createLogger(config.logLevel, opts.logDestination);
  const database = openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  if (opts.migrate !== false) await migrateToLatest(database.db);
  const ctx: AppContext = {
    config,
    db: database.db,
    dialect: database.dialect,
    clock,
    log,
    tokens: new AccessTokens(config.jwtSecret, () => clock.now()),
    secrets: new SecretBox(config.secretKey),
    storage: createFileStorage(config),
  };
  return {
    ctx,
    close: async () => {
      await database.close();
    },
  };
}
