// `cli import` of Massive's own bodies of GET /v3/reference/splits, /v3/reference/dividends and
// /vX/reference/tickers/{id}/events (their documented examples, typed in), into an empty
// database; the rows are read back by SQL, and served again in Massive's shape.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { openDatabase } from '../../src/bootstrap.js';
import { ROOT, type DatabaseConfig } from '../../src/config.js';
import type { Db } from '../../src/db/client.js';
import { databaseUrlOf, testConfig, testDatabases } from '../helpers.js';
import { rest } from '../rest/helpers.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'import-actions-'));

// Massive's examples of the three answers (its OpenAPI document, massive-com/client-jvm
// src/openapi.json; the events body as its recorded answer for META), with a second page's worth
// of records of our own beside them.
const SPLITS = {
  next_url: 'https://api.massive.com/v3/splits/AAPL?cursor=YWN0aXZlPXRydWUmZGF0ZT0yMDIx',
  request_id: '6a7e466379af0a71039d60cc78e72282',
  results: [
    {
      execution_date: '2020-08-31',
      id: 'E36416cce743c3964c5da63e1ef1626c0aece30fb47302eea5a49c0055c04e8d0',
      split_from: 1,
      split_to: 4,
      ticker: 'AAPL',
    },
    {
      execution_date: '2005-02-28',
      id: 'E90a77bdf742661741ed7c8fc086415f0457c2816c45899d73aaa88bdc8ff6025',
      split_from: 1,
      split_to: 2,
      ticker: 'AAPL',
    },
  ],
  status: 'OK',
};
const DIVIDENDS = {
  request_id: '6a7e466379af0a71039d60cc78e72282',
  results: [
    {
      cash_amount: 0.22,
      declaration_date: '2021-10-28',
      dividend_type: 'CD',
      ex_dividend_date: '2021-11-05',
      frequency: 4,
      id: 'E8e3c4f794613e9205e2f178a36c53fcc57cdabb55e1988c87b33f9e52e221444',
      pay_date: '2021-11-11',
      record_date: '2021-11-08',
      ticker: 'AAPL',
    },
    {
      cash_amount: 0.22,
      declaration_date: '2021-07-27',
      dividend_type: 'CD',
      ex_dividend_date: '2021-08-06',
      frequency: 4,
      id: 'E6436c5475706773f03490acf0b63fdb90b2c72bfeed329a6eb4afc080acd80ae',
      pay_date: '2021-08-12',
      record_date: '2021-08-09',
      ticker: 'AAPL',
    },
  ],
  status: 'OK',
};
const META_EVENTS = {
  request_id: '31d59dda-80e5-4721-8496-d0d32a654afe',
  results: {
    events: [
      { date: '2022-06-09', ticker_change: { ticker: 'META' }, type: 'ticker_change' },
      { date: '2012-05-18', ticker_change: { ticker: 'FB' }, type: 'ticker_change' },
    ],
    name: 'Meta Platforms, Inc. Class A Common Stock',
  },
  status: 'OK',
};

/** A security-master row of META: what its ticker events are kept under. */
const META = {
  id: 'BBG000MM2P62_XNAS',
  symbol: 'META',
  name: 'Meta Platforms, Inc. Class A Common Stock',
  status: 'ACTIVE',
  micCode: 'XNAS',
  figi: 'BBG000MM2P62',
  figiComposite: 'BBG000MM2P62',
  listDate: '2012-05-18',
};

function file(name: string, body: unknown): string {
  const at = path.join(tmp, name);
  fs.writeFileSync(at, JSON.stringify(body));
  return at;
}

/** `cli ARGS` as its own process. */
function cli(database: DatabaseConfig, args: string[]): Promise<{ status: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(
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
  });
}

describe.each(testDatabases())('cli import of corporate actions on $name', (tdb) => {
  let database: DatabaseConfig;
  let db: Db;
  let app: App;
  beforeAll(async () => {
    database = await tdb.createSeeded('none');
    const config = testConfig(database, { sampleData: 'none' });
    db = await openDatabase(config);
    app = createApp({ config, db });
  });
  afterAll(async () => {
    await db?.close();
    await tdb.cleanup();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it("imports Massive's splits and dividends bodies as they are; again, nothing changes", async () => {
    const splits = file('splits.json', SPLITS);
    const dividends = file('dividends.json', DIVIDENDS);
    const first = await cli(database, ['import', 'splits', splits]);
    expect(first.err).toBe('');
    expect(first.out).toMatch(/imported splits from .*: 2 read, 2 inserted, 0 updated, 0 unchanged, 0 rejected/);
    expect((await cli(database, ['import', 'dividends', dividends])).out).toMatch(/2 read, 2 inserted/);
    expect(await db.prisma.split.findMany({ orderBy: { executionDate: 'asc' } })).toEqual([
      { id: SPLITS.results[1]!.id, ticker: 'AAPL', executionDate: '2005-02-28', splitFrom: 1, splitTo: 2 },
      { id: SPLITS.results[0]!.id, ticker: 'AAPL', executionDate: '2020-08-31', splitFrom: 1, splitTo: 4 },
    ]);
    expect(await db.prisma.dividend.findMany({ orderBy: { exDividendDate: 'desc' } })).toEqual([
      {
        id: DIVIDENDS.results[0]!.id,
        ticker: 'AAPL',
        cashAmount: 0.22,
        currency: null,
        declarationDate: '2021-10-28',
        exDividendDate: '2021-11-05',
        payDate: '2021-11-11',
        recordDate: '2021-11-08',
        frequency: 4,
        dividendType: 'CD',
      },
      {
        id: DIVIDENDS.results[1]!.id,
        ticker: 'AAPL',
        cashAmount: 0.22,
        currency: null,
        declarationDate: '2021-07-27',
        exDividendDate: '2021-08-06',
        payDate: '2021-08-12',
        recordDate: '2021-08-09',
        frequency: 4,
        dividendType: 'CD',
      },
    ]);
    expect((await cli(database, ['import', 'splits', splits])).out).toMatch(
      /2 read, 0 inserted, 0 updated, 2 unchanged/,
    );
    // and served back as Massive wrote them, newest first
    expect((await rest({ app }, '/stocks/v3/reference/splits')).body.results).toEqual(SPLITS.results);
    expect((await rest({ app }, '/stocks/v3/reference/dividends')).body.results).toEqual(DIVIDENDS.results);
  });

  it('rejects a record that breaks a rule, naming the field and the value, and exits 1', async () => {
    const bad = file('bad-splits.ndjson', null);
    fs.writeFileSync(
      bad,
      [
        { ...SPLITS.results[0], id: 'zero', split_to: 0 },
        { ...SPLITS.results[0], id: 'day', execution_date: '2020-02-30' },
        { ...DIVIDENDS.results[0], frequency: 3 },
      ]
        .map((r) => JSON.stringify(r))
        .join('\n'),
    );
    const splits = await cli(database, ['import', 'splits', bad]);
    expect(splits.status).toBe(1);
    expect(splits.err).toContain('rejected line 1: split_to: must be a number greater than 0, got 0');
    expect(splits.err).toContain('rejected line 2: execution_date: must be a date yyyy-mm-dd, got "2020-02-30"');
    const dividends = await cli(database, ['import', 'dividends', bad]);
    expect(dividends.err).toContain('rejected line 3: frequency: must be one of 0, 1, 2, 4, 12, 24, 52, got 3');
  });

  it("imports Massive's ticker events under the security that has the ticker now, and serves them back", async () => {
    const events = file('meta-events.json', META_EVENTS);
    // no security has the ticker yet: nothing to keep the history under
    const early = await cli(database, ['import', 'ticker-events', events]);
    expect(early.status).not.toBe(0);
    expect(early.err).toContain('ticker events of META: no security of the master has that symbol now');
    expect(await db.prisma.symbolHistory.count()).toBe(0);

    await db.prisma.security.create({ data: META });
    const run = await cli(database, ['import', 'ticker-events', events]);
    expect(run.err).toBe('');
    expect(run.out).toMatch(/imported ticker-events from .*: 2 read, 2 inserted, 0 updated, 0 unchanged, 0 rejected/);
    expect(await db.prisma.symbolHistory.findMany({ orderBy: { startDate: 'asc' } })).toEqual([
      { securityId: META.id, symbol: 'FB', startDate: '2012-05-18' },
      { securityId: META.id, symbol: 'META', startDate: '2022-06-09' },
    ]);
    const served = await rest({ app }, '/stocks/vX/reference/tickers/META/events');
    expect(served.body.results).toEqual({
      events: META_EVENTS.results.events.map((e) => ({ ...e, event_type: 'ticker_change' })),
      name: META.name,
    });
    expect((await cli(database, ['import', 'ticker-events', events])).out).toMatch(
      /2 read, 0 inserted, 0 updated, 2 unchanged/,
    );
  });

  it('rejects an event of another kind, or without a date', async () => {
    const bad = file('bad-events.json', {
      results: {
        events: [
          { date: '2022-06-09', ticker_change: { ticker: 'META' }, event_type: 'ticker_change' },
          { date: '2020-01-01', ticker_change: { ticker: 'FB' }, event_type: 'delisting' },
          { ticker_change: { ticker: 'FB' }, type: 'ticker_change' },
        ],
      },
    });
    const run = await cli(database, ['import', 'ticker-events', bad]);
    expect(run.status).toBe(1);
    expect(run.err).toContain('event_type: must be one of ticker_change, got "delisting"');
    expect(run.err).toContain(
      'rejected line 1, record [2] of the body: date: must be a date yyyy-mm-dd, got nothing (the field is missing)',
    );
    expect(run.out).toMatch(/3 read, 0 inserted, 0 updated, 1 unchanged, 2 rejected/);
  });
});
