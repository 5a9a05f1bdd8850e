import type { Db } from '../db/client.js';
import { Prisma, type PressReleaseSecurity, type PressReleaseTicker } from '../../generated/prisma/client.js';
import {
  keysetPage,
  seekOf,
  toPage,
  type KeysetArgs,
  type Ordering,
  type Page,
  type SortedList,
} from '../db/keyset.js';
import { numberedPage, type NumberedPage, type PageNumberArgs } from '../db/page-number.js';
import { anyOf, childRows, keyedConditions, orderOn, readSql } from '../db/sql.js';
import { selectColumns, type TreeLevel } from '../db/tree.js';
import {
  advanceSerial,
  changedFields,
  claimIds,
  insertRows,
  jsonInput,
  sameChildren,
  sameFields,
  LOAD_CHUNK,
  writeBatchWithInserted,
  type Tx,
} from '../db/upsert.js';
import type { WriteCounts } from '../db/upsert.js';

/** Every read of a press release loads its tickers and securities with it, in feed order. */
export const PRESS_RELEASE_INCLUDE = {
  tickers: { orderBy: { position: 'asc' } },
  securities: { orderBy: { position: 'asc' } },
} as const satisfies Prisma.PressReleaseInclude;

export type PressRelease = Prisma.PressReleaseGetPayload<{ include: typeof PRESS_RELEASE_INCLUDE }>;
export type { PressReleaseSecurity };

/** Inclusive bounds on the publish time; each optional. */
export interface PublishTimeRange {
  from?: Date | undefined;
  to?: Date | undefined;
}

export interface PressReleaseFilter extends PublishTimeRange {
  /** Releases naming any of these tickers (upper case, as stored). */
  tickers?: readonly string[] | undefined;
}

/** Newest first: (publishTime, id) descending. */
const ORDERING: Ordering<PressRelease> = {
  tag: 'pressRelease',
  columns: [
    { column: 'publishTime', type: 'date', of: (r) => r.publishTime },
    { column: 'id', type: 'int', of: (r) => r.id },
  ],
};

/** The publish-time conditions (a column no joined table shares), for every list of releases. */
function rangeConditions(range: PublishTimeRange): Prisma.Sql[] {
  const out: Prisma.Sql[] = [];
  if (range.from) out.push(Prisma.sql`"publishTime" >= ${range.from}`);
  if (range.to) out.push(Prisma.sql`"publishTime" <= ${range.to}`);
  return out;
}

function pressReleaseList(db: Db, filter: PressReleaseFilter): SortedList<PressRelease> {
  const filters = rangeConditions(filter);
  if (filter.tickers) {
    filters.push(
      Prisma.sql`EXISTS (SELECT 1 FROM "PressReleaseTicker" t WHERE t."pressReleaseId" = "PressRelease"."id" AND ${anyOf('t."ticker"', filter.tickers)})`,
    );
  }
  return {
    table: 'PressRelease',
    ordering: ORDERING,
    direction: 'desc',
    filters,
    complete: (rows) =>
      withChildren(
        db,
        rows.map((r) => r.id as number),
        rows as ReleaseRow[],
      ),
  };
}

/** One keyset page of the releases matching `filter`, newest first, with a lazy total count. */
export function pressReleasePage(db: Db, filter: PressReleaseFilter, args: KeysetArgs): Promise<Page<PressRelease>> {
  return keysetPage(db, pressReleaseList(db, filter), args);
}

/** Page `page` of the releases matching `filter`, in the order of `pressReleasePage`, and their number. */
export function pressReleaseAtPage(
  db: Db,
  filter: PressReleaseFilter,
  args: PageNumberArgs,
): Promise<NumberedPage<PressRelease>> {
  return numberedPage(db, pressReleaseList(db, filter), args);
}

/**
 * One page per ticker, the same arguments for each, in a constant number of statements: one
 * small `ORDER BY ... LIMIT` join per ticker finds the ids (one statement), pressReleasesByIds loads them.
 */
export async function pressReleasePages(
  db: Db,
  tickers: readonly string[],
  range: PublishTimeRange,
  args: KeysetArgs,
): Promise<Map<string, Page<PressRelease>>> {
  const idsByTicker = await idsPerTicker(db, tickers, range, args);
  const ids = [...new Set([...idsByTicker.values()].flat())];
  const byId = await pressReleasesByIds(db, ids);
  return new Map(
    tickers.map((ticker) => {
      // in the order the ids were read (the page's, or its reverse backwards), as toPage takes them
      const rows = (idsByTicker.get(ticker) ?? []).flatMap((id) => byId.get(id) ?? []);
      return [ticker, toPage(rows, args, ORDERING, 'desc')];
    }),
  );
}

/** The ids of each ticker's page of releases, in the order `seekOf` reads them. */
async function idsPerTicker(
  db: Db,
  tickers: readonly string[],
  range: PublishTimeRange,
  args: KeysetArgs,
): Promise<Map<string, number[]>> {
  const result = new Map<string, number[]>(tickers.map((t) => [t, []]));
  const order = ORDERING.columns.map((c) => c.column);
  const seek = seekOf(ORDERING, 'desc', args);
  const extra = keyedConditions(rangeConditions(range), order, seek, 'p.');
  const by = (alias: string) => orderOn(order, seek.direction, alias);
  // one statement whatever the number of tickers, as topPerKey does (LATERAL); DISTINCT: nothing
  // stops a release from listing a ticker twice
  const statement = Prisma.sql`SELECT k."ticker", x."id" FROM unnest(${tickers}::text[]) WITH ORDINALITY AS k("ticker", "ord")
    CROSS JOIN LATERAL (
      SELECT DISTINCT p."id" AS "id", p."publishTime" AS "publishTime"
      FROM "PressReleaseTicker" t JOIN "PressRelease" p ON p."id" = t."pressReleaseId"
      WHERE t."ticker" = k."ticker"${extra}
      ORDER BY ${by('p.')} LIMIT ${seek.limit}) x
    ORDER BY k."ord", ${by('x.')}`;
  const rows = await readSql<{ ticker: string; id: number }>(db, statement);
  for (const row of rows) result.get(row.ticker)?.push(Number(row.id));
  return result;
}

/**
 * For loaders: releases by id, with their tickers and securities (as PRESS_RELEASE_INCLUDE); ids
 * that do not exist are missing from the map. Three reads in one turn: one statement on PostgreSQL
 * within a request (Db.forRequest).
 */
export async function pressReleasesByIds(db: Db, ids: readonly number[]): Promise<Map<number, PressRelease>> {
  if (ids.length === 0) return new Map();
  const rows = await withChildren(
    db,
    ids,
    readSql<ReleaseRow>(db, Prisma.sql`SELECT * FROM "PressRelease" WHERE ${anyOf('"id"', ids)}`),
  );
  return new Map(rows.map((r) => [r.id, r]));
}

type ReleaseRow = Omit<PressRelease, 'tickers' | 'securities'>;

/** The releases `ids` with their tickers and securities (as PRESS_RELEASE_INCLUDE), read in one turn with `rows`. */
async function withChildren(
  db: Db,
  ids: readonly number[],
  rows: Promise<ReleaseRow[]> | ReleaseRow[],
): Promise<PressRelease[]> {
  const [releases, tickers, securities] = await Promise.all([
    rows,
    pressReleaseTickers(db, ids),
    pressReleaseSecurities(db, ids),
  ]);
  return releases.map((r) => ({ ...r, tickers: tickers.get(r.id) ?? [], securities: securities.get(r.id) ?? [] }));
}

/** For loaders: the `tickers` rows of each release, in feed order (one statement). */
export function pressReleaseTickers(db: Db, ids: readonly number[]): Promise<Map<number, PressReleaseTicker[]>> {
  return childRows<PressReleaseTicker>(db, 'PressReleaseTicker', 'pressReleaseId', ids);
}

/** For loaders: the `securities` rows of each release, in feed order (one statement). */
export function pressReleaseSecurities(db: Db, ids: readonly number[]): Promise<Map<number, PressReleaseSecurity[]>> {
  return childRows<PressReleaseSecurity>(db, 'PressReleaseSecurity', 'pressReleaseId', ids);
}

/**
 * The press releases whose ids a row tree's parent lists in its JSON column `idsColumn`, in that
 * order, repeats kept, ids without a record skipped (db/tree.ts): what loading each id of
 * `associatedIds` (services/news.ts) by `pressReleasesByIds` gives. An id counts as JavaScript reads
 * it: a JSON number whose double is a safe integer (`5.0000000000000001` is 5; one past the double
 * range fails the statement, and the resolvers answer instead).
 */
export function pressReleasesOfIdsLevel(
  idsColumn: string,
  columns: readonly string[],
  children: readonly TreeLevel[],
): TreeLevel {
  const carried = [...new Set([...columns, 'id'])];
  return {
    table: 'PressRelease',
    columns: carried,
    select: (parent) => {
      const ids = `${parent}."${idsColumn}"`;
      return Prisma.sql`${selectColumns('PressRelease', carried, 'p')}
        JOIN LATERAL (SELECT e."n", (e."v" #>> '{}')::float8 AS "x" FROM jsonb_array_elements(CASE WHEN jsonb_typeof(${Prisma.raw(ids)}) = 'array' THEN ${Prisma.raw(ids)} ELSE '[]' END) WITH ORDINALITY AS e("v", "n")
          WHERE jsonb_typeof(e."v") = 'number') i ON i."x" = trunc(i."x") AND abs(i."x") <= 9007199254740991 AND p."id" = i."x"
        ORDER BY i."n"`;
    },
    children,
  };
}

// ------------------------------------------------------------------ import (idempotent batch write)

export type PressReleaseSecurityInput = Omit<Prisma.PressReleaseSecurityCreateManyInput, 'pressReleaseId' | 'position'>;

/** One release as an import writes it; tickers and securities replace the stored ones when anything changed. */
export type PressReleaseInput = Omit<
  Prisma.PressReleaseCreateManyInput,
  | 'id'
  | 'publishTime'
  | 'categories'
  | 'keywords'
  | 'externalLinks'
  | 'exchanges'
  | 'contacts'
  | 'mediaAssets'
  | 'raw'
  | 'createdAt'
  | 'updatedAt'
> & {
  publishTime: Date;
  categories: Prisma.JsonValue;
  keywords: string[];
  externalLinks: string[];
  exchanges: string[];
  contacts: { organization: string }[];
  mediaAssets: Prisma.JsonValue;
  raw: Prisma.JsonObject;
  createdAt?: Date | undefined;
  updatedAt?: Date | undefined;
  tickers: string[];
  securities: PressReleaseSecurityInput[];
};

const RELEASE_FIELDS = Object.values(Prisma.PressReleaseScalarFieldEnum).filter((c) => c !== 'id');
const SECURITY_FIELDS = [
  'figi',
  'isin',
  'name',
  'symbol',
  'micCode',
  'figiComposite',
  'figiShareClass',
  'vendorxExchCode',
] as const;

/**
 * The id a new release asks for: its WireDataID when that is a plain positive integer. News items
 * name releases by integer id (`associated_press_releases`), and the release record carries no
 * other integer, so a mirror that numbers releases by wire id keeps those links pointing at the
 * same releases. Any other WireDataID (or an id already taken) gets the next free id.
 */
function wantedId(row: PressReleaseInput): number | undefined {
  if (!/^[1-9]\d{0,9}$/.test(row.wireDataId)) return undefined;
  const id = Number(row.wireDataId);
  return id <= 2_147_483_647 ? id : undefined;
}

const releaseRow = ({ tickers: _t, securities: _s, ...release }: PressReleaseInput) => release;

function releaseUpdate({ categories, mediaAssets, ...fields }: Partial<PressReleaseInput>) {
  return { ...fields, categories: jsonInput(categories), mediaAssets: jsonInput(mediaAssets) };
}

function children(pressReleaseId: number, row: PressReleaseInput) {
  return {
    tickers: row.tickers.map((ticker, position) => ({ pressReleaseId, position, ticker })),
    securities: row.securities.map((s, position) => ({ ...s, pressReleaseId, position })),
  };
}

async function insertChildren(tx: Tx, rows: { id: number; row: PressReleaseInput }[]): Promise<void> {
  const all = rows.map(({ id, row }) => children(id, row));
  await insertRows(
    tx,
    'PressReleaseTicker',
    all.flatMap((c) => c.tickers),
  );
  await insertRows(
    tx,
    'PressReleaseSecurity',
    all.flatMap((c) => c.securities),
  );
}

/** As stored, with tickers and securities: what a new release's event carries. */
export async function pressReleasesByWireIds(db: Db, wireDataIds: readonly string[]): Promise<PressRelease[]> {
  const rows: PressRelease[] = [];
  // chunked: Prisma does not split the IN list that loads the included child rows
  for (let start = 0; start < wireDataIds.length; start += LOAD_CHUNK) {
    const chunk = wireDataIds.slice(start, start + LOAD_CHUNK);
    rows.push(
      ...(await db.prisma.pressRelease.findMany({
        where: { wireDataId: { in: chunk } },
        orderBy: { id: 'asc' },
        include: PRESS_RELEASE_INCLUDE,
      })),
    );
  }
  return rows;
}

/** Upserts press releases by WireDataID in one transaction; names the records it inserted. */
export function writePressReleases(
  db: Db,
  rows: readonly PressReleaseInput[],
): Promise<WriteCounts & { insertedRows: PressReleaseInput[] }> {
  return writeBatchWithInserted(db, rows, {
    key: (r) => r.wireDataId,
    load: (tx, batch) =>
      tx.pressRelease.findMany({
        where: { wireDataId: { in: batch.map((r) => r.wireDataId) } },
        include: PRESS_RELEASE_INCLUDE,
      }),
    storedKey: (s) => s.wireDataId,
    same: (r, s) =>
      sameFields(r, s, RELEASE_FIELDS) &&
      sameChildren(
        r.tickers.map((ticker) => ({ ticker })),
        s.tickers,
        ['ticker'],
      ) &&
      sameChildren(r.securities, s.securities, SECURITY_FIELDS),
    async insert(tx, batch) {
      const { withId, without } = await claimIds(batch, wantedId, async (ids) =>
        (await tx.pressRelease.findMany({ where: { id: { in: ids } }, select: { id: true } })).map((r) => r.id),
      );
      if (withId.length) {
        await insertRows(
          tx,
          'PressRelease',
          withId.map(({ row, id }) => ({ ...releaseRow(row), id })),
        );
        await advanceSerial(tx, 'PressRelease');
      }
      const created = await insertRows(tx, 'PressRelease', without.map(releaseRow), ['id', 'wireDataId']);
      const byWire = new Map(without.map((row) => [row.wireDataId, row]));
      await insertChildren(tx, [
        ...withId,
        ...created.map((c) => ({ id: c.id as number, row: byWire.get(c.wireDataId as string)! })),
      ]);
    },
    async update(tx, changes) {
      for (const { row, stored } of changes) {
        await tx.pressRelease.updateMany({
          where: { id: stored.id },
          data: releaseUpdate(changedFields(releaseRow(row), stored, RELEASE_FIELDS)),
        });
      }
      const ids = changes.map((c) => c.stored.id);
      await tx.pressReleaseTicker.deleteMany({ where: { pressReleaseId: { in: ids } } });
      await tx.pressReleaseSecurity.deleteMany({ where: { pressReleaseId: { in: ids } } });
      await insertChildren(
        tx,
        changes.map((c) => ({ id: c.stored.id, row: c.row })),
      );
    },
  });
}
