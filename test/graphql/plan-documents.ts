// The documents test/graphql/plan.test.ts asks of both apps (planner on and off): random ones over
// the fields src/graphql/plan/compile.ts knows, from a seeded generator so that every run asks the
// same, and a fixed list of edges (errors, refused documents, cursors from earlier answers).

/** One request: a document, its variables (absent = none sent) and the operation to run. */
export interface PlanCase {
  name: string;
  query: string;
  variables?: Record<string, unknown>;
  operationName?: string;
}

/** Stand-ins the test replaces with the `endCursor` of an earlier answer (see `cursorsOf` in plan.test.ts). */
export const CURSOR = {
  security: '@cursor-security@',
  rating: '@cursor-rating@',
  news: '@cursor-news@',
  trade: '@cursor-trade@',
} as const;

/** A cursor no list issues: base64 of JSON that is not a key tuple. */
const GARBAGE_CURSOR = 'WyJub3QiLCJhIiwiY3Vyc29yIl0=';

/** mulberry32: small, seeded, the same sequence on every machine. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SECURITY_LEAVES = ['securityId', 'symbol', 'name', 'status', 'isinHistory', 'createdAt', 'updatedAt'];
const GROUPS: Record<string, { type: string; leaves: string[] }> = {
  classification: {
    type: 'SecurityClassification',
    leaves: [
      'gics',
      'gicsCode',
      'marketSector',
      'securityDescription',
      'securityType',
      'securityType2',
      'sicCode',
      'sicDescription',
    ],
  },
  companyInfo: {
    type: 'CompanyInfo',
    leaves: ['description', 'homepageUrl', 'listDate', 'phoneNumber', 'totalEmployees', 'address'],
  },
  exchangeInfo: {
    type: 'ExchangeInfo',
    leaves: [
      'exchangeCountry',
      'exchangeName',
      'micCode',
      'vendoryExchangeCode',
      'vendoryTicker',
      'vendorxExchangeCode',
      'vendorxExchangeName',
    ],
  },
  financials: {
    type: 'SecurityFinancials',
    leaves: ['marketCap', 'roundLot', 'shareClassSharesOutstanding', 'weightedSharesOutstanding'],
  },
  identifiers: {
    type: 'SecurityIdentifiers',
    leaves: ['cik', 'cusip', 'figi', 'figiComposite', 'figiShareClass', 'isin', 'opol', 'permid', 'ric'],
  },
  tickerMeta: {
    type: 'TickerMeta',
    leaves: [
      'active',
      'currencyName',
      'lastUpdatedUtc',
      'locale',
      'market',
      'primaryExchange',
      'ticker',
      'tickerRoot',
      'type',
    ],
  },
};
const ADDRESS = ['address1', 'city', 'postalCode', 'state'];
const RATING_LEAVES = [
  'ratingId',
  'firm',
  'ticker',
  'exchange',
  'company',
  'action',
  'rating',
  'priceTarget',
  'story',
  'isRating',
  'createdAt',
  'updatedAt',
];
const NEWS_LEAVES = [
  'newsItemId',
  'newsId',
  'headline',
  'catalyst',
  'catalystCreated',
  'logoExists',
  'logoThumbnailUrl',
  'onAllTickers',
  'onEntities',
  'shareClassFigi',
  'ticker',
  'type',
  'createdAt',
  'updatedAt',
];
const TRADE_LEAVES = [
  'symbol',
  'tradeId',
  'price',
  'size',
  'exchange',
  'tape',
  'sequenceNumber',
  'sipTimestamp',
  'time',
];
const PAGE_INFO = ['hasNextPage', 'hasPreviousPage', 'startCursor', 'endCursor'];

/** [searchType (undefined: the default), search]: matches of every size, none, LIKE wildcards, empty (an error). */
const SEARCHES: [string | undefined, string][] = [
  [undefined, 'N'],
  [undefined, 'NV'],
  [undefined, 'NVLX'],
  ['SYMBOL', 'nvlx'],
  [undefined, 'A'],
  ['SYMBOL', 'B'],
  [undefined, 'ZZZZ'],
  [undefined, 'N%'],
  [undefined, 'A_'],
  ['SYMBOL', '%'],
  [undefined, ''],
  [undefined, '  '],
  ['EXCHANGE_COUNTRY', 'US'],
  ['EXCHANGE_COUNTRY', 'XX'],
  ['MIC_CODE', 'XNYS'],
  ['GICS_CODE', '45'],
  ['CIK', '5631331'],
  ['CIK', '0005631331'],
  ['CIK', '56'],
  ['FIGI', 'BBG'],
  ['ISIN', 'US'],
  ['CUSIP', '5'],
  ['FIGI_COMPOSITE', 'BBG'],
  ['FIGI_SHARE_CLASS', 'BBG'],
  ['OPOL', 'X'],
];
/** Root `first`: in range and the max; now and then the three kinds of out of range (the same error both ways). */
const ROOT_FIRSTS = [1, 2, 3, 5, 10, 250];
const BAD_FIRSTS = [0, -1, 251];
const RATING_FILTERS = [
  '{ firm: "Larkspur Research" }',
  '{ exchange: "NYSE" }',
  '{ company: "Nobody At All Inc." }',
  '{ from: "2020-01-01T00:00:00Z" }',
  '{ from: "2020-01-01T00:00:00Z", to: "2100-01-01T00:00:00Z" }',
  '{ from: "2100-01-01T00:00:00Z", to: "2020-01-01T00:00:00Z" }',
];
const TRADE_RANGES = [
  'from: "2000-01-01T00:00:00Z"',
  'to: "2100-01-01T00:00:00Z"',
  'from: "2100-01-01T00:00:00Z"',
  'from: "2100-01-01T00:00:00Z", to: "2000-01-01T00:00:00Z"',
];

/** One document being written: its variables, fragments and a counter for unique names. */
class Doc {
  readonly defs: string[] = [];
  readonly variables: Record<string, unknown> = {};
  readonly fragments: string[] = [];
  #n = 0;
  constructor(readonly rng: () => number) {}

  chance(p: number): boolean {
    return this.rng() < p;
  }
  pick<T>(list: readonly T[]): T {
    return list[Math.floor(this.rng() * list.length)]!;
  }
  /** `min` to `max` distinct items of `list` in random order. */
  some<T>(list: readonly T[], min: number, max: number): T[] {
    const pool = [...list];
    const n = Math.min(pool.length, min + Math.floor(this.rng() * (max - min + 1)));
    const out: T[] = [];
    while (out.length < n) out.push(pool.splice(Math.floor(this.rng() * pool.length), 1)[0]!);
    return out;
  }
  name(prefix: string): string {
    return `${prefix}${++this.#n}`;
  }

  /** A leaf, now and then under an alias, now and then asked twice under the same key (merged by graphql-js). */
  leaf(field: string): string {
    if (this.chance(0.12)) return `${this.name('a')}: ${field}`;
    if (this.chance(0.06)) return `${field} ${field}`;
    return field;
  }

  /** Selections with `__typename` now and then, some of them moved into a fragment of the type (inline, bare or named). */
  wrap(type: string, selections: string[]): string {
    const all = this.chance(0.2) ? [...selections, '__typename'] : selections;
    if (all.length < 2 || !this.chance(0.25)) return all.join(' ');
    const cut = 1 + Math.floor(this.rng() * (all.length - 1));
    const inner = all.slice(cut).join(' ');
    const kind = this.pick(['on', 'bare', 'named'] as const);
    let spread = `... on ${type} { ${inner} }`;
    if (kind === 'bare') spread = `... { ${inner} }`;
    if (kind === 'named') {
      const name = this.name('F');
      this.fragments.push(`fragment ${name} on ${type} { ${inner} }`);
      spread = `...${name}`;
    }
    return [...all.slice(0, cut), spread].join(' ');
  }

  /**
   * An argument's value: a literal, or a variable given, defaulted in its definition, sent as null
   * or left out (`rare`: the last two seldom, where they are errors).
   */
  arg(name: string, type: string, value: string, json: unknown, rare = false): string {
    const modes = ['literal', 'literal', 'given', 'default', 'null', 'absent'] as const;
    const mode = rare && this.chance(0.85) ? this.pick(modes.slice(0, 4)) : this.pick(modes);
    if (mode === 'literal') return `${name}: ${value}`;
    const v = this.name(name);
    if (mode === 'default') this.defs.push(`$${v}: ${type} = ${value}`);
    else this.defs.push(`$${v}: ${type}`);
    if (mode === 'given') this.variables[v] = json;
    if (mode === 'null') this.variables[v] = null;
    return `${name}: $${v}`;
  }
}

function connection(d: Doc, type: string, node: () => string): string {
  const parts = d.some(['nodes', 'edges', 'pageInfo', '__typename'], 1, 3).map((part) => {
    // two `nodes` under one key are merged; under another key they are a second list
    if (part === 'nodes')
      return d.chance(0.1)
        ? `nodes { ${node()} } ${d.chance(0.5) ? 'nodes' : `${d.name('n')}: nodes`} { ${node()} }`
        : `nodes { ${node()} }`;
    if (part === 'edges') {
      const inner = d
        .some(['cursor', 'node', '__typename'], 1, 3)
        .map((f) => (f === 'node' ? `node { ${node()} }` : f));
      return `edges { ${d.wrap(`${type}Edge`, inner)} }`;
    }
    if (part === 'pageInfo')
      return `pageInfo { ${d.wrap(
        'PageInfo',
        d.some(PAGE_INFO, 1, 4).map((f) => d.leaf(f)),
      )} }`;
    return part;
  });
  return d.wrap(`${type}Connection`, parts);
}

/** `first` of a child list: mostly small; now and then the max or out of range. */
function childFirst(d: Doc, max: number): string | undefined {
  if (d.chance(0.3)) return undefined;
  const first = d.chance(0.9) ? d.pick([1, 2, 3, 5]) : d.pick([max, 0, -3, max + 1]);
  return d.chance(0.2) ? d.arg('first', 'Int', String(first), first) : `first: ${first}`;
}

function childAfter(d: Doc, cursor: string): string | undefined {
  if (!d.chance(0.12)) return undefined;
  const value = d.chance(0.7) ? cursor : GARBAGE_CURSOR;
  return d.arg('after', 'String', JSON.stringify(value), value);
}

function ratings(d: Doc): string {
  const args = [
    childFirst(d, 100),
    d.chance(0.35) ? `filter: ${d.pick(RATING_FILTERS)}` : undefined,
    childAfter(d, CURSOR.rating),
  ];
  return list(d, 'ratings', args, 'Rating', () =>
    d.wrap(
      'Rating',
      d.some(RATING_LEAVES, 1, 5).map((f) => d.leaf(f)),
    ),
  );
}

function news(d: Doc): string {
  const args = [
    childFirst(d, 100),
    d.chance(0.4) ? `type: ${d.pick(['GAINERS', 'LOSERS'])}` : undefined,
    childAfter(d, CURSOR.news),
  ];
  return list(d, 'news', args, 'NewsItem', () =>
    d.wrap(
      'NewsItem',
      d.some(NEWS_LEAVES, 1, 5).map((f) => d.leaf(f)),
    ),
  );
}

function trades(d: Doc): string {
  const args = [
    childFirst(d, 5000),
    d.chance(0.4) ? `order: ${d.pick(['ASC', 'DESC'])}` : undefined,
    d.chance(0.25) ? d.pick(TRADE_RANGES) : undefined,
    childAfter(d, CURSOR.trade),
  ];
  return list(d, 'trades', args, 'Trade', () =>
    d.wrap(
      'Trade',
      d.some(TRADE_LEAVES, 1, 5).map((f) => d.leaf(f)),
    ),
  );
}

function list(d: Doc, field: string, args: (string | undefined)[], type: string, node: () => string): string {
  const given = args.filter((a) => a !== undefined);
  const key = d.chance(0.15) ? `${d.name('l')}: ` : '';
  return `${key}${field}${given.length ? `(${given.join(', ')})` : ''} { ${connection(d, type, node)} }`;
}

function group(d: Doc, field: string): string {
  const { type, leaves } = GROUPS[field]!;
  const chosen = d.some(leaves, 1, 4).map((f) =>
    f === 'address'
      ? `address { ${d.wrap(
          'Address',
          d.some(ADDRESS, 1, 3).map((a) => d.leaf(a)),
        )} }`
      : d.leaf(f),
  );
  const one = `${field} { ${d.wrap(type, chosen)} }`;
  if (d.chance(0.1)) return `${one} ${field} { ${d.leaf(d.pick(leaves.filter((l) => l !== 'address')))} }`;
  return d.chance(0.12) ? `${d.name('g')}: ${one}` : one;
}

/** A security's selections: leaves, same-row groups and, `children` times at most, a child list (two aliases of one with different `first` now and then). */
function security(d: Doc, children: number): string {
  const out = d.some(SECURITY_LEAVES, 0, 3).map((f) => d.leaf(f));
  for (const g of d.some(Object.keys(GROUPS), 0, 3)) out.push(group(d, g));
  for (const make of d.some([ratings, news, trades], 0, children)) out.push(make(d));
  if (d.chance(0.08)) out.push(`r1: ratings(first: 1) { nodes { firm } } r2: ratings(first: 3) { nodes { firm } }`);
  if (out.length === 0) out.push('symbol');
  return d.wrap('Security', out);
}

/** The root `securities` field with its arguments, each a literal or a variable in one of its modes. */
function securities(d: Doc, key: string): string {
  const [searchType, search] = d.pick(SEARCHES);
  const args = [d.arg('search', 'String!', JSON.stringify(search), search, true)];
  if (searchType)
    args.push(
      d.chance(0.8) ? `searchType: ${searchType}` : d.arg('searchType', 'SecuritySearchType', searchType, searchType),
    );
  const first = d.chance(0.9) ? d.pick(ROOT_FIRSTS) : d.pick(BAD_FIRSTS);
  // children of a large page stay small: the answer is compared, not its size measured
  const children = first > 10 ? 0 : 2;
  if (d.chance(0.75)) args.push(d.arg('first', 'Int', String(first), first));
  // the cursor is of a symbol search: of another list it is an error, as garbage is
  const after = d.chance(0.7) && (searchType ?? 'SYMBOL') === 'SYMBOL' ? CURSOR.security : GARBAGE_CURSOR;
  if (d.chance(0.15)) args.push(d.arg('after', 'String', JSON.stringify(after), after));
  return `${key}securities(${args.join(', ')}) { ${connection(d, 'Security', () => security(d, children))} }`;
}

/** A random document: one or two `securities` (two aliases of it now and then), `__typename` of Query now and then. */
export function randomCase(rng: () => number, i: number): PlanCase {
  const d = new Doc(rng);
  const roots = [securities(d, d.chance(0.2) ? 'found: ' : '')];
  if (d.chance(0.2)) roots.push(securities(d, 'again: '));
  if (d.chance(0.1)) roots.unshift('__typename');
  const named = d.chance(0.3) ? `Doc${i}` : undefined;
  const head = d.defs.length || named ? `query ${named ?? ''}${d.defs.length ? `(${d.defs.join(', ')})` : ''} ` : '';
  const query = [`${head}{ ${roots.join(' ')} }`, ...d.fragments].join('\n');
  return {
    name: `random ${i}`,
    query,
    ...(d.defs.length ? { variables: d.variables } : {}),
    ...(named && d.chance(0.5) ? { operationName: named } : {}),
  };
}

export function randomCases(seed: number, count: number): PlanCase[] {
  const rng = prng(seed);
  return Array.from({ length: count }, (_, i) => randomCase(rng, i));
}

const q = (name: string, query: string, variables?: Record<string, unknown>, operationName?: string): PlanCase => ({
  name,
  query,
  ...(variables ? { variables } : {}),
  ...(operationName ? { operationName } : {}),
});
const PAGE = 'pageInfo { hasNextPage hasPreviousPage startCursor endCursor }';

/** Edges asked on purpose: the limits, cursors from earlier answers, documents the planner refuses, keys JavaScript objects treat specially. */
export function fixedCases(): PlanCase[] {
  return [
    q('only __typename', '{ __typename }'),
    q(
      'every group',
      `{ securities(search: "N") { nodes { ${Object.entries(GROUPS)
        .map(
          ([g, { leaves }]) =>
            `${g} { ${leaves.map((l) => (l === 'address' ? `address { ${ADDRESS.join(' ')} }` : l)).join(' ')} }`,
        )
        .join(' ')} ${SECURITY_LEAVES.join(' ')} } } }`,
    ),
    q(
      'securities at the max',
      `{ securities(search: "US", searchType: EXCHANGE_COUNTRY, first: 250) { ${PAGE} edges { cursor node { symbol } } } }`,
    ),
    q(
      'ratings and news at the max',
      `{ securities(search: "NVLX") { nodes { ratings(first: 100) { ${PAGE} nodes { ${RATING_LEAVES.join(' ')} } } news(first: 100) { ${PAGE} nodes { ${NEWS_LEAVES.join(' ')} } } } } }`,
    ),
    q(
      'trades at the max',
      `{ securities(search: "NVLX", first: 1) { nodes { trades(first: 5000) { ${PAGE} nodes { ${TRADE_LEAVES.join(' ')} } } } } }`,
    ),
    q(
      'trades past the max',
      '{ securities(search: "NVLX", first: 1) { nodes { trades(first: 5001) { nodes { price } } } } }',
    ),
    q(
      'trades oldest first after a cursor',
      `query ($a: String) { securities(search: "NV") { nodes { trades(order: ASC, first: 3, after: $a) { ${PAGE} edges { cursor node { time sipTimestamp } } } } } }`,
      { a: CURSOR.trade },
    ),
    q(
      'securities after a cursor',
      `query ($a: String) { securities(search: "N", first: 2, after: $a) { ${PAGE} nodes { symbol } } }`,
      { a: CURSOR.security },
    ),
    q(
      'ratings after a cursor',
      `{ securities(search: "NVLX") { nodes { ratings(first: 2, after: "${CURSOR.rating}") { ${PAGE} nodes { ratingId } } } } }`,
    ),
    q(
      'news after a cursor',
      `{ securities(search: "NVLX") { nodes { news(after: "${CURSOR.news}") { ${PAGE} nodes { newsItemId type } } } } }`,
    ),
    q(
      'trades backward before a cursor',
      `query ($b: String) { securities(search: "NV") { nodes { trades(order: ASC, last: 3, before: $b) { ${PAGE} edges { cursor node { time sipTimestamp } } } } } }`,
      { b: CURSOR.trade },
    ),
    q(
      'securities backward: the last ones, and before a cursor',
      `query ($b: String) { a: securities(search: "N", last: 2) { ${PAGE} nodes { symbol } } b: securities(search: "N", last: 2, before: $b) { ${PAGE} nodes { symbol } } }`,
      { b: CURSOR.security },
    ),
    q(
      'ratings and news backward, between two cursors',
      `{ securities(search: "NVLX") { nodes { ratings(last: 2) { ${PAGE} nodes { ratingId } } news(last: 1, before: "${CURSOR.news}") { ${PAGE} nodes { newsItemId } } r: ratings(first: 2, before: "${CURSOR.rating}") { ${PAGE} nodes { ratingId } } } } }`,
    ),
    q('first with last', '{ securities(search: "N", first: 2, last: 2) { nodes { symbol } } }'),
    q('last past the max', '{ securities(search: "NVLX") { nodes { news(last: 101) { nodes { headline } } } } }'),
    q('garbage before', `{ securities(search: "N", last: 1, before: "${GARBAGE_CURSOR}") { nodes { symbol } } }`),
    q('garbage cursor', `{ securities(search: "N", after: "${GARBAGE_CURSOR}") { nodes { symbol } } }`),
    q('a cursor that is not base64', '{ securities(search: "N", after: "%%%") { nodes { symbol } } }'),
    q(
      'variables all defaulted',
      'query ($s: String! = "NV", $f: Int = 2, $a: String) { securities(search: $s, first: $f, after: $a) { nodes { symbol } } }',
    ),
    q(
      'variables all null',
      'query ($s: String! = "NV", $f: Int, $a: String) { securities(search: $s, first: $f, after: $a) { nodes { symbol } } }',
      { f: null, a: null },
    ),
    q('a variable of the wrong type', 'query ($f: Int) { securities(search: "N", first: $f) { nodes { symbol } } }', {
      f: '3',
    }),
    q('a required variable missing', 'query ($s: String!) { securities(search: $s) { nodes { symbol } } }', {}),
    q(
      'first from a variable past the max',
      'query ($f: Int) { securities(search: "N", first: $f) { nodes { symbol } } }',
      { f: 251 },
    ),
    q(
      'two aliases, different first',
      '{ a: securities(search: "N", first: 1) { nodes { symbol } } b: securities(search: "N", first: 3) { nodes { symbol } } }',
    ),
    q(
      'child aliases, different first',
      '{ securities(search: "NVLX") { nodes { a: news(first: 1) { nodes { headline } } b: news(first: 4) { nodes { headline } } } } }',
    ),
    q(
      'one key asked three ways',
      '{ securities(search: "NV") { nodes { symbol ... on Security { symbol name } ...N } nodes { name } } } fragment N on Security { name symbol }',
    ),
    q(
      'two operations, the second run',
      'query A { securities(search: "A") { nodes { symbol } } } query B { securities(search: "B") { nodes { name } } }',
      undefined,
      'B',
    ),
    q(
      'an operation name the document lacks',
      'query A { securities(search: "A") { nodes { symbol } } }',
      undefined,
      'Nope',
    ),
    q('an alias named __proto__ at the root', '{ __proto__: securities(search: "NVLX") { nodes { symbol } } }'),
    q(
      'an alias named __proto__ inside',
      '{ securities(search: "NVLX") { __proto__: nodes { __proto__: symbol companyInfo { __proto__: listDate } } } }',
    ),
    q(
      'an alias named constructor',
      '{ constructor: __typename securities(search: "NVLX") { nodes { toString: symbol hasOwnProperty: name } } }',
    ),
    q(
      'a root security',
      '{ security(symbol: "NVLX") { symbol name logo { png { url width } svg { sizeKb } } latestQuote { bidPrice time } } }',
    ),
    q(
      'a root security by FIGI, beside a search',
      '{ a: security(figi: "NOPE") { symbol } security(symbol: "NVLX") { symbol latestBalanceSheet { reportingPeriodEnd totalAssets treasuryStock } } securities(search: "N") { nodes { symbol } } }',
    ),
    q('a root security by ISIN (graphql-js answers)', '{ security(isin: "US0000000000") { symbol } }'),
    q('a root security by two identifiers (an error)', '{ security(symbol: "NVLX", figi: "X") { symbol } }'),
    q('a root security by a bad symbol (an error)', '{ security(symbol: "n v") { symbol } }'),
    q(
      'refused: @include true',
      'query ($x: Boolean!) { securities(search: "N") { nodes { symbol name @include(if: $x) } } }',
      { x: true },
    ),
    q(
      'refused: @include false',
      'query ($x: Boolean!) { securities(search: "N") { nodes { symbol name @include(if: $x) } } }',
      { x: false },
    ),
    q('refused: @skip', '{ securities(search: "N") @skip(if: false) { nodes { symbol } } }'),
    q('refused: totalCount', '{ securities(search: "N") { totalCount nodes { symbol } } }'),
    q('refused: a child totalCount', '{ securities(search: "NVLX") { nodes { ratings { totalCount } } } }'),
    q(
      'refused: the node id and a fragment on Node',
      '{ securities(search: "NVLX") { nodes { id ... on Node { id } } } }',
    ),
    q(
      'refused: a list of children',
      '{ securities(search: "NVLX") { nodes { news { nodes { securities { ticker } } } } } }',
    ),
    q(
      'the press releases of news items',
      '{ securities(search: "US", searchType: EXCHANGE_COUNTRY, first: 10) { nodes { news(first: 5) { nodes { headline createdAt associatedPressReleases { __typename headline publishTime } associatedPressReleaseIds } } } } }',
    ),
    q(
      'the press releases of news items, aliased twice',
      '{ securities(search: "N") { nodes { news { nodes { a: associatedPressReleases { headline } b: associatedPressReleases { publishTime headline } } } } } }',
    ),
    q(
      'latest trade, latest balance sheet by timeframe',
      '{ securities(search: "NV") { nodes { latestTrade { price time } latestBalanceSheet(timeframe: ANNUAL) { fiscalYear } } } }',
    ),
    q('refused: trade conditions', '{ securities(search: "NV") { nodes { latestTrade { conditions } } } }'),
    q('invalid: an unknown field', '{ securities(search: "N") { nodes { nope } } }'),
    q('invalid: conflicting fields under one key', '{ securities(search: "N") { nodes { x: symbol x: name } } }'),
  ];
}
