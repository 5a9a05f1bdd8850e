import type { Db } from '../db/client.js';
import { anyOf, readSql } from '../db/sql.js';
import { MASTER_FIELDS, METRIC_FIELDS, type MasterRow, type MetricsRow, SearchEngine } from '../search/engine.js';
import type { Pause } from '../search/order.js';
import { AppError } from '../errors.js';
import { slicer } from '../runtime/slices.js';
import { Prisma, type Security } from '../../generated/prisma/client.js';
import { SEARCH_TYPES } from './security.js';

/**
 * The search engine of each database (search/engine.ts), kept current from the rows.
 *
 * Current: every search reads the master's version (one tiny statement) and is answered by the
 * engine at that version or later, except while the master is read whole (below). Triggers stamp
 * each row a transaction writes to "Security" or "SecurityMetrics" with the version it bumps, in
 * commit order (prisma/migrations/*_search_engine), so an engine at version v catches up by reading
 * the rows stamped above v: one changed security costs one short read and a few postings, however
 * often the master changes. A delete (a new epoch) or a change of more than a fiftieth of the master
 * reads it whole. One refresh at a time per database, shared by the searches that wait for it.
 *
 * Bounded by design: the engine takes about 2 KB of heap per security (bench/RESULTS.md), so a
 * master past MAX_INDEXED_SECURITIES is not held, and only identifier prefixes are searched (in SQL,
 * services/security.ts); text, filters, sorts and facets are then refused with a 503 naming the cap.
 *
 * Never holding the event loop: a refresh is work shared by every search, so it runs on the app's
 * Db under no one request's deadline, writes the rows in slices (runtime/slices.ts), and a search
 * waits for it only until its own deadline. While the whole master is read again, searches are
 * answered by the engine read before it, if it holds at most MAX_KEPT_WHILE_READING securities (two
 * masters in memory at once: twice its heap); a larger one is dropped first and searches wait.
 * Such an answer is stale: it says by how much (`staleMs`, the time since the engine was last seen
 * current; the header X-Search-Stale-Ms, docs/operations.md), and past MAX_STALE_MS searches wait
 * for the read (until their deadlines) rather than be answered staler.
 */
export const MAX_INDEXED_SECURITIES = 100_000;

/** The largest engine kept for searches while the master is read again: 2 x ~100 MB of heap at most (bench/RESULTS.md). */
export const MAX_KEPT_WHILE_READING = 50_000;

/**
 * How stale an answer may be while the master is read again whole: a 50,000-security master is read
 * and built in about 1-3 s on this machine under load (bench/RESULTS.md, search-build).
 */
export const MAX_STALE_MS = 5_000;

/** An engine, and how far behind the master its answers may be: 0 when it is current. */
export interface EngineAt {
  engine: SearchEngine;
  staleMs: number;
}

/** The columns an identifier prefix combined with text, a filter, a sort or facets is matched on. */
const PREFIX_COLUMNS: readonly string[] = [...new Set(Object.values(SEARCH_TYPES))];
const COLUMNS = [...new Set(['id', 'symbol', 'name', ...MASTER_FIELDS.map((f) => f.column), ...PREFIX_COLUMNS])];
const SELECT = Prisma.raw(COLUMNS.map((c) => `"${c}"`).join(', '));
const METRICS = Prisma.raw(['symbol', ...METRIC_FIELDS.map((f) => f.column)].map((c) => `"${c}"`).join(', '));
const STATE = Prisma.sql`SELECT "version", "metricsVersion", "epoch" FROM "SecurityMasterVersion" WHERE "id" = 1`;

export interface MasterState {
  version: bigint;
  metricsVersion: bigint;
  epoch: bigint;
}

interface EngineState {
  engine?: SearchEngine;
  /** The refresh in flight: one at a time per database. */
  refreshing?: Promise<void>;
  /** Whether the refresh in flight reads the master whole: `engine` (if any) answers meanwhile. */
  readingWhole?: boolean;
  /** Settles when the refresh in flight starts reading the master whole (or ends): a waiting search then takes `engine`. */
  wholeStarted?: Promise<void>;
  startedWhole?: () => void;
  /** The state of a master found too large to hold: not read again until it changes. */
  tooLarge?: MasterState;
  /** MAX_INDEXED_SECURITIES, or a test's smaller master's cap. */
  capacity: number;
  /** When `engine` was last seen current (performance.now()): a stale answer is this old. */
  currentAt?: number;
  /** MAX_STALE_MS, or a test's. */
  maxStaleMs?: number;
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
  if ((state.engine?.size ?? 0) > MAX_KEPT_WHILE_READING) state.engine = undefined;
  state.readingWhole = true;
  state.startedWhole?.();
  const [count] = await readSql<{ n: unknown }>(db, Prisma.sql`SELECT COUNT(*) AS "n" FROM "Security"`);
  if (Number(count?.n) > state.capacity) {
    state.engine = undefined;
    state.tooLarge = at;
    return;
  }
  const master = await readMaster(db);
  state.tooLarge = undefined;
  state.engine = await buildEngine(master, at);
}

/** Every security and every symbol's metrics, as the engine is built from them. */
export interface Master {
  rows: MasterRow[];
  metrics: MetricsRow[];
}

export async function readMaster(db: Db): Promise<Master> {
  const [rows, metrics] = await Promise.all([
    readSql<MasterRow>(db, Prisma.sql`SELECT ${SELECT} FROM "Security" ORDER BY "id"`),
    readSql<MetricsRow>(db, Prisma.sql`SELECT ${METRICS} FROM "SecurityMetrics"`),
  ]);
  return { rows, metrics };
}

/** The engine of `master` read at `at`, written in slices (runtime/slices.ts, by default) between turns of the event loop. */
export function buildEngine(master: Master, at: MasterState, pause: Pause = slicer()): Promise<SearchEngine> {
  return SearchEngine.build(PREFIX_COLUMNS, master.rows, master.metrics, at, pause);
}

/**
 * Brings the engine to the master as it is now: the rows stamped since its version, or the whole
 * master on a new epoch or a large change. The state is read first, so every row stamped up to it
 * is committed and read; a row stamped later may be read too, and is written again by the next
 * refresh (upserts are idempotent).
 */
async function refresh(db: Db, state: EngineState): Promise<void> {
  const readAt = performance.now();
  await catchUp(db, state);
  // the engine now holds every row committed before the state was read, which was after readAt
  state.currentAt = readAt;
}

async function catchUp(db: Db, state: EngineState): Promise<void> {
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
  await engine.setMetrics(metrics as never, at.metricsVersion, slicer());
  await engine.upsert(rows as never, at.version, slicer());
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

/**
 * Holds at most `capacity` securities of `db` in the engine from now on (tests use a small master);
 * drops the engine read so far. `maxStaleMs`: MAX_STALE_MS for `db`.
 */
export function setSearchCapacity(db: Db, capacity: number, maxStaleMs?: number): void {
  states.set(db.prisma, { capacity, maxStaleMs });
}

/**
 * The engine at the master's current version or later, or undefined for a master past
 * MAX_INDEXED_SECURITIES. One statement when it is current; else it waits for the refresh (until
 * `db`'s deadline). A search takes `engineFor`, which may answer stale meanwhile.
 */
export async function currentEngine(db: Db): Promise<SearchEngine | undefined> {
  return (await engineAt(db, false))?.engine;
}

/** The engine, or with `stale` while the master is read whole, the one before it (for at most MAX_STALE_MS). */
async function engineAt(db: Db, stale: boolean): Promise<EngineAt | undefined> {
  const state = stateOf(db);
  for (let attempt = 0; ; attempt++) {
    const checked = performance.now();
    const now = await masterState(db);
    if (!now)
      throw new AppError('SERVICE_UNAVAILABLE', 'search: the security master has no version row; run the migrations');
    if (state.engine && current(state.engine, now)) {
      state.currentAt = Math.max(state.currentAt ?? checked, checked);
      return { engine: state.engine, staleMs: 0 };
    }
    const large = state.tooLarge;
    if (large?.epoch === now.epoch && large.version === now.version && large.metricsVersion === now.metricsVersion)
      return undefined;
    if (!state.refreshing) {
      state.wholeStarted = new Promise<void>((resolve) => (state.startedWhole = resolve));
      state.refreshing = refresh(db.shared, state).finally(() => {
        state.refreshing = undefined;
        state.readingWhole = false;
        state.startedWhole?.();
      });
    }
    // at least 1: an answer behind the master says so, however soon after it moved
    const staleMs = Math.max(1, Math.ceil(performance.now() - (state.currentAt ?? Number.NEGATIVE_INFINITY)));
    if (stale && state.readingWhole && state.engine && staleMs <= (state.maxStaleMs ?? MAX_STALE_MS))
      return { engine: state.engine, staleMs };
    // a refresh started before `now` was read may end short of it: the second one cannot
    if (attempt >= 2) return state.engine && { engine: state.engine, staleMs };
    // until the refresh ends, or, when it reads the master whole, until it starts to: the engine before answers then
    await db.deadline.race(
      stale && state.engine && !state.readingWhole
        ? Promise.race([state.refreshing, state.wholeStarted])
        : state.refreshing,
      'index',
    );
  }
}

/**
 * The engine for a search, refused with a 503 naming the cap when the master is too large to hold
 * (what needs it: `what`). While the master is read whole, the engine read before, for at most
 * MAX_STALE_MS, with how stale it is.
 */
export async function engineFor(db: Db, what: string): Promise<EngineAt> {
  const at = await engineAt(db, true);
  if (at) return at;
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
