// How `cli import` cuts its input (src/ingest/split.ts): a line, an array element or a pretty-printed
// body past IMPORT_MAX_LINE_BYTES is a reject naming its line and the limit, whatever the chunks;
// the work is linear in the input however long a value is (counted, not timed); and through the
// CLI, the setting, the message and --strict.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../src/config.js';
import { Feeder, type InputFormat, type ValueSink, type Where } from '../../src/ingest/split.js';
import { databaseUrlOf, testDatabases } from '../helpers.js';

type Event = ['text', Where, string] | ['invalid', Where, string] | ['document', string];

/** What the sink is given for `input` fed in chunks of `chunk` characters. */
async function cut(input: string, chunk: number, maxBytes: number, format?: InputFormat) {
  const events: Event[] = [];
  const sink: ValueSink = {
    text: (t, where) => (events.push(['text', where, t]), false),
    document: async (t) => void events.push(['document', t]),
    invalid: (where, reason) => void events.push(['invalid', where, reason]),
    flush: async () => {},
  };
  const feeder = new Feeder(sink, format, maxBytes);
  for (let i = 0; i < input.length; i += chunk) await feeder.feed(input.slice(i, i + chunk), false);
  await feeder.feed('', true);
  return { events, feeder };
}

/** The same events whatever the chunks: one character, a few, a page, the whole input. */
async function cutAnyhow(input: string, maxBytes: number): Promise<Event[]> {
  const [first, ...rest] = await Promise.all(
    [1, 7, 4096, input.length].map(async (size) => (await cut(input, size, maxBytes)).events),
  );
  for (const events of rest) expect(events).toEqual(first);
  return first!;
}

const tooLong = (what: string, max: string) =>
  `longer than ${max} bytes, the most ${what} may hold (IMPORT_MAX_LINE_BYTES): skipped to its end`;

describe('cutting the input of an import', () => {
  it('a line past the limit, counted in UTF-8 bytes, is rejected with its number; the lines around it are kept', async () => {
    const exact = `"${'é'.repeat(49)}"`; // 100 bytes in 51 characters
    const over = `"${'é'.repeat(50)}"`; // 102 bytes in 52 characters
    const input = `{"a":1}\n${'x'.repeat(1000)}\n\n${exact}\n${over}\n{"b":2}`;
    expect(await cutAnyhow(input, 100)).toEqual([
      ['text', { line: 1 }, '{"a":1}'],
      ['invalid', { line: 2 }, tooLong('a line', '100')],
      ['text', { line: 4 }, exact],
      ['invalid', { line: 5 }, tooLong('a line', '100')],
      ['text', { line: 6 }, '{"b":2}'],
    ]);
  });

  it('an array element past the limit is rejected with its line and index; a pretty-printed body past it too', async () => {
    const input = `\n[{"a":1},\n "${'x'.repeat(200)}", {"b":[1,2]}]`;
    expect(await cutAnyhow(input, 100)).toEqual([
      ['text', { line: 2, index: 0 }, '{"a":1}'],
      ['invalid', { line: 3, index: 1 }, tooLong('an array element', '100')],
      ['text', { line: 3, index: 2 }, '{"b":[1,2]}'],
    ]);
    const body = `{\n  "results": [\n    "${'x'.repeat(200)}"\n  ]\n}\n`;
    expect(await cutAnyhow(body, 100)).toEqual([['invalid', { line: 1 }, tooLong('a pretty-printed body', '100')]]);
    expect(await cutAnyhow(body, 1000)).toEqual([['document', body]]);
  });

  it('a first line opening with `{` is known as NDJSON at its second character, not held until its end', async () => {
    const texts: [string, Where][] = [];
    const feeder = new Feeder(
      {
        text: (t, where) => (texts.push([t, where]), false),
        document: async () => {},
        invalid: () => {},
        flush: async () => {},
      },
      undefined,
      1000,
    );
    await feeder.feed('\n\n  {', false);
    expect(feeder.format).toBeUndefined();
    await feeder.feed('"a":1', false);
    expect(feeder.format).toBe('ndjson');
    await feeder.feed('}\n', true);
    expect(texts).toEqual([['{"a":1}', { line: 3 }]]);
    const pretty = await cut('\uFEFF{ \r\n "a": 1\n}', 100, 1000);
    expect(pretty.feeder.format).toBe('document');
  });

  it('cuts in work linear in the input however long a value is: each chunk searched once, a value joined once', async () => {
    const long = 'x'.repeat(4 * 1024 * 1024);
    const inputs: [string, string, number][] = [
      ['one long line', `{"a":"${long}"}\n{"b":1}\n`, 2],
      ['many short lines', '{"a":1}\n'.repeat(100_000), 100_000],
      ['one long array element', `[{"a":"${long}"},{"b":1}]`, 2],
      ['one long line past the limit', `{"a":"${long}${long}"}\n{"b":1}\n`, 2],
    ];
    for (const [name, input, values] of inputs) {
      const { feeder, events } = await cut(input, 1024, 6 * 1024 * 1024);
      expect(events, name).toHaveLength(values);
      // searched, measured and joined once each: about 3 characters of work per character of input;
      // searching the whole pending text again per 1 KiB chunk would be some 2,000
      expect(feeder.work, name).toBeLessThanOrEqual(4 * input.length);
    }
  });
});

describe.each(testDatabases())('a line past IMPORT_MAX_LINE_BYTES on $name', (tdb) => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'split-test-'));
  afterAll(async () => {
    fs.rmSync(tmp, { recursive: true, force: true });
    await tdb.cleanup();
  });

  it('CLI: is rejected naming its line and the limit, the lines after it land; --strict stops at it', async () => {
    const database = await tdb.create();
    const trade = (n: number, id = `t${n}`) =>
      JSON.stringify({
        symbol: 'ZZT',
        conditions: [12],
        exchange: 4,
        id,
        price: 1,
        sequence_number: n,
        sip_timestamp: n,
        size: 1,
        tape: 1,
      });
    const input = path.join(tmp, 'trades.ndjson');
    fs.writeFileSync(input, `${trade(1)}\n${trade(2, 'x'.repeat(3000))}\n${trade(3)}\n`);
    const cli = (...args: string[]) =>
      new Promise<{ status: number | null; out: string; err: string }>((resolve) =>
        execFile(
          process.execPath,
          ['--import', 'tsx', 'src/cli.ts', 'import', 'trades', input, ...args],
          {
            cwd: ROOT,
            env: {
              ...process.env,
              DATABASE_URL: databaseUrlOf(database),
              NODE_ENV: 'test',
              IMPORT_MAX_LINE_BYTES: '1024',
            },
            encoding: 'utf8',
            timeout: 60_000,
          },
          (e, out, err) => resolve({ status: e ? (typeof e.code === 'number' ? e.code : null) : 0, out, err }),
        ),
      );
    // --strict first: it writes nothing of the batch holding the long line, so the second run inserts both
    const strict = await cli('--strict');
    expect(strict.status).toBe(1);
    expect(strict.err).toContain(`import aborted (--strict) at line 2: ${tooLong('a line', '1,024')}`);
    const run = await cli();
    expect(run.status).toBe(1);
    expect(run.err.split('\n').filter((l) => l.startsWith('rejected'))).toEqual([
      `rejected line 2: ${tooLong('a line', '1,024')}`,
    ]);
    expect(run.out).toMatch(/\(ndjson\): 3 read, 2 inserted, 0 updated, 0 unchanged, 1 rejected in /);
  }, 120_000);
});
