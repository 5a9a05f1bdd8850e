// How the db tests compare rows: every value with its JavaScript type, so a bigint that came back
// as a number, or a Date as a string, is a difference (test/db/read.test.ts, test/db/combine.test.ts).

/** A row as text that tells bigints and Dates from numbers and strings; keeps key order. */
export const canonical = (row: unknown) =>
  JSON.stringify(row, (_k, v: unknown) =>
    typeof v === 'bigint' ? `${v}n` : v instanceof Date ? `D${v.toISOString()}` : v,
  );

/** The JavaScript type of a column value as the tests name it. */
export const typeOf = (v: unknown) =>
  v === null ? 'null' : v instanceof Date ? 'Date' : Array.isArray(v) ? 'array' : typeof v;

/** As `canonical`, whatever the key order: `SELECT *` gives a table's columns in the order migrations added them, Prisma in the schema's. */
export const canonicalAnyOrder = (row: Record<string, unknown>) =>
  canonical(Object.fromEntries(Object.entries(row).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))));
