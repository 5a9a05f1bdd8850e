import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// Small pieces: a source file past ~400 lines or a function past ~80 is asking to be split along
// a seam it already has. Measured on src/ with the TypeScript parser.
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MAX_FILE_LINES = 400;
const MAX_FUNCTION_LINES = 80;

/** Pure data tables: long because they list data, not because they do several jobs. `src/file.ts` -> why. */
const DATA_TABLES: Record<string, string> = {};

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    return /\.(ts|mts|cts|js|mjs|cjs)$/.test(e.name) ? [full] : [];
  });
}

function lineCount(text: string): number {
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

/** A function's name as a reader finds it: its own, its variable's or property's, inside its named outer function. */
function functionName(node: ts.SignatureDeclaration, source: ts.SourceFile, outer: string | undefined): string {
  const parent = node.parent;
  const own =
    node.name?.getText(source) ??
    (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)
      ? parent.name.getText(source)
      : undefined);
  if (own)
    return outer && !(ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) ? `${outer} > ${own}` : own;
  return outer ? `${outer} > (anonymous)` : '(anonymous)';
}

interface Measure {
  /** `src/file.ts` for a file, `src/file.ts: name` for a function */
  what: string;
  lines: number;
  limit: number;
}

function measure(file: string): Measure[] {
  const text = fs.readFileSync(file, 'utf8');
  const rel = path.relative(ROOT, file).split(path.sep).join('/');
  const out: Measure[] = [{ what: rel, lines: lineCount(text), limit: MAX_FILE_LINES }];
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const visit = (node: ts.Node, outer: string | undefined): void => {
    let inner = outer;
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      inner = functionName(node, source, outer);
      out.push({ what: `${rel}: ${inner}`, lines: last - first + 1, limit: MAX_FUNCTION_LINES });
    }
    ts.forEachChild(node, (child) => visit(child, inner));
  };
  visit(source, undefined);
  return out;
}

describe('the house: small pieces', () => {
  const measures = sourceFiles(path.join(ROOT, 'src')).flatMap(measure);
  const over = measures.filter((m) => m.lines > m.limit);

  it(`no source file in src/ passes ${MAX_FILE_LINES} lines and no function ${MAX_FUNCTION_LINES}`, () => {
    expect(measures.length).toBeGreaterThan(100);
    const unexpected = over
      .filter((m) => !(m.what in DATA_TABLES))
      .map((m) => `${m.what}: ${m.lines} lines (limit ${m.limit})`);
    expect(unexpected).toEqual([]);
  });

  it('every entry of DATA_TABLES is still over its limit (remove the ones that are not)', () => {
    const stillOver = new Set(over.map((m) => m.what));
    expect(Object.keys(DATA_TABLES).filter((what) => !stillOver.has(what))).toEqual([]);
  });
});
