import type { Pool } from 'pg';
import type { Db } from '../db/client.js';
import { Prisma } from '../../generated/prisma/client.js';
import { readSql } from '../db/sql.js';

/**
 * Exact counts of the security master for search (`found` and `out_of`), mostly without counting.
 *
 * Every REST search reports how many securities start with its query and how many there are. Over
 * 50,000 securities on PostgreSQL, `COUNT(*)` of a broad prefix (exchange_country `US`, figi `BBG0`:
 * every row; mic_code `XNAS`: 27,000) is an index-only scan of 9–15 ms, more than the search's p99
 * target of 10 ms, while a narrow prefix counts in well under a millisecond. So each process keeps
 * a summary of the master per Db: its size, and the count of every prefix of every search column
 * that at least PREFIX_COUNT_THRESHOLD securities start with. A prefix the summary leaves out
 * matches fewer, and counting it in SQL is cheap.
 *
 * Never stale: triggers bump SecurityMasterVersion in the same transaction as every write to
 * "Security", by any writer (an import in another process, raw SQL). A search reads the version
 * (one tiny statement beside its page) and uses the summary only when it was built at that very
 * version; otherwise it counts in SQL, and a new summary is built in the background.
 */
export const PREFIX_COUNT_THRESHOLD = 1000;

export interface MasterSummary {
  /** SecurityMasterVersion.version of the snapshot the summary was built from. */
  version: bigint;
  /** How many securities there are. */
  total: number;
  /** Per column: each prefix (whole code points) that at least the threshold of values start with, and how many do. */
  prefixes: ReadonlyMap<string, ReadonlyMap<string, number>>;
}

interface SummaryState {
  threshold: number;
  current?: MasterSummary;
  /** The build in flight: one at a time per Db, shared by whoever waits for it. */
  building?: Promise<MasterSummary>;
}

// keyed by the Prisma client: one state per database, whichever request's Db (Db.forRequest) asks
const states = new WeakMap<object, SummaryState>();

function stateOf(db: Db): SummaryState {
  let state = states.get(db.prisma);
  if (!state) states.set(db.prisma, (state = { threshold: PREFIX_COUNT_THRESHOLD }));
  return state;
}

/** Summarizes `db`'s master with another threshold from now on (tests use a small master); drops the summary built so far. */
export function setPrefixCountThreshold(db: Db, threshold: number): void {
  if (!Number.isSafeInteger(threshold) || threshold < 1) {
    throw new RangeError(`setPrefixCountThreshold: the threshold must be a positive integer, got ${threshold}`);
  }
  states.set(db.prisma, { threshold });
}

/** The summary last built for `db`, at whatever version (undefined before the first). */
export function lastSummary(db: Db): MasterSummary | undefined {
  return states.get(db.prisma)?.current;
}

const VERSION = Prisma.sql`SELECT "version" FROM "SecurityMasterVersion" WHERE "id" = 1`;

/** SecurityMasterVersion.version now (one statement): it changes with every write to "Security". Undefined without its row. */
export async function masterVersion(db: Db): Promise<bigint | undefined> {
  const [row] = await readSql<{ version: bigint }>(db, VERSION);
  return row === undefined ? undefined : BigInt(row.version);
}

/**
 * The summary of `columns` if it describes the master as it is now; undefined when none does (the
 * caller counts in SQL). One statement (the version). The first call on a Db waits for the first
 * summary; later calls never wait: one at an older version starts a rebuild in the background.
 */
export async function currentSummary(db: Db, columns: readonly string[]): Promise<MasterSummary | undefined> {
  const version = await masterVersion(db);
  if (version === undefined) return undefined; // no version row, no way to know a summary is current
  const state = stateOf(db);
  if (!state.current) await build(db, state, columns);
  else if (state.current.version < version && !state.building) build(db, state, columns).catch(() => {}); // the next search retries
  return state.current?.version === version ? state.current : undefined;
}

function build(db: Db, state: SummaryState, columns: readonly string[]): Promise<MasterSummary> {
  if (state.building) return state.building;
  const building = summarize(db, columns, state.threshold).then((summary) => {
    // one built from an older snapshot than the summary kept (a version read late) must not replace it
    if (!state.current || summary.version > state.current.version) state.current = summary;
    return summary;
  });
  state.building = building;
  const done = () => {
    if (state.building === building) state.building = undefined; // a failed build is not kept: the next caller starts another
  };
  building.then(done, done);
  return building;
}

interface Snapshot {
  version: bigint;
  total: number;
  /** Per column: how many non-null values, and them joined by SEPARATOR (null for none). */
  columns: { count: number; joined: string | null }[];
}

/**
 * Joins a column's values, so that they come as one string rather than 50,000 rows (no burst of
 * 50,000 row objects to collect). No identifier holds it; a column whose values do is left out of
 * the summary (counted in SQL).
 */
const SEPARATOR = '\x1f';

function joinedValues(column: string): string {
  // in the index's order: sorting again in JS is then cheap
  const ordered = `SELECT "${column}" AS "v" FROM "Security" WHERE "${column}" IS NOT NULL ORDER BY "${column}"`;
  return `SELECT COUNT("v") AS "n", string_agg("v", chr(31)) AS "joined" FROM (${ordered}) AS "s"`;
}

/** A build shares the event loop with live requests: it works in slices, between which they run. */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

async function summarize(db: Db, columns: readonly string[], threshold: number): Promise<MasterSummary> {
  await nextTurn(); // not inside the request that asked for the build
  const snapshot = await snapshotOf(db.driver.pool, columns);
  const prefixes = new Map<string, Map<string, number>>();
  for (let i = 0; i < columns.length; i++) {
    await nextTurn();
    const { count, joined } = snapshot.columns[i]!;
    const values = joined === null ? [] : joined.split(SEPARATOR);
    if (values.length !== count) continue;
    // the database's order is by code point only under a C-like collation; sort() is cheap on sorted input
    prefixes.set(columns[i]!, prefixCounts(values.sort(), threshold));
  }
  return { version: snapshot.version, total: snapshot.total, prefixes };
}

/** The version, the size and every value of `columns`, all in one snapshot (REPEATABLE READ). */
async function snapshotOf(pool: Pool, columns: readonly string[]): Promise<Snapshot> {
  const client = await pool.connect();
  let failure: Error | undefined;
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const [version] = (
      await client.query<{ v: string }>('SELECT "version"::text AS "v" FROM "SecurityMasterVersion" WHERE "id" = 1')
    ).rows;
    const [total] = (await client.query<{ n: string }>('SELECT COUNT(*)::text AS "n" FROM "Security"')).rows;
    const joined: Snapshot['columns'] = [];
    for (const c of columns) {
      const [row] = (await client.query<{ n: string; joined: string | null }>(joinedValues(c))).rows;
      joined.push({ count: Number(row!.n), joined: row!.joined });
    }
    await client.query('COMMIT');
    if (!version) throw new Error('summarizing the security master: SecurityMasterVersion has no row with id 1');
    return { version: BigInt(version.v), total: Number(total!.n), columns: joined };
  } catch (e) {
    failure = e instanceof Error ? e : new Error(String(e));
    await client.query('ROLLBACK').catch(() => {});
    throw e;
  } finally {
    client.release(failure); // a client that failed is not reused
  }
}

/**
 * Every prefix (of whole code points, as "starts with" means) that at least `threshold` of
 * `sorted` start with, and how many do. `sorted` must be in a lexicographic order (so that the
 * values sharing a prefix are adjacent) and well-formed UTF-16, as text read from the database is:
 * lengths 1, 2, … are counted as runs, each level only inside a run that reached the threshold
 * one level up.
 */
export function prefixCounts(sorted: readonly string[], threshold: number): Map<string, number> {
  const out = new Map<string, number>();
  // runs [from, to) whose values share their first `at` UTF-16 units
  const runs: [from: number, to: number, at: number][] = [[0, sorted.length, 0]];
  for (let run = runs.pop(); run; run = runs.pop()) {
    const [from, to, at] = run;
    let i = from;
    while (i < to && sorted[i]!.length <= at) i++; // values that end here (they sort first)
    while (i < to) {
      const cp = sorted[i]!.codePointAt(at)!;
      let j = i + 1;
      while (j < to && sorted[j]!.codePointAt(at) === cp) j++;
      if (j - i >= threshold) {
        const end = at + (cp > 0xffff ? 2 : 1);
        out.set(sorted[i]!.slice(0, end), j - i);
        runs.push([i, j, end]);
      }
      i = j;
    }
  }
  return out;
}
