// A schema module spreads its record's plain fields from the field table (exposeRecordFields,
// src/schema/record-fields.ts) beside hand-written ones. In an object literal a later key silently
// replaces an earlier one, so a hand-written field named as a table field would shadow the table's
// line: read from the modules' own source, no object literal may hold both.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../src/config.js';
import type { RecordTable } from '../../src/domain/records/table.js';
import { type Place, recordFieldNames } from '../../src/schema/record-fields.js';

const SCHEMA = path.join(ROOT, 'src', 'schema');
const RECORDS = path.join(ROOT, 'src', 'domain', 'records');

/** Every table the records export, by its exported name. */
async function tables(): Promise<Map<string, RecordTable>> {
  const out = new Map<string, RecordTable>();
  for (const file of fs.readdirSync(RECORDS).filter((f) => f.endsWith('.ts') && f !== 'table.ts')) {
    const module = (await import(path.join(RECORDS, file))) as Record<string, unknown>;
    for (const [name, value] of Object.entries(module)) if (Array.isArray(value)) out.set(name, value as RecordTable);
  }
  return out;
}

interface Spread {
  file: string;
  table: string;
  place: Place;
  /** The other keys of the object literal the table's fields are spread into. */
  beside: string[];
}

function placeOf(arg: ts.Expression | undefined): Place {
  if (!arg || !ts.isObjectLiteralExpression(arg)) return {};
  const place: Record<string, string> = {};
  for (const p of arg.properties)
    if (ts.isPropertyAssignment(p) && ts.isStringLiteral(p.initializer)) place[p.name.getText()] = p.initializer.text;
  return place;
}

function spreads(file: string): Spread[] {
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const out: Spread[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isObjectLiteralExpression(node)) {
      for (const p of node.properties) {
        if (!ts.isSpreadAssignment(p) || !ts.isCallExpression(p.expression)) continue;
        const call = p.expression;
        if (call.expression.getText() !== 'exposeRecordFields') continue;
        const beside = node.properties.flatMap((q) => (q !== p && q.name ? [q.name.getText()] : []));
        out.push({ file, table: call.arguments[1]!.getText(), place: placeOf(call.arguments[2]), beside });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

describe('the field tables in the schema modules', () => {
  it('no hand-written field has the name of a table field spread into the same type', async () => {
    const all = await tables();
    const found = fs
      .readdirSync(SCHEMA)
      .filter((f) => f.endsWith('.ts'))
      .flatMap((f) => spreads(path.join(SCHEMA, f)));
    expect(found.length).toBeGreaterThan(20);
    const shadowed = found.flatMap(({ file, table, place, beside }) => {
      const names = new Set(recordFieldNames(all.get(table) ?? [], place));
      expect(all.has(table), `${path.basename(file)}: ${table} is a table of src/domain/records`).toBe(true);
      return beside.filter((n) => names.has(n)).map((n) => `${path.basename(file)}: ${n} (also from ${table})`);
    });
    expect(shadowed).toEqual([]);
  });
});
