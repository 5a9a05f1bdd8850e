import type { Db } from '../db/client.js';
import { readSql } from '../db/sql.js';
import { Prisma } from '../../generated/prisma/client.js';

/** A field a search may facet by: its API name (`exchange_info.mic_code`), its column and its kind. */
export interface FacetSpec {
  field: string;
  column: string;
  kind: 'string' | 'number' | 'boolean';
}

/** Typesense's `facet_counts` item. */
export interface FacetCount {
  field_name: string;
  /** The most frequent values in the match set, most frequent first (ties by value). */
  counts: { value: string; count: number; highlighted: string }[];
  sampled: false;
  /** `total_values`: distinct values in the match set; numeric fields add min, max, sum and avg. */
  stats: { total_values: number; min?: number; max?: number; sum?: number; avg?: number };
}

/** Values listed per facet, as Typesense's default `max_facet_values`. */
export const MAX_FACET_VALUES = 10;

interface CountRow {
  f: unknown;
  v: unknown;
  n: unknown;
  r: unknown;
  total: unknown;
}

interface StatsRow {
  f: unknown;
  mn: unknown;
  mx: unknown;
  sm: unknown;
  av: unknown;
}

/** A value as Typesense writes it: text, a number's decimal form, a boolean as true/false (SQLite stores 0/1). */
function valueText(spec: FacetSpec, v: unknown): string {
  if (spec.kind === 'boolean') return v === true || v === 1 || v === '1' || v === 't' || v === 'true' ? 'true' : 'false';
  return String(v);
}

/**
 * The facet counts of the securities `source` selects (a `FROM "Security" s … WHERE …`), over the whole match set (not a page): one
 * statement for the counts of every facet (a GROUP BY each, ranked by window functions, at most
 * MAX_FACET_VALUES each) and, when a numeric facet is asked for, one for their stats. A missing
 * value (NULL) is not counted, as Typesense counts only documents that have the field.
 */
export async function securityFacets(db: Db, source: Prisma.Sql, facets: readonly FacetSpec[]): Promise<FacetCount[]> {
  if (facets.length === 0) return [];
  const grouped = facets.map(
    (spec, i) => Prisma.sql`SELECT ${Prisma.raw(String(i))} AS "f", CAST(${Prisma.raw(`s."${spec.column}"`)} AS TEXT) AS "v", COUNT(*) AS "n" ${source} AND ${Prisma.raw(`s."${spec.column}"`)} IS NOT NULL GROUP BY ${Prisma.raw(`s."${spec.column}"`)}`,
  );
  const counts = readSql<CountRow>(
    db,
    Prisma.sql`SELECT "f", "v", "n", "r", "total" FROM (SELECT "f", "v", "n", ROW_NUMBER() OVER (PARTITION BY "f" ORDER BY "n" DESC, "v") AS "r", COUNT(*) OVER (PARTITION BY "f") AS "total" FROM (${Prisma.join(grouped, ' UNION ALL ')}) "g") "x" WHERE "r" <= ${MAX_FACET_VALUES} ORDER BY "f", "r"`,
  );
  const numeric = facets.map((spec, i) => [spec, i] as const).filter(([spec]) => spec.kind === 'number');
  const stats = numeric.length
    ? readSql<StatsRow>(
        db,
        Prisma.join(
          numeric.map(([spec, i]) => {
            const col = Prisma.raw(`s."${spec.column}"`);
            return Prisma.sql`SELECT ${Prisma.raw(String(i))} AS "f", MIN(${col}) AS "mn", MAX(${col}) AS "mx", SUM(${col} * 1.0) AS "sm", AVG(${col} * 1.0) AS "av" ${source}`;
          }),
          ' UNION ALL ',
        ),
      )
    : Promise.resolve([]);
  const [countRows, statsRows] = await Promise.all([counts, stats]);
  const result: FacetCount[] = facets.map((spec) => ({ field_name: spec.field, counts: [], sampled: false, stats: { total_values: 0 } }));
  for (const row of countRows) {
    const i = Number(row.f);
    const value = valueText(facets[i]!, row.v);
    result[i]!.counts.push({ value, count: Number(row.n), highlighted: value });
    result[i]!.stats.total_values = Number(row.total);
  }
  for (const row of statsRows) {
    const facet = result[Number(row.f)]!;
    // an empty match set has no min or max: Typesense leaves the numeric stats out then
    if (row.mn === null || row.mn === undefined) continue;
    Object.assign(facet.stats, { min: Number(row.mn), max: Number(row.mx), sum: Number(row.sm), avg: Number(row.av) });
  }
  return result;
}
