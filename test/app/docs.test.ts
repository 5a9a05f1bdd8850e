// The README and docs/ are read on GitHub and in an editor: every relative link must lead to a
// file of this repository, and every #anchor to a heading of that file. The README stays short:
// the detail lives in docs/.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../src/config.js';

const README_MAX_BYTES = 12_288;

const pages = [
  'README.md',
  ...fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** Markdown without fenced code blocks and inline code, where a `[x](y)` is not a link. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** The anchors GitHub gives a file's headings: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, heading] of markdown.replace(/^```[\s\S]*?^```/gm, '').matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const slug = heading!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

function linksOf(markdown: string): string[] {
  return [...prose(markdown).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]!);
}

describe('docs', () => {
  it('README.md stays a short entry: at most 12 KiB', () => {
    expect(fs.statSync(path.join(ROOT, 'README.md')).size).toBeLessThanOrEqual(README_MAX_BYTES);
  });

  it('the anchor rule matches GitHub on headings with punctuation and code', () => {
    expect([...anchorsOf('# A, b: c\n## `GET /x?y=1` — z\n## A, b: c\n```\n# not a heading\n```\n')]).toEqual([
      'a-b-c',
      'get-xy1--z',
      'a-b-c-1',
    ]);
  });

  it.each(pages)('every relative link of %s leads to an existing file and heading', (page) => {
    const broken: string[] = [];
    for (const link of linksOf(fs.readFileSync(path.join(ROOT, page), 'utf8'))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue; // http:, https:, mailto: — not a file here
      const [file, anchor] = link.split('#') as [string, string | undefined];
      const target = file === '' ? path.join(ROOT, page) : path.resolve(path.dirname(path.join(ROOT, page)), file);
      if (!fs.existsSync(target)) {
        broken.push(`${link}: no file ${path.relative(ROOT, target)}`);
        continue;
      }
      if (anchor !== undefined && !anchorsOf(fs.readFileSync(target, 'utf8')).has(anchor))
        broken.push(`${link}: no heading #${anchor} in ${path.relative(ROOT, target)}`);
    }
    expect(broken).toEqual([]);
  });
});
