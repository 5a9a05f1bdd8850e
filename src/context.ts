import type { Db } from './db.js';
import type { Config } from './config.js';

/** What every resolver and REST handler gets for one request. Built fresh per request. */
export interface Context {
  config: Readonly<Config>;
  db: Db;
  requestId: string;
}
