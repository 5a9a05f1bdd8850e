import type { Db } from '../db/client.js';
import { AppError } from '../errors.js';
import { Prisma } from '../../generated/prisma/client.js';
import { anyOf, readSql } from '../db/sql.js';
import { insertRows, type Tx } from '../db/upsert.js';
import {
  checkQueryLength,
  MAX_QUERY_TOKENS,
  TEXT_FIELDS,
  buildVocabulary,
  expandToken,
  highlightName,
  highlightSymbol,
  matchCost,
  nameTerms,
  queryTokens,
  symbolTerm,
  type Highlight,
  type TextField,
  type Vocabulary,
} from '../domain/search-text.js';
import { masterVersion } from './security-counts.js';

/**
 * Search of the security master by symbol and name with typos, as Typesense's `q` over
 * `query_by=symbol,name` (the rules: domain/search-text.ts). The terms of every security's symbol
 * and name are stored in "SecurityTerm"; each process keeps the distinct terms (the vocabulary)
 * per Db and per SecurityMasterVersion, expands each query token to the terms it matches there,
 * and asks the database for the securities holding a match of every token, in one statement.
 */

/** What `writeSecurityTerms` needs of a security. */
export interface SecurityText {
  id: string;
  symbol: string;
  name: string;
}

const TRANSACTION = { maxWait: 30_000, timeout: 300_000 };

/** Securities whose terms one transaction of `writeSecurityTerms` (without a transaction) replaces. */
const WRITE_CHUNK = 5_000;

function termRows(rows: readonly SecurityText[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const r of rows) {
    const symbol = symbolTerm(r.symbol);
    if (symbol) out.push({ term: symbol, field: TEXT_FIELDS.symbol, securityId: r.id, position: 0 });
    nameTerms(r.name).forEach((term, position) =>
      out.push({ term, field: TEXT_FIELDS.name, securityId: r.id, position }),
    );
  }
  return out;
}

async function replaceTerms(tx: Tx, rows: readonly SecurityText[]): Promise<void> {
  // The version first: a term written outside a write of "Security" (a seed, a rebuild) must make
  // the vocabularies built before it stale too; and every writer of terms takes the version row's
  // lock first (an import holds it from its write of "Security"), so two never deadlock.
  await tx.$executeRaw(Prisma.sql`UPDATE "SecurityMasterVersion" SET "version" = "version" + 1 WHERE "id" = 1`);
  await tx.$executeRaw(
    Prisma.sql`DELETE FROM "SecurityTerm" WHERE ${anyOf(
      '"securityId"',
      rows.map((r) => r.id),
    )}`,
  );
  await insertRows(tx, 'SecurityTerm', termRows(rows));
}

/**
 * Replaces the terms of `rows` (the securities must exist): inside `tx`, the transaction that
 * writes them (writeSecurities), or else in transactions of its own, WRITE_CHUNK securities each.
 */
export async function writeSecurityTerms(db: Db, rows: readonly SecurityText[], tx?: Tx): Promise<void> {
  if (rows.length === 0) return;
  if (tx) return replaceTerms(tx, rows);
  for (let start = 0; start < rows.length; start += WRITE_CHUNK) {
    const chunk = rows.slice(start, start + WRITE_CHUNK);
    await db.prisma.$transaction((t) => replaceTerms(t, chunk), TRANSACTION);
  }
}

/** Writes the terms of the stored securities `which` picks, WRITE_CHUNK at a time in id order; returns how many. */
async function rewriteTerms(db: Db, which: Prisma.Sql): Promise<number> {
  let done = 0;
  for (let after = ''; ; ) {
    const chunk = await readSql<SecurityText>(
      db,
      Prisma.sql`SELECT s."id", s."symbol", s."name" FROM "Security" s WHERE s."id" > ${after} AND ${which} ORDER BY s."id" LIMIT ${WRITE_CHUNK}`,
    );
    if (chunk.length === 0) return done;
    await writeSecurityTerms(db, chunk);
    done += chunk.length;
    after = chunk[chunk.length - 1]!.id;
  }
}

/** Writes the terms of every stored security again; returns how many securities. */
export function rebuildSecurityTerms(db: Db): Promise<number> {
  return rewriteTerms(db, Prisma.sql`TRUE`);
}

/**
 * For a start: writes the terms of every security that has none (all of them in a database that
 * held securities before "SecurityTerm" existed; those a rebuild cut short left; rows written by
 * raw SQL). Returns how many (0: nothing to do, after one anti-join over the master).
 */
export function ensureSecurityTerms(db: Db): Promise<number> {
  return rewriteTerms(db, Prisma.sql`NOT EXISTS (SELECT 1 FROM "SecurityTerm" t WHERE t."securityId" = s."id")`);
}

// ------------------------------------------------------------------ vocabulary

interface VocabularyState {
  current?: { version: bigint; vocabulary: Vocabulary };
  /** The build in flight for one version, shared by the searches that wait for it. */
  building?: { version: bigint; vocabulary: Promise<Vocabulary> };
}

// keyed by the Prisma client: one per database, whichever request's Db (Db.forRequest) asks
const states = new WeakMap<object, VocabularyState>();

const VOCABULARY = Prisma.sql`SELECT "term", "field", COUNT(DISTINCT "securityId") AS "docs" FROM "SecurityTerm" GROUP BY "term", "field"`;

async function readVocabulary(db: Db): Promise<Vocabulary> {
  const rows = await readSql<{ term: string; field: unknown; docs: unknown }>(db, VOCABULARY);
  return buildVocabulary(rows.map((r) => ({ term: r.term, field: Number(r.field), docs: Number(r.docs) })));
}

/**
 * The vocabulary of the terms as they are now: the one kept when the master's version (read
 * first, one statement) is the one it was built at, else one read again. Read after the version,
 * it may hold later writes too; the next search then sees a newer version and reads it again.
 */
async function vocabularyOf(db: Db, known?: bigint): Promise<Vocabulary> {
  const version = known ?? (await masterVersion(db));
  if (version === undefined) return readVocabulary(db); // no version row: nothing to know staleness by
  let state = states.get(db.prisma);
  if (!state) states.set(db.prisma, (state = {}));
  if (state.current?.version === version) return state.current.vocabulary;
  if (state.building?.version === version) return state.building.vocabulary;
  const s = state;
  const vocabulary = readVocabulary(db).then((v) => {
    if (!s.current || s.current.version < version) s.current = { version, vocabulary: v };
    return v;
  });
  const building = { version, vocabulary };
  s.building = building;
  const done = () => {
    if (s.building === building) s.building = undefined;
  };
  vocabulary.then(done, done);
  return vocabulary;
}

// ------------------------------------------------------------------ matching

export interface TextMatch {
  /** SELECT "securityId", "score" ... : one row per matching security; lower score ranks first. */
  sql: Prisma.Sql;
  /** Per query token: the vocabulary terms it matched, with their typo counts, for highlights. */
  tokens: readonly { token: string; terms: ReadonlyMap<string, number>; prefix: boolean }[];
  /** The symbol terms the whole query is (0) or starts (1): "brk.a" finds BRK.A though its tokens are "brk" and "a". */
  symbols: ReadonlyMap<string, number>;
  /** What `sql` joins the terms to: [term, field, token index (-1: the whole query as a symbol), matchCost]; services/security-index.ts scores the same rows in memory. */
  rows: readonly MatchRow[];
  /** How many tokens every match must match (unless the whole query matches its symbol). */
  tokenCount: number;
}

/** One row of the statement's list of matches: [term, field, token index (-1: the whole query as a symbol), matchCost]. */
export type MatchRow = [string, number, number, number];

/** The match rows as a table `v("term", "field", "tok", "cost")`, one bound parameter per column whatever their number. */
function matchTable(rows: readonly MatchRow[]): Prisma.Sql {
  const col = (i: number) => rows.map((r) => r[i]);
  return Prisma.sql`unnest(${col(0)}::text[], ${col(1)}::int[], ${col(2)}::int[], ${col(3)}::int[]) AS v("term", "field", "tok", "cost")`;
}

/**
 * The match set and its score. A security matches when each query token matches one of its
 * terms, or when its symbol is or starts with the whole query. Score, lower first: the whole query
 * is the symbol (0), starts it (10,000), neither (20,000); plus 100 x the sum over tokens of the
 * cheapest match's cost (2 per typo, 1 for a prefix: at most 16 x 5); plus the name's number of
 * words (at most 32: every candidate matched the same tokens, so the fewest unmatched words).
 * Its text is the same for every query (each list is one parameter): prepared once by Db.read.
 */
function matchSql(rows: readonly MatchRow[], tokenCount: number): Prisma.Sql {
  return Prisma.sql`SELECT g."securityId" AS "securityId",
    COALESCE(g."whole", 2) * 10000 + g."cost" * 100
      + (SELECT COUNT(*) FROM "SecurityTerm" w WHERE w."securityId" = g."securityId" AND w."field" = ${TEXT_FIELDS.name}) AS "score"
  FROM (
    SELECT p."securityId" AS "securityId",
      MIN(CASE WHEN p."tok" < 0 THEN p."cost" END) AS "whole",
      SUM(CASE WHEN p."tok" >= 0 THEN p."cost" ELSE 0 END) AS "cost"
    FROM (
      SELECT t."securityId" AS "securityId", v."tok" AS "tok", MIN(v."cost") AS "cost"
      FROM ${matchTable(rows)} JOIN "SecurityTerm" t ON t."term" = v."term" AND t."field" = v."field"
      GROUP BY t."securityId", v."tok"
    ) p
    GROUP BY p."securityId"
    HAVING SUM(CASE WHEN p."tok" >= 0 THEN 1 ELSE 0 END) = ${tokenCount} OR MIN(CASE WHEN p."tok" < 0 THEN p."cost" END) IS NOT NULL
  ) g`;
}

/** The query's match over `fields` (symbol, name or both); undefined when the query has no token (nothing to match). */
export async function textMatch(
  db: Db,
  q: string,
  fields: readonly TextField[],
  version?: bigint,
): Promise<TextMatch | undefined> {
  checkQueryLength(q);
  const tokens = queryTokens(q);
  if (tokens.length === 0) return undefined;
  if (tokens.length > MAX_QUERY_TOKENS) {
    throw new AppError('BAD_REQUEST', `search: a query holds at most ${MAX_QUERY_TOKENS} words; got ${tokens.length}`);
  }
  if (fields.length === 0)
    throw new AppError('BAD_REQUEST', 'search: name at least one field to search (symbol, name); got none');
  const fieldSet = new Set(fields.map((f) => TEXT_FIELDS[f]));
  const vocabulary = await vocabularyOf(db, version);
  const rows: MatchRow[] = [];
  const matched = tokens.map((token, i) => {
    const prefix = i === tokens.length - 1;
    const terms = new Map<string, number>();
    for (const e of expandToken(vocabulary, token, { prefix, typos: true, fields: fieldSet })) {
      rows.push([e.term, e.field, i, matchCost(e)]);
      terms.set(e.term, Math.min(e.typos, terms.get(e.term) ?? Infinity));
    }
    return { token, terms, prefix };
  });
  const symbols = new Map<string, number>();
  const whole = symbolTerm(q);
  if (fieldSet.has(TEXT_FIELDS.symbol) && whole) {
    for (const e of expandToken(vocabulary, whole, {
      prefix: true,
      typos: false,
      fields: new Set([TEXT_FIELDS.symbol]),
    })) {
      rows.push([e.term, e.field, -1, matchCost(e)]);
      symbols.set(e.term, matchCost(e));
    }
  }
  return { sql: matchSql(rows, tokens.length), tokens: matched, symbols, rows, tokenCount: tokens.length };
}

/** Whether `match` matches no security, known without a statement: a token matched no term, nor the whole query a symbol. */
export function textMatchesNothing(m: TextMatch): boolean {
  return m.symbols.size === 0 && m.tokens.some((t) => t.terms.size === 0);
}

/** Typesense's `highlights` of one hit: each of `fields` with a matched word, its value marked. */
export function textHighlights(
  row: { symbol: string; name: string },
  match: TextMatch,
  fields: readonly TextField[],
): ({ field: TextField } & Highlight)[] {
  const matched = (term: string) => match.tokens.some((t) => t.terms.has(term));
  const out: ({ field: TextField } & Highlight)[] = [];
  for (const field of fields) {
    const h =
      field === 'symbol'
        ? highlightSymbol(row.symbol, (t) => matched(t) || match.symbols.has(t))
        : highlightName(row.name, matched);
    if (h) out.push({ field, ...h });
  }
  return out;
}
