// `cli import` for trades and quotes: files made of our own REST answers go into an empty database
// and come out as the same rows; reruns change nothing; rejects name their line and reason; --strict;
// exact 64-bit integers; a follow-mode stream lands rows before it ends; stored rows are published.
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, type DatabaseConfig } from '../../src/config.js';
import { createDb, type Db } from '../../src/db/client.js';
import { outboxEventBus } from '../../src/db/outbox.js';
import { memoryEventBus, tradeTopic, type EventBus } from '../../src/runtime/events.js';
import { describeReject, ImportAborted, importStream, type ImportOptions } from '../../src/ingest/import-stream.js';
import type { Importer } from '../../src/ingest/importer.js';
import { parseJsonExact } from '../../src/ingest/json.js';
import { importProgress, progressReporter } from '../../src/ingest/progress.js';
import { RejectTally, ruleOf } from '../../src/ingest/reject-summary.js';
import { migrate } from '../../src/db/migrate.js';
import { importer as quoteImporter } from '../../src/ingest/resources/quote.js';
import { importer as tradeImporter } from '../../src/ingest/resources/trade.js';
import type { Quote, Trade } from '../../generated/prisma/client.js';
import { graphqlHarness, type GraphQLHarness } from '../graphql/helpers.js';
import { databaseUrlOf, REPLAY_LIMITS, testDatabases } from '../helpers.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'import-test-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
let fileNo = 0;
function file(lines: string[] | string): string {
  const f = path.join(tmp, `input-${++fileNo}.json`);
  fs.writeFileSync(f, typeof lines === 'string' ? lines : `${lines.join('\n')}\n`);
  return f;
}

/** Every page of a tick route, as the exact response texts (19-digit integers intact). */
async function restPages(h: GraphQLHarness, first: string): Promise<string[]> {
  const texts: string[] = [];
  for (let next: string | undefined = first; next; ) {
    const res: Response = await h.app.fetch(next.startsWith('http') ? next : `http://test${next}`, {
      headers: { 'x-api-key': 'demo-enterprise' },
    });
    const text: string = await res.text();
    expect(res.status, text).toBe(200);
    texts.push(text);
    next = (JSON.parse(text) as { next_url?: string }).next_url;
  }
  return texts;
}

const ticks = (db: Db, model: 'trade' | 'quote', symbols: string[]) =>
  (db.prisma[model] as any).findMany({
    where: { symbol: { in: symbols } },
    orderBy: [{ symbol: 'asc' }, { sequenceNumber: 'asc' }],
  }) as Promise<(Trade | Quote)[]>;

const trade = (over: Record<string, unknown> = {}) => ({
  symbol: 'ZZT',
  conditions: [12, 37],
  exchange: 4,
  id: 't1',
  price: 10.5,
  sequence_number: 1,
  sip_timestamp: 1_795_208_399_869_397_000n,
  size: 100,
  tape: 1,
  ...over,
});
/** JSON text with bigints written as exact integers, as our REST routes write them. */
const json = (v: unknown, indent?: number) =>
  JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `#${x}#` : x), indent).replace(/"#(\d+)#"/g, '$1');
/** One trade as an NDJSON line. */
const line = (over: Record<string, unknown> = {}) => json(trade(over));

describe('parseJsonExact', () => {
  it('keeps integers beyond 2^53 exact as bigint, leaves safe ones numbers, and never touches strings', () => {
    expect(
      parseJsonExact(
        '{"a":1795208399869397596,"b":[9007199254740993, 12],"c":9007199254740991,"d":1.5e300,"e":-12345678901234567890}',
      ),
    ).toEqual({
      a: 1_795_208_399_869_397_596n,
      b: [9_007_199_254_740_993n, 12],
      c: 9_007_199_254_740_991,
      d: 1.5e300,
      e: -12_345_678_901_234_567_890n,
    });
    // digits inside a string that look like a big literal in value position stay text
    expect(parseJsonExact('{"s":"x:12345678901234567890,y","n":12345678901234567890}')).toEqual({
      s: 'x:12345678901234567890,y',
      n: 12_345_678_901_234_567_890n,
    });
    expect(() => parseJsonExact('{"a":1,')).toThrow(SyntaxError);
  });
});

describe('progress', () => {
  it('writes plain lines with rows, rows/s and ETA when its output is not a terminal', () => {
    const out: string[] = [];
    const stream = { isTTY: false, write: (s: string) => out.push(s) } as unknown as NodeJS.WriteStream;
    const p = progressReporter('trades', stream, 0);
    p.update(
      importProgress({
        rows: 50_000,
        bytes: 25,
        totalBytes: 100,
        elapsedMs: 1_000,
        counts: { read: 50_000, inserted: 0, updated: 0, unchanged: 0, rejected: 3, duplicates: 0 },
      }),
    );
    expect(out).toEqual(['trades: 50,000 rows | 50,000 rows/s | 3 rejected | ETA 3s | 25.0% of input\n']);
  });
});

describe('rejects by rule', () => {
  it('a rule is the reason without the value received, positions in field names and JSON syntax errors alike', () => {
    expect(ruleOf('price: must be a non-negative number, got -1')).toBe('price: must be a non-negative number');
    expect(ruleOf('price: must be a non-negative number, got "x"')).toBe('price: must be a non-negative number');
    expect(ruleOf('Securities[2].figi: must be a non-empty string, got 5')).toBe(
      'Securities[…].figi: must be a non-empty string',
    );
    expect(ruleOf(`invalid JSON: Unexpected token 'o', "nope" is not valid JSON`)).toBe('invalid JSON');
  });

  it('the first record of a rule is shown, one line per rule that more broke, most first', () => {
    const tally = new RejectTally();
    const shown = [
      { line: 1, reason: 'price: must be a non-negative number, got -1' },
      { line: 2, reason: 'size: must be a non-negative number, got -1' },
      { line: 3, reason: 'price: must be a non-negative number, got "x"' },
      { line: 4, reason: 'price: must be a non-negative number, got null' },
    ].map((r) => tally.add(r));
    expect(shown).toEqual([true, true, false, false]);
    expect(tally.lines(10, '; more')).toEqual([
      '3 of 10 records rejected: price: must be a non-negative number (the first at line 1; more)',
    ]);
  });
});

describe.each(testDatabases())('import trades and quotes on $name', (tdb) => {
  let source: GraphQLHarness;
  let symbols: string[];
  let target: Db;
  const open: Db[] = [];

  async function emptyDb(): Promise<Db> {
    const database = await tdb.create();
    await migrate(database);
    const db = await createDb(database);
    open.push(db);
    return db;
  }

  beforeAll(async () => {
    source = await graphqlHarness(tdb);
    const counts = await source.db.prisma.trade.groupBy({
      by: ['symbol'],
      _count: { _all: true },
      orderBy: { symbol: 'asc' },
    });
    symbols = counts
      .filter((c) => c._count._all > 100 && c._count._all < 400)
      .slice(0, 2)
      .map((c) => c.symbol);
    expect(symbols).toHaveLength(2);
    target = await emptyDb();
  });
  afterAll(async () => {
    for (const db of open) await db.close();
    await source?.close();
    await tdb.cleanup();
  });

  const kinds = [
    ['trades', 'trade', tradeImporter],
    ['quotes', 'quote', quoteImporter],
  ] as [string, 'trade' | 'quote', Importer<unknown>][];
  for (const [kind, model, importer] of kinds) {
    it(`${kind}: whole REST bodies (NDJSON, one page per line) land as the same rows; a rerun changes nothing`, async () => {
      for (const symbol of symbols) {
        const pages = await restPages(source, `/stocks/v3/${kind}/${symbol}?order=asc&limit=40`);
        expect(pages.length).toBeGreaterThan(2);
        // the last page has no next_url, so nothing in the body names the symbol: --symbol does
        const input = file(pages);
        const first = await importStream(target, importer, input, { defaults: { symbol } });
        const stored = await ticks(source.db, model, [symbol]);
        expect(first.format).toBe('ndjson');
        expect(first.counts).toEqual({
          read: stored.length,
          inserted: stored.length,
          updated: 0,
          unchanged: 0,
          rejected: 0,
          duplicates: 0,
        });
        expect(await ticks(target, model, [symbol])).toEqual(stored);

        const again = await importStream(target, importer, input, { defaults: { symbol }, batchSize: 7 });
        expect(again.counts).toMatchObject({
          read: stored.length,
          inserted: 0,
          updated: 0,
          unchanged: stored.length,
          rejected: 0,
        });
      }
    });

    it(`${kind}: a JSON array of records that name their symbol, into an empty database, gives the same rows`, async () => {
      const records: unknown[] = [];
      for (const symbol of symbols) {
        for (const text of await restPages(source, `/stocks/v3/${kind}/${symbol}?order=desc&limit=100`)) {
          records.push(
            ...(parseJsonExact(text) as { results: Record<string, unknown>[] }).results.map((r) => ({ symbol, ...r })),
          );
        }
      }
      // written back with exact integers, pretty-printed so that elements span lines
      const text = json(records, 2);
      const db = await emptyDb();
      const result = await importStream(db, importer, file(text), { batchSize: 100 });
      expect(result.format).toBe('array');
      expect(result.counts).toMatchObject({ read: records.length, inserted: records.length, rejected: 0 });
      expect(await ticks(db, model, symbols)).toEqual(await ticks(source.db, model, symbols));
    });
  }

  it('a changed record is updated, an equal one left alone, and the last of equal keys in a batch wins', async () => {
    const db = await emptyDb();
    await importStream(db, tradeImporter, file([line({ sequence_number: 1 }), line({ sequence_number: 2 })]));
    const result = await importStream(
      db,
      tradeImporter,
      file([
        line({ sequence_number: 1, price: 11 }),
        line({ sequence_number: 2 }),
        line({ sequence_number: 1, price: 12 }),
        line({ sequence_number: 3 }),
      ]),
    );
    expect(result.counts).toEqual({ read: 4, inserted: 1, updated: 1, unchanged: 1, rejected: 0, duplicates: 1 });
    expect(
      (await db.prisma.trade.findMany({ orderBy: { sequenceNumber: 'asc' } })).map((t) => [t.sequenceNumber, t.price]),
    ).toEqual([
      [1n, 12],
      [2n, 10.5],
      [3n, 10.5],
    ]);
  });

  it('two imports of the same rows at once store each row once and count it inserted once', async () => {
    const db = await emptyDb();
    const input = file(
      Array.from({ length: 600 }, (_, i) => line({ symbol: `C${i % 3}`, sequence_number: 1000 + Math.floor(i / 3) })),
    );
    const [a, b] = await Promise.all([
      importStream(db, tradeImporter, input, { batchSize: 50 }),
      importStream(db, tradeImporter, input, { batchSize: 50 }),
    ]);
    expect(a.counts.inserted + b.counts.inserted).toBe(600);
    expect(a.counts.unchanged + b.counts.unchanged).toBe(600);
    expect(a.counts.updated + b.counts.updated).toBe(0);
    expect(await db.prisma.trade.count()).toBe(600);
  });

  it('rejects name their line (or array index) and reason, and the valid rows still land', async () => {
    const db = await emptyDb();
    const rejects: string[] = [];
    const input = file([
      line({ sequence_number: 1 }),
      'not json at all',
      line({ sequence_number: -2 }),
      '',
      line({ sequence_number: 3, price: 'cheap' }),
      line({ sequence_number: 4, symbol: undefined }),
      line({ sequence_number: 5, sip_timestamp: 'yesterday' }),
      line({ sequence_number: 6, conditions: [1, 'x'] }),
      line({ sequence_number: 7 }),
      json({ status: 'ERROR', code: 'NOT_FOUND', message: 'unknown symbol "ZZT"', request_id: 'r1' }),
    ]);
    const result = await importStream(db, tradeImporter, input, { onReject: (r) => rejects.push(describeReject(r)) });
    expect(result.counts).toMatchObject({ read: 9, inserted: 2, rejected: 7 });
    expect(rejects).toEqual([
      expect.stringMatching(/^line 2: invalid JSON: /),
      'line 3: sequence_number: must be a non-negative integer, got -2',
      'line 5: price: must be a non-negative number, got "cheap"',
      "line 6: symbol: missing; one symbol's listing (GET /stocks/v3/trades/{symbol}) leaves it out of its records: pass --symbol SYMBOL",
      'line 7: sip_timestamp: must be a non-negative integer, got "yesterday"',
      'line 8: conditions: must be an array of 32-bit integers, got [1,"x"]',
      'line 10: a response body without results: "unknown symbol \\"ZZT\\""',
    ]);
    expect(result.rejects.map(describeReject)).toEqual(rejects);
    expect(
      (await db.prisma.trade.findMany({ orderBy: { sequenceNumber: 'asc' } })).map((t) => t.sequenceNumber),
    ).toEqual([1n, 7n]);

    // in a JSON array: the element's index, and the line it starts on; in a body, its record
    const arrayRejects: string[] = [];
    await importStream(db, tradeImporter, file(`[\n${line({ sequence_number: 8 })},\n${line({ tape: 1.5 })}\n]`), {
      onReject: (r) => arrayRejects.push(describeReject(r)),
    });
    expect(arrayRejects).toEqual(['line 3, array index 1: tape: must be a 32-bit integer, got 1.5']);
    const bodyRejects: string[] = [];
    await importStream(
      db,
      tradeImporter,
      file([json({ results: [trade({ sequence_number: 9 }), trade({ id: '' })], status: 'OK' })]),
      { onReject: (r) => bodyRejects.push(describeReject(r)) },
    );
    expect(bodyRejects).toEqual(['line 1, record [1] of the body: id: must be a non-empty string, got ""']);
  });

  it('a pretty-printed REST body (as jq prints it) is read as one document', async () => {
    const db = await emptyDb();
    const body = {
      next_url: 'http://test/stocks/v3/trades/zzd?cursor=abc',
      request_id: 'r',
      results: [
        trade({ symbol: undefined, sequence_number: 1 }),
        trade({ symbol: undefined, sequence_number: 2, size: 'x' }),
      ],
      status: 'OK',
    };
    const rejects: string[] = [];
    const result = await importStream(db, tradeImporter, file(json(body, 2)), {
      onReject: (r) => rejects.push(describeReject(r)),
    });
    expect(result.format).toBe('document');
    expect(result.counts).toMatchObject({ read: 2, inserted: 1, rejected: 1 });
    expect(rejects).toEqual(['record [1] of the body: size: must be a non-negative number, got "x"']);
    // the symbol came from the path of next_url
    expect(await db.prisma.trade.findMany({ select: { symbol: true, sequenceNumber: true } })).toEqual([
      { symbol: 'ZZD', sequenceNumber: 1n },
    ]);
  });

  it('--strict stops at the first reject before writing its batch; earlier batches stay committed', async () => {
    const db = await emptyDb();
    const input = file(
      [1, 2, 3, 4, 5].map((n) => (n === 4 ? line({ sequence_number: n, size: -1 }) : line({ sequence_number: n }))),
    );
    const error = await importStream(db, tradeImporter, input, { strict: true, batchSize: 2 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ImportAborted);
    const aborted = error as ImportAborted;
    expect(describeReject(aborted.reject)).toBe('line 4: size: must be a non-negative number, got -1');
    expect(aborted.committed).toMatchObject({ inserted: 2, updated: 0, unchanged: 0 });
    // the batch [3, 4] was never written
    expect(
      (await db.prisma.trade.findMany({ orderBy: { sequenceNumber: 'asc' } })).map((t) => t.sequenceNumber),
    ).toEqual([1n, 2n]);
  });

  it('keeps 19-digit timestamps and sequence numbers beyond 2^53 exact, and refuses values past 64 bits', async () => {
    const db = await emptyDb();
    const big = [9_007_199_254_740_993n, 9_223_372_036_854_775_807n];
    const rejects: string[] = [];
    const result = await importStream(
      db,
      tradeImporter,
      file([
        line({ sequence_number: big[0], sip_timestamp: 1_795_208_399_869_397_597n, id: '12345678901234567890' }),
        line({ sequence_number: big[1], sip_timestamp: 1_795_208_399_869_397_599n }),
        line({ sequence_number: 9_223_372_036_854_775_808n }),
      ]),
      { onReject: (r) => rejects.push(describeReject(r)) },
    );
    expect(result.counts).toMatchObject({ inserted: 2, rejected: 1 });
    expect(rejects).toEqual(['line 3: sequence_number: must be an integer from 0 to 2^63-1, got 9223372036854775808']);
    const rows = await db.prisma.trade.findMany({ orderBy: { sequenceNumber: 'asc' } });
    expect(rows.map((t) => [t.sequenceNumber, t.sipTimestamp, t.tradeId])).toEqual([
      [big[0], 1_795_208_399_869_397_597n, '12345678901234567890'],
      [big[1], 1_795_208_399_869_397_599n, 't1'],
    ]);
  });

  it('follow mode: rows of a stream that stays open land within the flush interval, and it ends at EOF', async () => {
    const db = await emptyDb();
    const stream = new PassThrough();
    const done = importStream(db, tradeImporter, { stream }, { follow: true, flushMs: 50 });
    stream.write(`${line({ sequence_number: 1 })}\n${line({ sequence_number: 2 })}\n`);
    await expect.poll(() => db.prisma.trade.count(), { timeout: 5_000, interval: 20 }).toBe(2);
    stream.write(`${line({ sequence_number: 3 })}\n{"symbol":"ZZT",`); // half a line waits for the rest
    await expect.poll(() => db.prisma.trade.count(), { timeout: 5_000, interval: 20 }).toBe(3);
    stream.end(
      `"conditions":[],"exchange":4,"id":"t4","price":1,"sequence_number":4,"sip_timestamp":1,"size":1,"tape":1}\n`,
    );
    const result = await done;
    expect(result.counts).toMatchObject({ read: 4, inserted: 4, rejected: 0 });
  });

  /** `busOf` makes the bus on the database written: the events go in the rows' transaction. */
  async function expectPublished(busOf: (db: Db) => EventBus, options: ImportOptions = {}) {
    const db = await emptyDb();
    const bus = busOf(db);
    const sub = bus.subscribe<Trade>(tradeTopic('ZZT'));
    const other = bus.subscribe<Trade>(tradeTopic('OTHER'));
    await Promise.all([sub.ready, other.ready]);
    const input = file([
      line({ sequence_number: 1 }),
      line({ sequence_number: 9_007_199_254_740_993n }),
      line({ symbol: 'OTHER', sequence_number: 1 }),
    ]);
    await importStream(db, tradeImporter, input, { events: bus, batchSize: 2, ...options });
    const stored = await db.prisma.trade.findMany({ where: { symbol: 'ZZT' }, orderBy: { sequenceNumber: 'asc' } });
    const got: Trade[] = [];
    for await (const t of sub) {
      got.push(t);
      if (got.length === 2) break;
    }
    expect(got).toEqual(stored);
    expect((await other.next()).value).toMatchObject({ symbol: 'OTHER', sequenceNumber: 1n });
    await other.return!();
    // a rerun inserts nothing, so it publishes nothing
    const again = bus.subscribe<Trade>(tradeTopic('ZZT'));
    await again.ready;
    await importStream(db, tradeImporter, input, { events: bus });
    await bus.publish(tradeTopic('ZZT'), 'marker');
    expect((await again.next()).value).toBe('marker');
    await again.return!();
    await bus.close();
  }

  it('publishes each inserted row, in the service shape, on trade:<SYMBOL> after its batch commits (in-process bus)', async () => {
    await expectPublished(() => memoryEventBus());
  });

  it('publishes through the database to a subscriber reading its table of live events', async () => {
    await expectPublished((db) => outboxEventBus(db, REPLAY_LIMITS));
  });

  it('after trades land, the derived metrics of their symbols follow the new latest price', async () => {
    const f = await source.db.prisma.fundamental.findFirst({
      where: { metrics: { peRatio: { not: null } } },
      include: { metrics: true },
      orderBy: { id: 'asc' },
    });
    expect(f).not.toBeNull();
    const latest = await source.db.prisma.trade.findFirstOrThrow({
      where: { symbol: f!.symbol },
      orderBy: [{ sipTimestamp: 'desc' }, { sequenceNumber: 'desc' }],
    });
    const newer = line({
      symbol: f!.symbol,
      sequence_number: latest.sequenceNumber + 1n,
      sip_timestamp: latest.sipTimestamp + 1n,
      price: latest.price * 2,
    });
    expect((await importStream(source.db, tradeImporter, file([newer]))).counts.inserted).toBe(1);
    const after = await source.db.prisma.fundamentalMetrics.findUniqueOrThrow({ where: { fundamentalId: f!.id } });
    expect(after.peRatio).not.toBe(f!.metrics!.peRatio);
    expect(after.peRatio! / f!.metrics!.peRatio!).toBeCloseTo(2, 1);
  });

  it('CLI: a summary line, exit 1 when records were rejected, exit 2 for an unknown resource; reads stdin', async () => {
    const database = await tdb.create();
    const input = file([line({ sequence_number: 1 }), line({ sequence_number: 2, price: -1 })]);
    const bad = await cli(database, ['import', 'trades', input]);
    expect(bad.status).toBe(1);
    expect(bad.err).toContain('rejected line 2: price: must be a non-negative number, got -1');
    expect(bad.out).toMatch(
      /imported trades from .*input-\d+\.json \(ndjson\): 2 read, 1 inserted, 0 updated, 0 unchanged, 1 rejected in [\d.]+ s/,
    );

    // the rest are independent of each other (other resources, or nothing written, or the same
    // row again): they run at once, each process still on its own
    const [piped, unknown, noFile, symbolForLogos, missing, strict] = await Promise.all([
      cli(
        database,
        ['import', 'quotes', '-', '--symbol', 'zzq', '--batch', '1'],
        `${JSON.stringify({ results: [{ ask_exchange: 1, ask_price: 2, ask_size: 3, bid_exchange: 1, bid_price: 1.5, bid_size: 3, conditions: [], sequence_number: 5, sip_timestamp: 7, tape: 1 }], status: 'OK' })}\n`,
      ),
      cli(database, ['import', 'trade', input]),
      cli(database, ['import', 'trades']),
      cli(database, ['import', 'logos', input, '--symbol', 'X']),
      cli(database, ['import', 'trades', path.join(tmp, 'nope.ndjson')]),
      cli(database, ['import', 'trades', input, '--strict']),
    ]);
    expect(piped!.status, piped!.err).toBe(0);
    expect(piped!.out).toMatch(/imported quotes from stdin \(ndjson\): 1 read, 1 inserted/);

    expect(unknown!.status).toBe(2);
    expect(unknown!.err).toContain('unknown resource "trade"; one of securities');
    expect(noFile!.status).toBe(2);
    expect(symbolForLogos!.err).toContain('--symbol is for trades and quotes');
    expect(missing!.status).toBe(1);
    expect(missing!.err).toContain('no such file');

    expect(strict!.status).toBe(1);
    expect(strict!.err).toContain('import aborted (--strict) at line 2: price');
  }, 60_000);

  it('CLI: a piped one-symbol listing without --symbol gives one line per reason with the count and the remedy; --verbose gives every record', async () => {
    const database = await tdb.create();
    // what `curl …/stocks/v3/trades/ORBT?limit=5000` returns for a short listing: one page, no next_url, no symbol anywhere
    const results = Array.from({ length: 3334 }, (_, i) => {
      const { symbol: _symbol, ...rest } = trade({ sequence_number: i + 1, id: `t${i}` });
      return rest;
    });
    const body = json({ results, status: 'OK', request_id: 'r1' });
    const [plain, verbose, fixed] = await Promise.all([
      cli(database, ['import', 'trades', '-'], body),
      cli(database, ['import', 'trades', '-', '--verbose'], body),
      cli(database, ['import', 'trades', '-', '--symbol', 'ORBT'], body),
    ]);
    const reason =
      "symbol: missing; one symbol's listing (GET /stocks/v3/trades/{symbol}) leaves it out of its records: pass --symbol SYMBOL";
    expect(plain.status).toBe(1);
    expect(plain.err.trim().split('\n')).toEqual([
      `rejected line 1, record [0] of the body: ${reason}`,
      `3,334 of 3,334 records rejected: ${reason} (the first at line 1, record [0] of the body; --verbose lists each)`,
    ]);
    expect(plain.out).toContain('3,334 read, 0 inserted, 0 updated, 0 unchanged, 3,334 rejected');
    expect(verbose.status).toBe(1);
    const lines = verbose.err.trim().split('\n');
    expect(lines).toHaveLength(3334);
    expect(lines[3333]).toBe(`rejected line 1, record [3333] of the body: ${reason}`);
    expect(fixed.status, fixed.err).toBe(0);
    expect(fixed.out).toContain('3,334 read, 3,334 inserted');
  }, 60_000);

  it('CLI --follow on stdin: rows land while the feed is open and reach a subscriber; Ctrl-C writes what was read and exits 0', async () => {
    const database = await tdb.create();
    await migrate(database);
    const db = await createDb(database);
    open.push(db);
    const bus = outboxEventBus(db, REPLAY_LIMITS);
    const sub = bus.subscribe<Trade>(tradeTopic('ZZF'));
    await sub.ready;
    try {
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'import', 'trades', '-', '--follow'], {
        cwd: ROOT,
        env: { ...process.env, DATABASE_URL: databaseUrlOf(database), NODE_ENV: 'test', REDIS_URL: '' },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      child.stdin.write(`${line({ symbol: 'ZZF', sequence_number: 1 })}\n`);
      await expect.poll(() => db.prisma.trade.count(), { timeout: 20_000, interval: 50 }).toBe(1);
      expect((await sub.next()).value).toMatchObject({
        symbol: 'ZZF',
        sequenceNumber: 1n,
        sipTimestamp: 1_795_208_399_869_397_000n,
      });
      child.stdin.write(`${line({ symbol: 'ZZF', sequence_number: 2 })}\n`);
      await expect.poll(() => db.prisma.trade.count(), { timeout: 5_000, interval: 50 }).toBe(2);
      child.kill('SIGINT'); // the feed is still open
      expect(await exited).toBe(0);
      expect(out).toMatch(/stopped by a signal after importing trades from stdin \(ndjson\): 2 read, 2 inserted/);
    } finally {
      await bus.close();
    }
  }, 60_000);
});

/** `npm run cli -- ARGS` as its own process, with `input` on stdin; asynchronous, so that several can run at once. */
function cli(
  database: DatabaseConfig,
  args: string[],
  input?: string,
): Promise<{ status: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      ['--import', 'tsx', 'src/cli.ts', ...args],
      {
        cwd: ROOT,
        env: { ...process.env, DATABASE_URL: databaseUrlOf(database), NODE_ENV: 'test', REDIS_URL: '' },
        encoding: 'utf8',
        timeout: 60_000,
      },
      (e, out, err) => resolve({ status: e ? (typeof e.code === 'number' ? e.code : null) : 0, out, err }),
    );
    child.stdin!.on('error', () => {}); // a child that exits without reading its stdin
    child.stdin!.end(input ?? '');
  });
}
