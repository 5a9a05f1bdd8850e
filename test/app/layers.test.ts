// The folders are the layers (docs/architecture.md): every import of src/ points down. Read from the
// import statements themselves, so a new file is held to the rule the day it is added.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../src/config.js';

const SRC = path.join(ROOT, 'src');

/**
 * The layers, top first. A unit is a folder of src/ or a file at its root; a unit may import units
 * of its own layer's lower neighbours and below, never above. Within one layer, imports may go
 * either way only if the graph of units stays without a circle (checked apart).
 */
const LAYERS: readonly (readonly string[])[] = [
  ['server.ts', 'cli.ts', 'cli-usage.ts'],
  ['app.ts', 'bootstrap.ts'],
  ['graphql', 'rest', 'schema'],
  ['builder.ts', 'context.ts'],
  ['auth', 'ingest', 'sample'],
  ['services'],
  ['db', 'credentials', 'http', 'ocr', 'runtime'],
  ['observability'],
  ['config.ts', 'domain', 'search'],
  ['resources'],
  ['errors.ts'],
];

/**
 * Pairs of units where the lower is out of reach though below: a schema module reads through the
 * services, never the database layer itself (its paging types too come from services/paging.ts).
 */
const BYPASSES: readonly (readonly [string, string])[] = [['schema', 'db']];

const unitOf = (file: string): string => path.relative(SRC, file).split(path.sep)[0]!;
const layerOf = (unit: string): number => LAYERS.findIndex((l) => l.includes(unit));

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sourceFiles(p) : /\.(ts|cjs|mjs)$/.test(e.name) ? [p] : [];
  });
}

/** [from unit, to unit, the importing file, the import] for every relative import inside src/. */
function imports(): [string, string, string, string][] {
  const out: [string, string, string, string][] = [];
  for (const file of sourceFiles(SRC)) {
    const text = fs.readFileSync(file, 'utf8');
    for (const m of text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|\brequire\s*\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g)) {
      const target = path.resolve(path.dirname(file), m[1]!);
      if (!target.startsWith(SRC + path.sep)) continue; // generated/, lexicon/, package.json
      const [from, to] = [unitOf(file), unitOf(target).replace(/\.js$/, '.ts')];
      if (from !== to) out.push([from, to, path.relative(ROOT, file), m[1]!]);
    }
  }
  return out;
}

describe('the layers of src/', () => {
  it('names every folder and root file of src/ in one layer', () => {
    const units = fs.readdirSync(SRC).filter((n) => fs.statSync(path.join(SRC, n)).isDirectory() || /\.ts$/.test(n));
    expect(units.filter((u) => layerOf(u) < 0)).toEqual([]);
  });

  it('has no import that points up', () => {
    const upward = imports()
      .filter(([from, to]) => layerOf(to) < layerOf(from))
      .map(([from, to, file, spec]) => `${file} (${from}) imports ${spec} (${to})`);
    expect(upward).toEqual([]);
  });

  it('has no import that skips the layer between', () => {
    const skipping = imports()
      .filter(([from, to]) => BYPASSES.some(([f, t]) => f === from && t === to))
      .map(([from, to, file, spec]) => `${file} (${from}) imports ${spec} (${to})`);
    expect(skipping).toEqual([]);
  });

  it('has no circle between units, within a layer either', () => {
    const graph = new Map<string, Set<string>>();
    for (const [from, to] of imports()) (graph.get(from) ?? graph.set(from, new Set()).get(from)!).add(to);
    const circles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (unit: string, trail: string[]): void => {
      if (state.get(unit) === 'done') return;
      if (state.get(unit) === 'open') {
        circles.push([...trail.slice(trail.indexOf(unit)), unit].join(' -> '));
        return;
      }
      state.set(unit, 'open');
      for (const next of graph.get(unit) ?? []) visit(next, [...trail, unit]);
      state.set(unit, 'done');
    };
    for (const unit of graph.keys()) visit(unit, []);
    expect(circles).toEqual([]);
  });
});
