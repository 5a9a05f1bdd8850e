/** A statement's result columns as its standalone run reported them: names, and the text parser of each one's type. */
export interface Shape {
  names: readonly string[];
  parsers: readonly ((text: string) => unknown)[];
}

export interface Part {
  sql: string;
  params: readonly unknown[];
  shape: Shape;
}

/**
 * Several statements as one: `SELECT (SELECT json_agg(ARRAY[t."c0"::text, …]) FROM (<statement>) t("c0", …)) AS "r0", …`.
 * Each column goes as its text form (what the statement alone would send, but for booleans:
 * `true` rather than `t`, which pg's parser reads alike), so decodeCombined parses it with the
 * parser its standalone run used: a combined row equals the row of the statement alone. Columns
 * are named by position, so duplicate or odd names cannot clash. Placeholders are renumbered, each
 * statement's after those of the ones before it (`$` followed by a digit is only ever a
 * placeholder in Db.read's SQL). Row order: a subquery with ORDER BY is never flattened into the
 * aggregate above it, so json_agg receives, and keeps, the statement's order (test/db/combine.test.ts).
 */
export function combinedStatement(parts: readonly Part[]): { text: string; params: unknown[] } {
  const params: unknown[] = [];
  const columns = parts.map(({ sql, params: own, shape }, i) => {
    const offset = params.length;
    params.push(...own);
    const text = offset === 0 ? sql : sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);
    const names = shape.names.map((_, j) => `"c${j}"`);
    // a newline before the closing parenthesis: a statement may end with a -- comment
    return `(SELECT json_agg(ARRAY[${names.map((c) => `t.${c}::text`).join(', ')}]) FROM (${text}\n) t(${names.join(', ')})) AS "r${i}"`;
  });
  return { text: `SELECT ${columns.join(',\n')}`, params };
}

/** The rows of each part from the one row of combinedStatement's answer, as pg would have built them. */
export function decodeCombined(row: Record<string, unknown>, parts: readonly Part[]): Record<string, unknown>[][] {
  return parts.map(({ shape: { names, parsers } }, i) => {
    const values = row[`r${i}`] as (string | null)[][] | null;
    if (values === null) return [];
    return values.map((texts) => {
      const out: Record<string, unknown> = {};
      for (let j = 0; j < names.length; j++) {
        const text = texts[j];
        out[names[j]!] = text === null || text === undefined ? null : parsers[j]!(text);
      }
      return out;
    });
  });
}
