import type { Db } from '../db/client.js';
import { anyOf, readSql } from '../db/sql.js';
import { MASTER_FIELDS, METRIC_FIELDS, SearchEngine } from '../search/engine.js';
import { AppError } from '../errors.js';
import { Prisma, type Security } from '../../generated/prisma/client.js';
import { SEARCH_TYPES } from './security.js';

/**
 * The search engine of each database (search/engine.ts), kept current from the rows.
 *
 * Never stale: every search reads the master's version (one tiny statement) and is answered by the
 * engine at that version or later. Triggers stamp each row a transaction writes to "Security" or
 * "SecurityMetrics" with the version it bumps, in commit order (prisma/migrations/*_search_engine),
 * so an engine at version v catches up by reading the rows stamped above v: one changed security
 * costs one short read and a few postings, however often the master changes. A delete (a new
 * epoch) or a change of more than a fiftieth of the master reads it whole. One refresh at a time per
 * database, shared by the searches that wait for it.
 *
 * Bounded by design: the engine takes about 2 KB of heap per security (bench/RESULTS.md), so a
 * master past MAX_INDEXED_SECURITIES is not held, and only identifier prefixes are searched (in SQL,
 * services/security.ts); text, filters, sorts and facets are then refused with a 503 naming the cap.
 */
export const MAX_INDEXED_SECURITIES = 100_000;

/** The columns an identifier prefix combined with text, a filter, a sort or facets is matched on. */
const PREFIX_COLUMNS: readonly string[] = [...new Set(Object.values(SEARCH_TYPES))];
const COLUMNS = [...new Set(['id', 'symbol', 'name', ...MASTER_FIELDS.map((f) => f.column), ...PREFIX_COLUMNS])];
const SELECT = Prisma.raw(COLUMNS.map((c) => `"${c}"`).join(', '));
const METRICS = Prisma.raw(['symbol', ...METRIC_FIELDS.map((f) => f.column)].map((c) => `"${c}"`).join(', '));
const STATE = Prisma.sql`SELECT "version", "metricsVersion", "epoch" FROM "SecurityMasterVersion" WHERE "id" = 1`;

interface MasterState {
  version: bigint;
  metricsVersion: bigint;
  epoch: bigint;
}

interface EngineState {
  engine?: SearchEngine;
  /** The refresh in flight: one at a time per database. */
  refreshing?: Promise<void>;
  /** The state of a master found too large to hold: not read again until it changes. */
  tooLarge?: MasterState;
  /** MAX_INDEXED_SECURITIES, or a test's smaller master's cap. */
  capacity: number;
}

// keyed by the Prisma client: one per database, whichever request's Db (Db.forRequest) asks
const states = new WeakMap<object, EngineState>();

async function masterState(db: Db): Promise<MasterState | undefined> {
  const [row] = await readSql<Record<keyof MasterState, bigint>>(db, STATE);
  return row && { version: BigInt(row.version), metricsVersion: BigInt(row.metricsVersion), epoch: BigInt(row.epoch) };
}

const current = (engine: SearchEngine, at: MasterState) =>
  engine.epoch === at.epoch && engine.version >= at.version && engine.metricsVersion >= at.metricsVersion;

async function readWhole(db: Db, state: EngineState, at: MasterState): Promise<void> {
  state.engine = undefined; // not two masters in memory at once: the searches wait for this read anyway
  const [count] = await readSql<{ n: unknown }>(db, Prisma.sql`SELECT COUNT(*) AS "n" FROM "Security"`);
  if (Number(count?.n) > state.capacity) {
    state.engine = undefined;
    state.tooLarge = at;
    return;
  }
  const [rows, metrics] = await Promise.all([
    readSql<Record<string, unknown>>(db, Prisma.sql`SELECT ${SELECT} FROM "Security" ORDER BY "id"`),
    readSql<Record<string, unknown>>(db, Prisma.sql`SELECT ${METRICS} FROM "SecurityMetrics"`),
  ]);
  state.tooLarge = undefined;
  state.engine = SearchEngine.build(PREFIX_COLUMNS, rows as never, metrics as never, at);
}

/**
 * Brings the engine to the master as it is now: the rows stamped since its version, or the whole
 * master on a new epoch or a large change. The state is read first, so every row stamped up to it
 * is committed and read; a row stamped later may be read too, and is written again by the next
 * refresh (upserts are idempotent).
 */
async function refresh(db: Db, state: EngineState): Promise<void> {
  const at = await masterState(db);
  if (!at)
    throw new AppError('SERVICE_UNAVAILABLE', 'search: the security master has no version row; run the migrations');
  const engine = state.engine;
  if (!engine || engine.epoch !== at.epoch) return readWhole(db, state, at);
  if (current(engine, at)) return;
  const [rows, metrics] = await Promise.all([
    engine.version < at.version
      ? readSql<Record<string, unknown>>(
          db,
          Prisma.sql`SELECT ${SELECT} FROM "Security" WHERE "rev" > ${engine.version}`,
        )
      : [],
    engine.metricsVersion < at.metricsVersion
      ? readSql<Record<string, unknown>>(
          db,
          Prisma.sql`SELECT ${METRICS} FROM "SecurityMetrics" WHERE "rev" > ${engine.metricsVersion}`,
        )
      : [],
  ]);
  if (rows.length > Math.max(200, engine.size / 50)) return readWhole(db, state, at);
  // metrics first: a security the rows bring in finds its symbol's metrics already there
  engine.setMetrics(metrics as never, at.metricsVersion);
  engine.upsert(rows as never, at.version);
}

function stateOf(db: Db): EngineState {
  let state = states.get(db.prisma);
  if (!state) states.set(db.prisma, (state = { capacity: MAX_INDEXED_SECURITIES }));
  return state;
}

/**
 * Drops the engine read from `db`'s master: the database was replaced under it (db/readiness.ts), and a
 * new master may have the old one's epoch and a version below it, which `current` would take for older.
 */
export function forgetSearchEngine(db: Db): void {
  const state = states.get(db.prisma);
  if (state) states.set(db.prisma, { capacity: state.capacity });
}

/** Holds at most `capacity` securities of `db` in the engine from now on (tests use a small master); drops the engine read so far. */
export function setSearchCapacity(db: Db, capacity: number): void {
  states.set(db.prisma, { capacity });
}

/**
 * The engine at the master's current version or later, or undefined for a master past
 * MAX_INDEXED_SECURITIES. One statement when it is current; else the search waits for the refresh.
 */
export async function currentEngine(db: Db): Promise<SearchEngine | undefined> {
  const state = stateOf(db);
  for (let attempt = 0; ; attempt++) {
    const now = await masterState(db);
    if (!now)
      throw new AppError('SERVICE_UNAVAILABLE', 'search: the security master has no version row; run the migrations');
    if (state.engine && current(state.engine, now)) return state.engine;
    const large = state.tooLarge;
    if (large?.epoch === now.epoch && large.version === now.version && large.metricsVersion === now.metricsVersion)
      return undefined;
    // a refresh started before `now` was read may end short of it: the second one cannot
    if (attempt >= 2) return state.engine;
    if (!state.refreshing) {
      state.refreshing = refresh(db, state).finally(() => {
        state.refreshing = undefined;
      });
    }
    await state.refreshing;
  }
}

/** The engine, refused with a 503 naming the cap when the master is too large to hold (what needs it: `what`). */
export async function engineFor(db: Db, what: string): Promise<SearchEngine> {
  const engine = await currentEngine(db);
  if (engine) return engine;
  throw new AppError(
    'SERVICE_UNAVAILABLE',
    `search: ${what} needs the security master in memory, which holds at most ${stateOf(db).capacity} securities; this master has more. Search by an identifier prefix alone (search_type + query), or split the master`,
  );
}

/** The rows of `ids`, in that order (one statement); an id deleted since the engine was read is left out. */
export async function securitiesInOrder(db: Db, ids: readonly string[]): Promise<Security[]> {
  if (ids.length === 0) return [];
  const rows = await readSql<Security>(db, Prisma.sql`SELECT * FROM "Security" WHERE ${anyOf('"id"', ids)}`);
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}
