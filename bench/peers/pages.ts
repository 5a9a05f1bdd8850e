// The pages bench/peers.ts measures: each as our query and PostGraphile's equivalent (over the
// computed columns of bench/peers/relations.sql), and how each answer becomes the same records
// (our field names), so that the two can be compared before either is timed.
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../../src/config.js';

export interface Page {
  name: string;
  /** What the page lists, for the section. */
  title: string;
  ours: string;
  theirs: string;
  /** The answer's data as records in our names; theirs maps PostGraphile's names and encodings onto ours. */
  fromOurs(data: any): unknown;
  fromTheirs(data: any): unknown;
  /** Why the answer is not the page it claims to be (too few records, no children), or undefined. */
  lacks?(records: any): string | undefined;
}

/** Nanoseconds since the epoch (a BigInt column, a string in PostGraphile) as our `time` (millisecond precision, src/services/tick.ts fromNanos). */
const nanosToIso = (ns: string) => new Date(Number(BigInt(ns) / 1_000_000n)).toISOString();

const rating = (r: any) => ({
  firm: r.firm,
  action: r.action,
  rating: r.rating,
  priceTarget: r.priceTarget,
  createdAt: r.createdAt,
});
// our enum prints GAINERS, PostGraphile the PostgreSQL enum's label, gainers
const news = (n: any) => ({ headline: n.headline, type: String(n.type).toLowerCase(), createdAt: n.createdAt });

/** operations/company-page.graphql: the page the gateway is built for (its persisted document). */
const COMPANY_OURS = fs.readFileSync(path.join(ROOT, 'operations', 'company-page.graphql'), 'utf8');
const COMPANY_THEIRS = `query CompanyPage($symbol: String = "NVLX") {
  allSecurities(condition: { symbol: $symbol }, orderBy: PRIMARY_KEY_ASC, first: 1) {
    nodes {
      symbol
      name
      gics
      logo { pngUrl }
      latestQuote { bidPrice askPrice sipTimestamp }
      latestBalanceSheet { reportingPeriodEnd totalAssets totalLiabilities totalEquity }
      ratings(first: 5) { nodes { firm action rating priceTarget createdAt } }
      news(first: 5) { nodes { headline type createdAt } }
      trades(first: 5) { pageInfo { endCursor hasNextPage } nodes { price size sipTimestamp } }
    }
  }
}`;

const company: Page = {
  name: 'company',
  title:
    'company page: one security (NVLX) with classification, logo, latest quote, latest balance sheet, 5 ratings, 5 news items, 5 trades (operations/company-page.graphql)',
  ours: COMPANY_OURS,
  theirs: COMPANY_THEIRS,
  fromOurs: ({ security: s }) => ({
    symbol: s.symbol,
    name: s.name,
    gics: s.classification.gics,
    logo: s.logo?.png.url,
    quote: s.latestQuote && { bid: s.latestQuote.bidPrice, ask: s.latestQuote.askPrice, time: s.latestQuote.time },
    balanceSheet: s.latestBalanceSheet,
    ratings: s.ratings.nodes.map(rating),
    news: s.news.nodes.map(news),
    // cursors are each server's own encoding: only whether there is more is compared
    trades: { hasNextPage: s.trades.pageInfo.hasNextPage, nodes: s.trades.nodes },
  }),
  fromTheirs: ({
    allSecurities: {
      nodes: [s],
    },
  }) => ({
    symbol: s.symbol,
    name: s.name,
    gics: s.gics,
    logo: s.logo?.pngUrl,
    quote: s.latestQuote && {
      bid: s.latestQuote.bidPrice,
      ask: s.latestQuote.askPrice,
      time: nanosToIso(s.latestQuote.sipTimestamp),
    },
    balanceSheet: s.latestBalanceSheet,
    ratings: s.ratings.nodes.map(rating),
    news: s.news.nodes.map(news),
    trades: {
      hasNextPage: s.trades.pageInfo.hasNextPage,
      nodes: s.trades.nodes.map((t: any) => ({ price: t.price, size: t.size, time: nanosToIso(t.sipTimestamp) })),
    },
  }),
  lacks: (p) =>
    !p.logo || !p.quote || !p.balanceSheet || p.ratings.length < 5 || p.news.length < 3 || p.trades.nodes.length < 5
      ? 'a relation is missing or short'
      : undefined,
};

const floor: Page = {
  name: 'floor',
  title: 'floor: `{ __typename }` (no resolver, no SQL)',
  ours: '{ __typename }',
  theirs: '{ __typename }',
  fromOurs: (d) => d,
  fromTheirs: (d) => d,
};

const point: Page = {
  name: 'point',
  title: 'point: one security by symbol (NVLX), its symbol and name',
  ours: '{ security(symbol: "NVLX") { symbol name } }',
  theirs:
    '{ allSecurities(condition: { symbol: "NVLX" }, orderBy: PRIMARY_KEY_ASC, first: 1) { nodes { symbol name } } }',
  fromOurs: (d) => d.security,
  fromTheirs: (d) => d.allSecurities.nodes[0] ?? null,
  lacks: (s) => (s ? undefined : 'no security NVLX'),
};

/** Listing every sample security in id order: ours by the exchange-country search (all are US), theirs by condition. */
const listOurs = (n: number, fields: string) =>
  `{ securities(search: "US", searchType: EXCHANGE_COUNTRY, first: ${n}) { nodes { symbol ${fields} } } }`;
const listTheirs = (n: number, fields: string) =>
  `{ allSecurities(condition: { exchangeCountry: "US" }, orderBy: [EXCHANGE_COUNTRY_ASC, PRIMARY_KEY_ASC], first: ${n}) { nodes { symbol ${fields} } } }`;
const everyOne = (n: number, has: (s: any) => boolean, what: string) => (list: any[]) =>
  list.length !== n
    ? `${list.length} securities listed, not ${n}`
    : list.every(has)
      ? undefined
      : `not every listed security has ${what}`;

const LIST_FIELDS =
  'name ratings(first: 5) { nodes { firm action rating priceTarget createdAt } } news(first: 5) { nodes { headline type createdAt } }';
const list: Page = {
  name: 'list',
  title: 'list: 50 securities × (5 ratings + 5 news items)',
  ours: listOurs(50, LIST_FIELDS),
  theirs: listTheirs(50, LIST_FIELDS),
  fromOurs: (d) =>
    d.securities.nodes.map((s: any) => ({
      symbol: s.symbol,
      name: s.name,
      ratings: s.ratings.nodes.map(rating),
      news: s.news.nodes.map(news),
    })),
  fromTheirs: (d) =>
    d.allSecurities.nodes.map((s: any) => ({
      symbol: s.symbol,
      name: s.name,
      ratings: s.ratings.nodes.map(rating),
      news: s.news.nodes.map(news),
    })),
  lacks: everyOne(50, (s) => s.ratings.length > 0 && s.news.length > 0, 'ratings and news'),
};

const deep: Page = {
  name: 'deep',
  title: 'deep: 10 securities → 5 news items each → their associated press releases',
  ours: listOurs(
    10,
    'news(first: 5) { nodes { headline createdAt associatedPressReleases { headline publishTime } } }',
  ),
  theirs: listTheirs(10, 'news(first: 5) { nodes { headline createdAt pressReleasesList { headline publishTime } } }'),
  fromOurs: (d) =>
    d.securities.nodes.map((s: any) => ({
      symbol: s.symbol,
      news: s.news.nodes.map((n: any) => ({
        headline: n.headline,
        createdAt: n.createdAt,
        releases: n.associatedPressReleases,
      })),
    })),
  fromTheirs: (d) =>
    d.allSecurities.nodes.map((s: any) => ({
      symbol: s.symbol,
      news: s.news.nodes.map((n: any) => ({
        headline: n.headline,
        createdAt: n.createdAt,
        releases: n.pressReleasesList,
      })),
    })),
  lacks: (list) => {
    const releases = list.flatMap((s: any) => s.news.flatMap((n: any) => n.releases)).length;
    return (
      everyOne(10, (s) => s.news.length > 0, 'news')(list) ??
      (releases < 10 ? `only ${releases} press releases on the page` : undefined)
    );
  },
};

// the sample covers 50 companies (src/sample/catalog.ts COVERED_COMPANIES), so the widest page of
// parents that all have children is 50 wide: 1,000 child rows as 50 × 20 rather than 100 × 10
const wide: Page = {
  name: 'wide',
  title: 'wide: 50 securities × 20 trades (1,000 child rows; the sample covers 50 companies)',
  ours: listOurs(50, 'trades(first: 20) { nodes { price size time } }'),
  theirs: listTheirs(50, 'trades(first: 20) { nodes { price size sipTimestamp } }'),
  fromOurs: (d) => d.securities.nodes.map((s: any) => ({ symbol: s.symbol, trades: s.trades.nodes })),
  fromTheirs: (d) =>
    d.allSecurities.nodes.map((s: any) => ({
      symbol: s.symbol,
      trades: s.trades.nodes.map((t: any) => ({ price: t.price, size: t.size, time: nanosToIso(t.sipTimestamp) })),
    })),
  lacks: everyOne(50, (s) => s.trades.length === 20, '20 trades'),
};

export const PAGES: readonly Page[] = [company, floor, point, list, deep, wide];

const DATE_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:?\d\d)?$/;

/**
 * Values compared as values: a date-time as its instant (PostGraphile prints a `timestamp` column
 * without a zone, which PostgreSQL holds as UTC here; we print ISO with Z), numbers as numbers.
 */
export function normalize(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalize);
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalize(v)]));
  if (typeof value === 'string' && DATE_TIME.test(value))
    return { instant: Date.parse(/Z|[+-]\d\d:?\d\d$/.test(value.slice(10)) ? value : `${value}Z`) };
  return value;
}

/** The two answers as normalized records, and whether they are the same page. */
export function comparePage(
  page: Page,
  ours: any,
  theirs: any,
): { same: boolean; ours: string; theirs: string; lacks?: string | undefined } {
  const a = JSON.stringify(normalize(page.fromOurs(ours)));
  const b = JSON.stringify(normalize(page.fromTheirs(theirs)));
  return { same: a === b, ours: a, theirs: b, lacks: page.lacks?.(page.fromOurs(ours)) };
}
