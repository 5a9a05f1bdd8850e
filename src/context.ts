import type { Config } from './config.js';
import type { Db } from './db.js';
import { Loaders } from './loaders.js';

/** What every resolver and REST handler gets for one request. Built fresh per request. */
export interface Context {
  config: Readonly<Config>;
  db: Db;
  requestId: string;
  loaders: Loaders;
}

export function createContext(config: Readonly<Config>, db: Db, requestId: string): Context {
  return { config, db, requestId, loaders: new Loaders() };
}
