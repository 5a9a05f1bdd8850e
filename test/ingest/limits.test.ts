// The import holds every record to the limits of src/domain/limits.ts, the ones the GraphQL cost
// analysis counts with: every text field of every resource is refused one character past its
// kind's limit and taken at it, every list one item past its limit, text with control characters
// is refused; in a batch the refused record is a reject and the others land. The fields are
// enumerated from a record of each resource's own REST answer, so a field added to an importer
// without its kind fails here. The validators themselves: test/domain/limits.test.ts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/bootstrap.js';
import type { Db } from '../../src/db/client.js';
import type { Prisma } from '../../generated/prisma/client.js';
import { LIST_LIMITS, TEXT_LIMITS, type ListKind, type TextKind } from '../../src/domain/limits.js';
import { servedTextKinds } from '../domain/limits-helpers.js';

/** Every served text kind, the manifests' and the field tables' (test/domain/limits-helpers.ts). */
const FIELD_TEXT_KINDS = servedTextKinds();
import { describeReject, importStream } from '../../src/ingest/import-stream.js';
import { IMPORT_RESOURCES, RejectError, type Importer, type ImportResource } from '../../src/ingest/importer.js';
import { bodiesLackSymbol } from './helpers.js';
import { parseJsonExact } from '../../src/ingest/json.js';
import { importerFor } from '../../src/ingest/registry.js';
import { mdnaInsight } from '../../src/domain/insights.js';
import { graphqlHarness, type GraphQLHarness } from '../graphql/helpers.js';
import { testConfig, testDatabases } from '../helpers.js';
import { jsonOfLength, pad, tooLong, tooMany } from '../domain/limits-helpers.js';
import { rest } from '../rest/helpers.js';

/** Three records of each resource, as its REST route answers them (the first three of a route without pages). */
const PAGES: Record<ImportResource, string> = {
  securities: '/search/api/v1/securities?search_type=exchange_info.exchange_country&search=US&per_page=3',
  logos: '/api/v1/logos?page_size=3',
  'balance-sheets': '/stocks/v1/fundamentals/balance-sheet?symbols=NVLX&limit=3',
  fundamentals: '/delivery/api/v1/fundamentals/enhanced?symbol=NVLX&page_size=3',
  'press-releases': '/streamhive/api/v1/data?page_size=3',
  ratings: '/rating/api/v1/ratings?page_size=3',
  'call-summaries': '/delivery/api/v1/summaries?page_size=3',
  news: '/news/api/v1/news?symbol=NVLX&page_size=3',
  trades: '/stocks/v3/trades/NVLX?limit=3',
  quotes: '/stocks/v3/quotes/NVLX?limit=3',
  exchanges: '/stocks/v3/reference/exchanges?asset_class=stocks',
  splits: '/stocks/v3/reference/splits?limit=3',
  dividends: '/stocks/v3/reference/dividends?limit=3',
  'ticker-events': '/stocks/vX/reference/tickers/ORBT/events',
};

/** Resources whose route answers fewer than three records in the sample: the others are copies of the first, told apart by `as`. */
const FEW: Partial<Record<ImportResource, (record: any, i: number) => unknown>> = {
  // two splits in the sample
  splits: (r, i) => ({ ...r, id: `${r.id}-copy-${i}` }),
  // ORBT has had two symbols
  'ticker-events': (r, i) => ({ ...r, date: `19${90 + i}-01-02` }),
};

/**
 * The fields of each record that are not short text, by name (`[]` for any list index), with the
 * GraphQL coordinate that serves them (whose kind FIELD_TEXT_KINDS gives), or the kind itself for
 * text no GraphQL field serves as it is stored. Every other text field must be short.
 */
const NOT_SHORT: Record<ImportResource, Record<string, string>> = {
  securities: {
    'company_info.description': 'CompanyInfo.description',
    'company_info.homepage_url': 'CompanyInfo.homepageUrl',
    isin_history: 'Security.isinHistory',
  },
  logos: { 'logos.png.url': 'LogoPng.url', 'logos.svg.url': 'LogoImage.url', 'logos.thumbnail.url': 'LogoImage.url' },
  'balance-sheets': {},
  // read for the insights, never stored
  fundamentals: { risk_factors_text: 'filing', mdna_text: 'filing', legal_proceedings_text: 'filing' },
  'press-releases': {
    ReleaseID: 'PressRelease.releaseId',
    SourceURL: 'PressRelease.sourceUrl',
    SubHeadline: 'PressRelease.subHeadline',
    Summary: 'PressRelease.summary',
    BodyHTML: 'PressRelease.bodyHtml',
    BodyText: 'PressRelease.bodyText',
    'ExternalLinks[]': 'PressRelease.externalLinks',
    Categories: 'PressRelease.categories',
    MediaAssets: 'PressRelease.mediaAssets',
    Raw: 'PressRelease.raw',
  },
  ratings: { story: 'Rating.story' },
  'call-summaries': {
    summary: 'CallSummary.summary',
    guidance: 'CallSummary.guidance',
    'key_points[]': 'CallSummary.keyPoints',
  },
  // REST serves associated_ratings whole; GraphQL only its integer ids
  news: {
    logo_thumbnail_url: 'NewsItem.logoThumbnailUrl',
    associated_transcripts: 'NewsItem.associatedTranscripts',
    associated_ratings: 'json',
  },
  trades: {},
  quotes: {},
  exchanges: { url: 'Exchange.url' },
  splits: {},
  dividends: {},
  'ticker-events': {},
};

const kindOf = (resource: ImportResource, pattern: string): TextKind => {
  const target = NOT_SHORT[resource][pattern];
  if (target === undefined) return 'short';
  const kind = target in TEXT_LIMITS ? (target as TextKind) : FIELD_TEXT_KINDS[target];
  if (kind === undefined) throw new Error(`${target} is not in FIELD_TEXT_KINDS`);
  return kind;
};

/** Text fields whose format bounds them (dates, codes, enums, symbols, an id made of two fields): a long value is refused, for its format. */
const FORMATTED: Record<ImportResource, string[]> = {
  securities: [
    'id',
    'symbol',
    'identifiers.figi',
    'exchange_info.mic_code',
    'identifiers.cik',
    'company_info.list_date',
    'ticker_meta.last_updated_utc',
    'created_at',
    'updated_at',
  ],
  logos: ['symbol', 'created_at', 'updated_at'],
  'balance-sheets': ['cik', 'symbols[]', 'reporting_period_end', 'timeframe'],
  fundamentals: ['symbol', 'cik', 'EndPeriod', 'Quarter', 'created_at', 'updated_at'],
  'press-releases': ['PublishTime', 'Tickers[]', 'CreatedAt', 'UpdatedAt'],
  ratings: ['ticker', 'created_at', 'updated_at'],
  'call-summaries': ['symbol', 'call_date', 'fiscal_period', 'created_at', 'updated_at'],
  news: ['news_id', 'ticker', 'type', 'created_at', 'updated_at'],
  trades: ['symbol'],
  quotes: ['symbol'],
  exchanges: ['asset_class', 'locale', 'mic', 'operating_mic'],
  splits: ['execution_date', 'ticker'],
  dividends: ['declaration_date', 'dividend_type', 'ex_dividend_date', 'pay_date', 'record_date', 'ticker'],
  'ticker-events': ['current_ticker', 'date', 'event_type', 'ticker_change.ticker', 'type'],
};

/** Resources whose records hold no list. */
const WITHOUT_LISTS = new Set<ImportResource>(['ratings', 'exchanges', 'splits', 'dividends', 'ticker-events']);

/** Lists held as opaque JSON too (their items any JSON, or strings served as JSON). */
const JSON_LISTS = new Set(['isin_history', 'associated_ratings', 'associated_transcripts']);
const listKindOf = (pattern: string): ListKind =>
  pattern === 'conditions' ? 'conditions' : pattern === 'symbols' ? 'shareClasses' : 'children';

type Key = string | number;
interface Leaf {
  /** The field's name as a reject names it: `Securities[0].figi`. */
  name: string;
  /** The name with list indices left out: `Securities[].figi`. */
  pattern: string;
  path: Key[];
  value: unknown;
}

/** Every scalar (text, null ...) and every list of a record, not looking inside JSON fields. */
function leavesOf(
  resource: ImportResource,
  value: unknown,
  at: Leaf = { name: '', pattern: '', path: [], value },
): Leaf[] {
  const jsonField = at.path.length > 0 && kindOf(resource, at.pattern) === 'json';
  if (Array.isArray(value)) {
    const items = jsonField
      ? []
      : value.flatMap((v, i) =>
          leavesOf(resource, v, {
            name: `${at.name}[${i}]`,
            pattern: `${at.pattern}[]`,
            path: [...at.path, i],
            value: v,
          }),
        );
    return [at, ...items];
  }
  if (typeof value === 'object' && value !== null && !jsonField) {
    return Object.entries(value).flatMap(([k, v]) => {
      const dot = at.name ? '.' : '';
      return leavesOf(resource, v, {
        name: `${at.name}${dot}${k}`,
        pattern: `${at.pattern}${dot}${k}`,
        path: [...at.path, k],
        value: v,
      });
    });
  }
  return [at];
}

function withValue<T>(record: T, at: Key[], value: unknown): T {
  const copy = structuredClone(record) as any;
  let o = copy;
  for (const k of at.slice(0, -1)) o = o[k];
  o[at.at(-1)!] = value;
  return copy;
}

function reasonOf(importer: Importer<unknown>, record: unknown): string {
  try {
    importer.parse(record);
  } catch (e) {
    if (!(e instanceof RejectError)) throw e;
    return e.reason;
  }
  throw new Error(
    `accepted: ${JSON.stringify(record, (_k, v) => (typeof v === 'bigint' ? String(v) : v)).slice(0, 200)}`,
  );
}

const accepts = (importer: Importer<unknown>, record: unknown) => {
  try {
    importer.parse(record);
    return true;
  } catch (e) {
    if (e instanceof RejectError) return false;
    throw e;
  }
};

/** JSON text with bigints written as exact integers, as the REST routes write them. */
const json = (v: unknown) =>
  JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `#${x}#` : x)).replace(/"#(-?\d+)#"/g, '$1');

it('every coordinate of FIELD_TEXT_KINDS is filled by an import field of its kind', () => {
  const filled = new Set(Object.values(NOT_SHORT).flatMap((m) => Object.values(m)));
  expect(Object.keys(FIELD_TEXT_KINDS).filter((c) => !filled.has(c))).toEqual([]);
});

describe.each(testDatabases())('import limits on $name', (tdb) => {
  let source: GraphQLHarness;
  let target: Db;
  const records = {} as Record<ImportResource, unknown[]>;
  const importers = {} as Record<ImportResource, Importer<unknown>>;
  /** The security whose ticker events the batch imports (BATCH['ticker-events']). */
  let orbt: Prisma.SecurityCreateManyInput;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'import-limits-'));

  beforeAll(async () => {
    source = await graphqlHarness(tdb);
    target = await openDatabase(testConfig(await tdb.createSeeded('none'), { sampleData: 'none' }));
    const { isinHistory, ...security } = await source.db.prisma.security.findFirstOrThrow({
      where: { symbol: 'ORBT' },
    });
    orbt = { ...security, ...(isinHistory === null ? {} : { isinHistory }) };
    for (const resource of IMPORT_RESOURCES) {
      importers[resource] = await importerFor(resource);
      const page = await rest(source, PAGES[resource]);
      expect(page.status, page.text).toBe(200);
      const found = importers[resource].recordsOf(parseJsonExact(page.text))!.slice(0, 3);
      for (const copy = FEW[resource]; copy && found.length < 3; ) found.push(copy(found[0], found.length));
      // tick bodies name their symbol in the path only
      records[resource] = bodiesLackSymbol(resource) ? found.map((r) => ({ ...(r as object), symbol: 'NVLX' })) : found;
      expect(records[resource], resource).toHaveLength(3);
    }
  });
  afterAll(async () => {
    await source?.close();
    await target?.close();
    await tdb.cleanup();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it.each(IMPORT_RESOURCES)(
    '%s: every text field is refused one character past its limit and taken at it; control characters are refused',
    (resource) => {
      const importer = importers[resource];
      const good = records[resource][0];
      expect(accepts(importer, good)).toBe(true);
      const leaves = leavesOf(resource, good).filter(
        (l) => !Array.isArray(l.value) && (kindOf(resource, l.pattern) !== 'json' || !l.path.length),
      );
      // text: a string, or a null a string may take; fields the record lacks that are text of a kind
      const text = leaves.filter(
        (l) => typeof l.value === 'string' || (l.value === null && accepts(importer, withValue(good, l.path, 'x'))),
      );
      for (const pattern of Object.keys(NOT_SHORT[resource])) {
        if (!pattern.includes('[]') && kindOf(resource, pattern) !== 'json' && !text.some((l) => l.pattern === pattern))
          text.push({ name: pattern, pattern, path: [pattern], value: undefined });
      }
      const formatted = new Set(FORMATTED[resource]);
      expect(text.length, 'text fields found').toBeGreaterThan(0);
      for (const { name, pattern, path: at } of text) {
        const limit = TEXT_LIMITS[kindOf(resource, pattern)];
        const past = pad(limit + 1);
        if (formatted.has(pattern)) {
          expect(reasonOf(importer, withValue(good, at, past)).startsWith(`${name}: `), name).toBe(true);
          continue;
        }
        expect(accepts(importer, withValue(good, at, pad(limit))), `${name} at ${limit} characters`).toBe(true);
        expect(reasonOf(importer, withValue(good, at, past))).toBe(tooLong(name, limit, past));
        expect(reasonOf(importer, withValue(good, at, 'a\u0007b'))).toContain(
          `${name}: must be text without control characters (but tab, newline and carriage return) or lone surrogates, got the control character U+0007`,
        );
      }
      // every formatted field was met
      expect(FORMATTED[resource].filter((p) => !text.some((l) => l.pattern === p))).toEqual([]);
    },
  );

  it.each(IMPORT_RESOURCES)(
    '%s: every list is refused one item past its limit and taken at it; JSON fields are refused past TEXT_LIMITS.json',
    (resource) => {
      const importer = importers[resource];
      const good = records[resource][0];
      const lists = leavesOf(resource, good).filter(
        (l) =>
          Array.isArray(l.value) &&
          l.path.length &&
          (kindOf(resource, l.pattern) !== 'json' || JSON_LISTS.has(l.pattern)),
      );
      // a JSON list the record leaves out (a security without isin_history)
      for (const pattern of Object.keys(NOT_SHORT[resource])) {
        if (JSON_LISTS.has(pattern) && !lists.some((l) => l.pattern === pattern))
          lists.push({ name: pattern, pattern, path: [pattern], value: [] });
      }
      if (!WITHOUT_LISTS.has(resource)) expect(lists.length, 'lists found').toBeGreaterThan(0);
      for (const { name, pattern, path: at, value } of lists) {
        const max = LIST_LIMITS[listKindOf(pattern)];
        // one of its own items, or (an empty list) a short text or a small integer, whichever the field takes
        const item = (value as unknown[]).length
          ? (value as unknown[])[0]
          : ['x', 1].find((v) => accepts(importer, withValue(good, at, [v])));
        expect(item, `an item ${name} takes`).toBeDefined();
        expect(accepts(importer, withValue(good, at, Array(max).fill(item))), `${name} with ${max} items`).toBe(true);
        expect(reasonOf(importer, withValue(good, at, Array(max + 1).fill(item)))).toBe(tooMany(name, max));
      }
      const jsonFields = Object.keys(NOT_SHORT[resource]).filter((p) => kindOf(resource, p) === 'json');
      for (const name of jsonFields) {
        const shape = name === 'Raw' ? 'object' : 'list';
        expect(
          accepts(importer, withValue(good, [name], jsonOfLength(TEXT_LIMITS.json, shape))),
          `${name} at the limit`,
        ).toBe(true);
        expect(reasonOf(importer, withValue(good, [name], jsonOfLength(TEXT_LIMITS.json + 1, shape)))).toMatch(
          new RegExp(`^${name}: must be at most 16384 characters as JSON text, got 16385 characters`),
        );
      }
    },
  );

  /** The field each resource's batch puts past its limit in one record and at it in another, and how to read the stored one back. */
  const BATCH: Record<
    ImportResource,
    {
      path: Key[];
      value: (size: number) => unknown;
      limit: number;
      reason: string;
      stored: (db: Db) => Promise<number[]>;
      before?: (db: Db) => Promise<void>;
    }
  > = {
    securities: {
      path: ['company_info.description'],
      value: (n) => pad(n),
      limit: TEXT_LIMITS.long,
      reason: 'company_info.description: must be at most 32768 characters',
      stored: async (db) => (await db.prisma.security.findMany()).map((r) => r.description!.length),
    },
    logos: {
      path: ['logos', 'png', 'url'],
      value: (n) => `https://logos.example/${pad(n - 22)}`,
      limit: TEXT_LIMITS.url,
      reason: 'logos.png.url: must be at most 2048 characters',
      stored: async (db) => (await db.prisma.logo.findMany()).map((r) => r.pngUrl.length),
    },
    'balance-sheets': {
      path: ['symbols'],
      value: (n) => Array.from({ length: n }, (_, i) => `S${i}`),
      limit: LIST_LIMITS.shareClasses,
      reason: 'symbols: must have at most 20 items',
      stored: async (db) =>
        (await db.prisma.balanceSheet.findMany({ include: { symbols: true } })).map((r) => r.symbols.length),
    },
    fundamentals: {
      // not stored: what is, is the insight computed from it
      path: ['mdna_text'],
      value: (n) => 'We expect revenue to grow. '.repeat(Math.ceil(n / 27)).slice(0, n),
      limit: TEXT_LIMITS.filing,
      reason: 'mdna_text: must be at most 1048576 characters',
      stored: async (db) =>
        (await db.prisma.fundamentalMetrics.findMany()).map((r) => r.mdnaForwardLookingTermCount ?? 0),
    },
    'press-releases': {
      path: ['BodyHTML'],
      value: (n) => `<p>${pad(n - 7)}</p>`,
      limit: TEXT_LIMITS.long,
      reason: 'BodyHTML: must be at most 32768 characters',
      stored: async (db) => (await db.prisma.pressRelease.findMany()).map((r) => r.bodyHtml.length),
    },
    ratings: {
      path: ['story'],
      value: (n) => pad(n),
      limit: TEXT_LIMITS.long,
      reason: 'story: must be at most 32768 characters',
      stored: async (db) => (await db.prisma.rating.findMany()).map((r) => r.story.length),
    },
    'call-summaries': {
      path: ['summary'],
      value: (n) => pad(n),
      limit: TEXT_LIMITS.long,
      reason: 'summary: must be at most 32768 characters',
      stored: async (db) => (await db.prisma.callSummary.findMany()).map((r) => r.summary.length),
    },
    news: {
      path: ['associated_transcripts'],
      value: (n) => jsonOfLength(n, 'list'),
      limit: TEXT_LIMITS.json,
      reason: 'associated_transcripts: must be at most 16384 characters as JSON text',
      stored: async (db) =>
        (await db.prisma.newsItem.findMany()).map((r) => JSON.stringify(r.associatedTranscripts).length),
    },
    trades: {
      path: ['conditions'],
      value: (n) => Array.from({ length: n }, (_, i) => i + 1),
      limit: LIST_LIMITS.conditions,
      reason: 'conditions: must have at most 8 items',
      stored: async (db) => (await db.prisma.trade.findMany()).map((r) => (r.conditions as number[]).length),
    },
    quotes: {
      path: ['conditions'],
      value: (n) => Array.from({ length: n }, (_, i) => i + 1),
      limit: LIST_LIMITS.conditions,
      reason: 'conditions: must have at most 8 items',
      stored: async (db) => (await db.prisma.quote.findMany()).map((r) => (r.conditions as number[]).length),
    },
    exchanges: {
      path: ['url'],
      value: (n) => `https://www.example.com/${pad(n - 24)}`,
      limit: TEXT_LIMITS.url,
      reason: 'url: must be at most 2048 characters',
      stored: async (db) => (await db.prisma.exchange.findMany()).map((r) => r.url!.length),
    },
    splits: {
      path: ['id'],
      value: (n) => pad(n),
      limit: TEXT_LIMITS.short,
      reason: 'id: must be at most 256 characters',
      stored: async (db) => (await db.prisma.split.findMany()).map((r) => r.id.length),
    },
    dividends: {
      path: ['id'],
      value: (n) => pad(n),
      limit: TEXT_LIMITS.short,
      reason: 'id: must be at most 256 characters',
      stored: async (db) => (await db.prisma.dividend.findMany()).map((r) => r.id.length),
    },
    // a symbol is at most 20 characters (domain/symbols.ts)
    'ticker-events': {
      path: ['ticker_change', 'ticker'],
      value: (n) => 'T'.repeat(n),
      limit: 20,
      reason: 'ticker_change.ticker: must be 1 to 20 characters from A-Z 0-9 . -',
      stored: async (db) => (await db.prisma.symbolHistory.findMany()).map((r) => r.symbol.length),
      // the events are kept under the security that has their ticker now: the target holds it first
      before: async (db) => {
        await db.prisma.security.createMany({ data: [orbt], skipDuplicates: true });
      },
    },
  };

  it.each(IMPORT_RESOURCES)(
    '%s: in a batch the record past a limit is a reject naming it, and the others land, one of them at the limit',
    async (resource) => {
      const { path: at, value, limit, reason, stored, before } = BATCH[resource];
      await before?.(target);
      const [first, second, third] = records[resource];
      const lines = [first, withValue(second, at, value(limit + 1)), withValue(third, at, value(limit))].map(json);
      const file = path.join(dir, `${resource}.ndjson`);
      fs.writeFileSync(file, `${lines.join('\n')}\n`);
      const rejects: string[] = [];
      const result = await importStream(target, importers[resource], file, {
        onReject: (r) => rejects.push(describeReject(r)),
      });
      expect(rejects).toEqual([
        expect.stringMatching(new RegExp(`^line 2: ${reason.replace(/[[\]().]/g, '\\$&')}, got `)),
      ]);
      expect(result.counts).toMatchObject({ read: 3, inserted: 2, rejected: 1 });
      const sizes = await stored(target);
      expect(sizes).toHaveLength(2);
      expect(sizes).toContain(
        resource === 'fundamentals' ? mdnaInsight(value(limit) as string).forwardLookingTermCount : limit,
      );
    },
  );
});
