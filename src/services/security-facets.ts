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
  /** The most frequent values in the match set, most frequent first (ties by value: numbers by size, text by code point). */
  counts: { value: string; count: number; highlighted: string }[];
  sampled: false;
  /** `total_values`: distinct values in the match set; numeric fields add min, max, sum and avg. */
  stats: { total_values: number; min?: number; max?: number; sum?: number; avg?: number };
}

/** Values listed per facet, as Typesense's default `max_facet_values`. */
export const MAX_FACET_VALUES = 10;

interface FacetRow {
  f: unknown;
  k: unknown;
  v: unknown;
  n: unknown;
  mn: unknown;
  mx: unknown;
  sm: unknown;
  av: unknown;
  total: unknown;
}

/** A value as Typesense writes it: text, a number's decimal form, a boolean as true/false. */
function valueText(spec: FacetSpec, v: unknown): string {
  if (spec.kind === 'boolean') return v === true || v === 't' || v === 'true' ? 'true' : 'false';
  return String(v);
}

/** Typed, so PostgreSQL's UNION of the count rows and the stats rows agrees on the stats' type. */
const NO_NUMBER = Prisma.raw('CAST(NULL AS DOUBLE PRECISION)');

/**
 * The facet counts of the securities `source` selects (a `FROM "Security" s … WHERE …`), over the
 * whole match set (not a page), in one statement: the match set once (a CTE, materialized by both
 * databases as it is read more than once), then a GROUP BY per facet ranked by window functions, at
 * most MAX_FACET_VALUES each, and for a numeric facet a row of its stats. A missing value (NULL) is
 * not counted, as Typesense counts only documents that have the field.
 */
export async function securityFacets(db: Db, source: Prisma.Sql, facets: readonly FacetSpec[]): Promise<FacetCount[]> {
  if (facets.length === 0) return [];
  const col = (i: number) => Prisma.raw(`"c${i}"`);
  const lit = (i: number) => Prisma.raw(String(i));
  const branches = facets.flatMap((spec, i) => [
    Prisma.sql`SELECT ${lit(i)} AS "f", 0 AS "k", CAST(${col(i)} AS TEXT) AS "v", ${spec.kind === 'number' ? Prisma.sql`CAST(${col(i)} AS DOUBLE PRECISION)` : NO_NUMBER} AS "o", COUNT(*) AS "n", ${NO_NUMBER} AS "mn", ${NO_NUMBER} AS "mx", ${NO_NUMBER} AS "sm", ${NO_NUMBER} AS "av" FROM "matched" WHERE ${col(i)} IS NOT NULL GROUP BY ${col(i)}`,
    ...(spec.kind === 'number'
      ? [
          Prisma.sql`SELECT ${lit(i)}, 1, CAST(NULL AS TEXT), ${NO_NUMBER}, COUNT(${col(i)}), CAST(MIN(${col(i)}) AS DOUBLE PRECISION), CAST(MAX(${col(i)}) AS DOUBLE PRECISION), CAST(SUM(${col(i)} * 1.0) AS DOUBLE PRECISION), CAST(AVG(${col(i)} * 1.0) AS DOUBLE PRECISION) FROM "matched"`,
        ]
      : []),
  ]);
  const columns = Prisma.join(
    facets.map((spec, i) => Prisma.sql`s.${Prisma.raw(`"${spec.column}"`)} AS ${col(i)}`),
    ', ',
  );
  const rows = await readSql<FacetRow>(
    db,
    Prisma.sql`WITH "matched" AS (SELECT ${columns} ${source})
      SELECT "f", "k", "v", "n", "mn", "mx", "sm", "av", "total" FROM (
        SELECT "g".*, ROW_NUMBER() OVER (PARTITION BY "f", "k" ORDER BY "n" DESC, "o", "v") AS "r", COUNT(*) OVER (PARTITION BY "f", "k") AS "total"
        FROM (${Prisma.join(branches, ' UNION ALL ')}) "g"
      ) "x" WHERE "r" <= ${MAX_FACET_VALUES} ORDER BY "f", "k", "r"`,
  );
  const result: FacetCount[] = facets.map((spec) => ({
    field_name: spec.field,
    counts: [],
    sampled: false,
    stats: { total_values: 0 },
  }));
  for (const row of rows) {
    const i = Number(row.f);
    const facet = result[i]!;
    if (Number(row.k) === 0) {
      const value = valueText(facets[i]!, row.v);
      facet.counts.push({ value, count: Number(row.n), highlighted: value });
      facet.stats.total_values = Number(row.total);
    } else if (row.mn !== null && row.mn !== undefined) {
      // an empty match set has no min or max: Typesense leaves the numeric stats out then
      Object.assign(facet.stats, {
        min: Number(row.mn),
        max: Number(row.mx),
        sum: Number(row.sm),
        avg: Number(row.av),
      });
    }
  }
  return result;
}
