/**
 * Deterministic sample data (decisions.md, "Sample data").
 *
 * A pure function of `SampleOptions`: no database, no I/O, no clock, no `Math.random`. Every value
 * comes from a seeded PRNG stream named after what it generates (`<seed>/<stream>/<index>`), so
 * the same options always give byte-identical rows, and the rows of one company do not change
 * when more securities are asked for. Dates are relative to a fixed anchor instant.
 *
 * Reference data (securities, logos, statements, news ...) is small and returned at once; trades
 * and quotes are streamed in batches so that tens of millions of rows never sit in memory.
 *
 * Money is generated in whole thousands of dollars, so every amount is an integer below 2^53 and
 * every sum (balance-sheet identities, statement subtotals, fiscal-year totals) is exact in
 * floating point.
 */
import type { Prisma } from '../../generated/prisma/client.js';
import {
  BALANCE_SHEET,
  BALANCE_SHEET_OPTIONAL,
  BALANCE_SHEET_REQUIRED,
  CASH_FLOW,
  INCOME_STATEMENT,
  STATEMENT_LINES,
  camelOf,
  columnOf,
  type BalanceSheetAmount,
  type StatementLine,
} from '../domain/fundamentals.js';
import { derivedMetrics } from '../domain/financial-metrics.js';

// ================================================================ options

export interface SampleOptions {
  seed: number;
  scale: number;
  securities: number;
}

export const DEFAULT_SAMPLE: SampleOptions = { seed: 42, scale: 1, securities: 50 };

/** Identifier codes are bijections of the security index; this keeps every code space far from full. */
const MAX_SECURITIES = 1_000_000;

function checkOptions(opts: SampleOptions): void {
  if (!Number.isFinite(opts.seed)) throw new RangeError(`sample seed must be a finite number, got ${opts.seed}`);
  if (!Number.isFinite(opts.scale) || opts.scale < 0) throw new RangeError(`sample scale must be >= 0, got ${opts.scale}`);
  if (!Number.isSafeInteger(opts.securities) || opts.securities < 1 || opts.securities > MAX_SECURITIES) {
    throw new RangeError(`sample securities must be an integer in 1..${MAX_SECURITIES}, got ${opts.securities}`);
  }
}

export interface SampleSecurity {
  row: Prisma.SecurityCreateManyInput;
  logo: Prisma.LogoCreateManyInput & { id: number };
  logoSecurityInfo: Prisma.LogoSecurityInfoCreateManyInput[];
}

// ================================================================ time

const DAY_MS = 86_400_000;
/** Friday 2026-11-20, 16:00 New York time (EST): the close of the last session in the data set. */
const ANCHOR_DAY_MS = Date.UTC(2026, 10, 20);
const ANCHOR_MS = ANCHOR_DAY_MS + 21 * 3_600_000;
/** 09:30 New York time in UTC (the sessions all fall after the end of daylight saving time). */
const SESSION_OPEN_MS = (14 * 60 + 30) * 60_000;
const SESSION_NS = 6.5 * 3600 * 1e9;
const SESSION_COUNT = 5;
const TRADING_NS = SESSION_NS * SESSION_COUNT;

const isoDate = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
/** Last day of a month (1-based) at 00:00 UTC. */
const monthEndMs = (year: number, month: number): number => Date.UTC(year, month, 0);
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const longDate = (ms: number): string => {
  const d = new Date(ms);
  return `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}, ${d.getUTCFullYear()}`;
};

/** Epoch nanoseconds of the opening bell of each session, oldest first. */
function sessionOpensNs(): bigint[] {
  const opens: bigint[] = [];
  for (let day = ANCHOR_DAY_MS; opens.length < SESSION_COUNT; day -= DAY_MS) {
    const weekday = new Date(day).getUTCDay();
    if (weekday !== 0 && weekday !== 6) opens.unshift(BigInt(day + SESSION_OPEN_MS) * 1_000_000n);
  }
  return opens;
}

// ================================================================ PRNG and small helpers

/** sfc32 seeded with cyrb128 of a text key: tiny, fast, and plenty for sample data. */
class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(key: string) {
    let h1 = 1779033703, h2 = 3144134277, h3 = 1013904242, h4 = 2773480762;
    for (let i = 0; i < key.length; i++) {
      const k = key.charCodeAt(i);
      h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
      h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
      h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
      h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
    }
    h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
    h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
    h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
    h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
    h1 ^= h2 ^ h3 ^ h4;
    this.a = h1 >>> 0;
    this.b = (h2 ^ h1) >>> 0;
    this.c = (h3 ^ h1) >>> 0;
    this.d = (h4 ^ h1) >>> 0;
    for (let i = 0; i < 12; i++) this.next();
  }

  /** Uniform in [0, 1). */
  next(): number {
    const a = this.a, b = this.b, c = this.c, d = this.d;
    const t = (((a + b) | 0) + d) | 0;
    this.d = (d + 1) | 0;
    this.a = b ^ (b >>> 9);
    this.b = (c + (c << 3)) | 0;
    this.c = (((c << 21) | (c >>> 11)) + t) | 0;
    return (t >>> 0) / 4294967296;
  }

  /** Integer in lo..hi (inclusive). */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  range(lo: number, hi: number): number {
    return lo + this.next() * (hi - lo);
  }

  /** Log-uniform in lo..hi, for magnitudes (prices, share counts). */
  logRange(lo: number, hi: number): number {
    return Math.exp(this.range(Math.log(lo), Math.log(hi)));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** k distinct items in random order. */
  sample<T>(items: readonly T[], k: number): T[] {
    const pool = items.slice();
    const n = Math.min(k, pool.length);
    for (let i = 0; i < n; i++) {
      const j = i + Math.floor(this.next() * (pool.length - i));
      [pool[i], pool[j]] = [pool[j]!, pool[i]!];
    }
    return pool.slice(0, n);
  }
}

const rngFor = (seed: number, stream: string, index: number | string = 0): Rng => new Rng(`${seed}/${stream}/${index}`);

/** Whole thousands of dollars (`+ 0` turns -0 into 0). */
const k = (x: number): number => Math.round(x / 1000) * 1000 + 0;
const round = (x: number, digits: number): number => {
  const f = 10 ** digits;
  return Math.round(x * f) / f + 0;
};
const neg = (x: number): number => 0 - x;
const money = (x: number): string => x.toFixed(2).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
const billions = (x: number): string => (Math.abs(x) >= 1e9 ? `$${(x / 1e9).toFixed(2)} billion` : `$${(x / 1e6).toFixed(1)} million`);

/** index -> index * multiplier + offset (mod modulus): a bijection when multiplier is coprime to modulus. */
const CODE_MULTIPLIER = 15_485_863; // prime, coprime to every modulus below
const scatter = (index: number, modulus: number, offset: number): number => (index * CODE_MULTIPLIER + offset) % modulus;

function uuidV4(rng: Rng): string {
  const bytes: number[] = [];
  for (let i = 0; i < 16; i++) bytes.push(Math.floor(rng.next() * 256));
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.map((b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

// ================================================================ identifier check digits

/** Character value used by FIGI, CUSIP and ISIN: digits as themselves, A=10 .. Z=35. */
const charValue = (ch: string): number => {
  const code = ch.charCodeAt(0);
  return code <= 57 ? code - 48 : code - 55;
};

/** FIGI (and CUSIP) check digit: every second character's value doubled, digits of all values summed. */
function modifiedLuhn(body: string): string {
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    const v = charValue(body[i]!) * (i % 2 === 1 ? 2 : 1);
    sum += Math.floor(v / 10) + (v % 10);
  }
  return String((10 - (sum % 10)) % 10);
}

/** ISIN check digit: letters expanded to two digits, then Luhn over the digit string. */
function isinCheckDigit(body: string): string {
  const digits = [...body].map((ch) => String(charValue(ch))).join('');
  let sum = 0;
  for (let i = digits.length - 1, double = true; i >= 0; i--, double = !double) {
    let v = digits.charCodeAt(i) - 48;
    if (double) v = v * 2 > 9 ? v * 2 - 9 : v * 2;
    sum += v;
  }
  return String((10 - (sum % 10)) % 10);
}

const FIGI_CHARS = 'BCDFGHJKLMNPQRSTVWXYZ0123456789'; // FIGIs use consonants and digits only
const BASE36 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

function encode(n: number, alphabet: string, width: number): string {
  let out = '';
  for (let i = 0; i < width; i++) {
    out = alphabet[n % alphabet.length] + out;
    n = Math.floor(n / alphabet.length);
  }
  return out;
}

const FIGI_SPACE = 31 ** 5;
const CUSIP_SPACE = 10 * 36 ** 5;

interface CodeOffsets {
  figi: number;
  cusip: number;
  cik: number;
  permid: number;
}

function codeOffsets(seed: number): CodeOffsets {
  const rng = rngFor(seed, 'codes');
  return {
    figi: rng.int(0, FIGI_SPACE - 1),
    cusip: rng.int(0, CUSIP_SPACE - 1),
    cik: rng.int(0, 8_999_999),
    permid: rng.int(0, 999_999),
  };
}

/** kind 0: listing FIGI, 1: composite FIGI, 2: share-class FIGI (its own `BBG001` prefix). */
function figiOf(index: number, kind: 0 | 1 | 2, offsets: CodeOffsets): string {
  const body = `${kind === 2 ? 'BBG001' : 'BBG000'}${encode(scatter(index * 3 + kind, FIGI_SPACE, offsets.figi), FIGI_CHARS, 5)}`;
  return body + modifiedLuhn(body);
}

function cusipOf(index: number, issue: string, offsets: CodeOffsets): string {
  const n = scatter(index, CUSIP_SPACE, offsets.cusip);
  const body = `${Math.floor(n / 36 ** 5)}${encode(n % 36 ** 5, BASE36, 5)}${issue}`;
  return body + modifiedLuhn(body);
}

const isinOf = (cusip: string): string => `US${cusip}${isinCheckDigit(`US${cusip}`)}`;

// ================================================================ catalog: exchanges, industries, companies

interface Exchange {
  mic: 'XNAS' | 'XNYS';
  name: string;
  label: string;
  /** vendor-y (Bloomberg-style) exchange code, as in security-info `exch_code` */
  exchCode: string;
  vendorxCode: string;
  vendorxName: string;
  ricSuffix: string;
  tape: number;
}

const EXCHANGES: Record<'XNAS' | 'XNYS', Exchange> = {
  XNAS: { mic: 'XNAS', name: 'NASDAQ - ALL MARKETS', label: 'NASDAQ', exchCode: 'UW', vendorxCode: 'NAS', vendorxName: 'Nasdaq Stock Market', ricSuffix: '.OQ', tape: 3 },
  XNYS: { mic: 'XNYS', name: 'NEW YORK STOCK EXCHANGE, INC.', label: 'NYSE', exchCode: 'UN', vendorxCode: 'NYS', vendorxName: 'New York Stock Exchange', ricSuffix: '.N', tape: 1 },
};

interface Industry {
  sector: string;
  gicsCode: string;
  subIndustry: string;
  sicCode: string;
  sicDescription: string;
  /** completes "<Company> ..." in descriptions */
  does: string;
  product: string;
  /** typical price-to-sales ratio, margins and ratios to revenue */
  ps: number;
  grossMargin: number;
  sga: number;
  rd: number;
  capex: number;
  /** net fixed assets as a multiple of annual revenue */
  fixedAssets: number;
  inventory: boolean;
  dividendProbability: number;
  revenuePerEmployee: number;
  themes: readonly string[];
  topics: readonly string[];
}

const INDUSTRIES = {
  semis: {
    sector: 'Information Technology', gicsCode: '45301020', subIndustry: 'Semiconductors', sicCode: '3674', sicDescription: 'SEMICONDUCTORS & RELATED DEVICES',
    does: 'designs processors, accelerators and mixed-signal chips for data-center, automotive and industrial customers', product: 'accelerator',
    ps: 8, grossMargin: 0.58, sga: 0.1, rd: 0.2, capex: 0.06, fixedAssets: 0.35, inventory: true, dividendProbability: 0.3, revenuePerEmployee: 900_000,
    themes: ['foundry concentration', 'export controls', 'customer concentration', 'cyclical demand'], topics: ['data-center demand', 'wafer supply', 'gross margin expansion'],
  },
  software: {
    sector: 'Information Technology', gicsCode: '45103010', subIndustry: 'Application Software', sicCode: '7372', sicDescription: 'SERVICES-PREPACKAGED SOFTWARE',
    does: 'sells subscription software that helps enterprises plan, automate and secure their operations', product: 'platform',
    ps: 9, grossMargin: 0.76, sga: 0.38, rd: 0.22, capex: 0.03, fixedAssets: 0.1, inventory: false, dividendProbability: 0.1, revenuePerEmployee: 420_000,
    themes: ['data privacy regulation', 'cybersecurity incidents', 'competition from larger vendors', 'talent retention'], topics: ['annual recurring revenue', 'net retention', 'AI features'],
  },
  hardware: {
    sector: 'Information Technology', gicsCode: '45202030', subIndustry: 'Technology Hardware, Storage & Peripherals', sicCode: '3572', sicDescription: 'COMPUTER STORAGE DEVICES',
    does: 'builds storage arrays, networking gear and edge servers for enterprise data centers', product: 'storage system',
    ps: 2.5, grossMargin: 0.36, sga: 0.14, rd: 0.09, capex: 0.04, fixedAssets: 0.2, inventory: true, dividendProbability: 0.5, revenuePerEmployee: 600_000,
    themes: ['component shortages', 'pricing pressure', 'tariffs', 'inventory obsolescence'], topics: ['enterprise refresh cycle', 'supply chain', 'services attach rate'],
  },
  pharma: {
    sector: 'Health Care', gicsCode: '35202010', subIndustry: 'Pharmaceuticals', sicCode: '2834', sicDescription: 'PHARMACEUTICAL PREPARATIONS',
    does: 'develops and markets therapies for oncology, immunology and rare diseases', product: 'therapy',
    ps: 5, grossMargin: 0.72, sga: 0.28, rd: 0.3, capex: 0.04, fixedAssets: 0.25, inventory: true, dividendProbability: 0.4, revenuePerEmployee: 700_000,
    themes: ['clinical trial outcomes', 'drug pricing reform', 'patent expiries', 'regulatory approval timing'], topics: ['pipeline milestones', 'launch trajectory', 'pricing'],
  },
  medtech: {
    sector: 'Health Care', gicsCode: '35101010', subIndustry: 'Health Care Equipment', sicCode: '3841', sicDescription: 'SURGICAL & MEDICAL INSTRUMENTS & APPARATUS',
    does: 'makes surgical systems, monitoring devices and consumables used by hospitals and clinics', product: 'surgical system',
    ps: 5, grossMargin: 0.62, sga: 0.32, rd: 0.09, capex: 0.05, fixedAssets: 0.3, inventory: true, dividendProbability: 0.5, revenuePerEmployee: 350_000,
    themes: ['product recalls', 'hospital capital budgets', 'reimbursement changes', 'device regulation'], topics: ['procedure volumes', 'installed base', 'recurring consumables'],
  },
  bank: {
    sector: 'Financials', gicsCode: '40101015', subIndustry: 'Regional Banks', sicCode: '6022', sicDescription: 'STATE COMMERCIAL BANKS',
    does: 'provides commercial lending, deposit and wealth-management services to businesses and households', product: 'digital banking service',
    ps: 3, grossMargin: 0.65, sga: 0.3, rd: 0, capex: 0.02, fixedAssets: 0.1, inventory: false, dividendProbability: 0.95, revenuePerEmployee: 450_000,
    themes: ['credit quality', 'deposit competition', 'interest rate risk', 'commercial real estate exposure'], topics: ['net interest margin', 'loan growth', 'credit reserves'],
  },
  assetManagement: {
    sector: 'Financials', gicsCode: '40203010', subIndustry: 'Asset Management & Custody Banks', sicCode: '6282', sicDescription: 'INVESTMENT ADVICE',
    does: 'manages mutual funds, ETFs and separate accounts for institutions and individual investors', product: 'ETF',
    ps: 4, grossMargin: 0.6, sga: 0.3, rd: 0, capex: 0.015, fixedAssets: 0.08, inventory: false, dividendProbability: 0.8, revenuePerEmployee: 900_000,
    themes: ['fee compression', 'market volatility', 'fund outflows', 'key-person risk'], topics: ['assets under management', 'net flows', 'fee rate'],
  },
  retail: {
    sector: 'Consumer Discretionary', gicsCode: '25503030', subIndustry: 'Broadline Retail', sicCode: '5331', sicDescription: 'RETAIL-VARIETY STORES',
    does: 'operates discount stores and an online marketplace for home goods, apparel and everyday essentials', product: 'membership program',
    ps: 0.8, grossMargin: 0.32, sga: 0.22, rd: 0.01, capex: 0.03, fixedAssets: 0.25, inventory: true, dividendProbability: 0.6, revenuePerEmployee: 220_000,
    themes: ['consumer spending', 'labor costs', 'shrink', 'tariffs'], topics: ['comparable sales', 'e-commerce growth', 'inventory discipline'],
  },
  autos: {
    sector: 'Consumer Discretionary', gicsCode: '25102010', subIndustry: 'Automobile Manufacturers', sicCode: '3711', sicDescription: 'MOTOR VEHICLES & PASSENGER CAR BODIES',
    does: 'designs and manufactures electric vehicles, battery packs and charging equipment', product: 'electric SUV',
    ps: 1.2, grossMargin: 0.18, sga: 0.07, rd: 0.05, capex: 0.07, fixedAssets: 0.5, inventory: true, dividendProbability: 0.3, revenuePerEmployee: 600_000,
    themes: ['battery supply', 'EV incentives', 'warranty costs', 'production ramp'], topics: ['deliveries', 'unit economics', 'battery costs'],
  },
  aerospace: {
    sector: 'Industrials', gicsCode: '20101010', subIndustry: 'Aerospace & Defense', sicCode: '3812', sicDescription: 'SEARCH, DETECTION, NAVIGATION, GUIDANCE, AERONAUTICAL SYS',
    does: 'builds satellites, avionics and defense electronics for government and commercial customers', product: 'satellite bus',
    ps: 2, grossMargin: 0.24, sga: 0.08, rd: 0.04, capex: 0.03, fixedAssets: 0.25, inventory: true, dividendProbability: 0.7, revenuePerEmployee: 400_000,
    themes: ['government budgets', 'fixed-price contracts', 'supply chain', 'export licensing'], topics: ['backlog', 'program execution', 'book-to-bill'],
  },
  machinery: {
    sector: 'Industrials', gicsCode: '20106010', subIndustry: 'Construction Machinery & Heavy Transportation Equipment', sicCode: '3531', sicDescription: 'CONSTRUCTION MACHINERY & EQUIP',
    does: 'manufactures construction machinery, automation systems and aftermarket parts', product: 'autonomous loader',
    ps: 2, grossMargin: 0.3, sga: 0.11, rd: 0.04, capex: 0.04, fixedAssets: 0.3, inventory: true, dividendProbability: 0.7, revenuePerEmployee: 450_000,
    themes: ['steel prices', 'dealer inventories', 'infrastructure spending', 'cyclical demand'], topics: ['order intake', 'pricing', 'aftermarket growth'],
  },
  energy: {
    sector: 'Energy', gicsCode: '10102020', subIndustry: 'Oil & Gas Exploration & Production', sicCode: '1311', sicDescription: 'CRUDE PETROLEUM & NATURAL GAS',
    does: 'explores for and produces oil, natural gas and natural gas liquids in North American basins', product: 'gas processing facility',
    ps: 2.2, grossMargin: 0.45, sga: 0.04, rd: 0, capex: 0.25, fixedAssets: 2, inventory: true, dividendProbability: 0.8, revenuePerEmployee: 2_500_000,
    themes: ['commodity prices', 'environmental regulation', 'reserve estimates', 'well performance'], topics: ['production volumes', 'capital discipline', 'realized prices'],
  },
  utility: {
    sector: 'Utilities', gicsCode: '55101010', subIndustry: 'Electric Utilities', sicCode: '4911', sicDescription: 'ELECTRIC SERVICES',
    does: 'generates, transmits and distributes electricity to residential, commercial and industrial customers', product: 'grid battery program',
    ps: 2.5, grossMargin: 0.5, sga: 0.12, rd: 0, capex: 0.2, fixedAssets: 3, inventory: true, dividendProbability: 1, revenuePerEmployee: 800_000,
    themes: ['rate case outcomes', 'wildfire and storm exposure', 'fuel costs', 'decarbonization mandates'], topics: ['rate base growth', 'load growth', 'regulatory approvals'],
  },
  media: {
    sector: 'Communication Services', gicsCode: '50203010', subIndustry: 'Interactive Media & Services', sicCode: '7370', sicDescription: 'SERVICES-COMPUTER PROGRAMMING, DATA PROCESSING, ETC.',
    does: 'runs streaming, social and advertising platforms that reach hundreds of millions of users', product: 'ad platform',
    ps: 6, grossMargin: 0.6, sga: 0.22, rd: 0.18, capex: 0.1, fixedAssets: 0.4, inventory: false, dividendProbability: 0.2, revenuePerEmployee: 1_100_000,
    themes: ['advertising demand', 'content moderation', 'platform regulation', 'user engagement'], topics: ['engagement', 'advertising pricing', 'subscriber growth'],
  },
  food: {
    sector: 'Consumer Staples', gicsCode: '30202030', subIndustry: 'Packaged Foods & Meats', sicCode: '2000', sicDescription: 'FOOD AND KINDRED PRODUCTS',
    does: 'produces packaged snacks, frozen meals and beverages sold through grocery and club channels', product: 'snack line',
    ps: 1.8, grossMargin: 0.33, sga: 0.17, rd: 0.01, capex: 0.04, fixedAssets: 0.35, inventory: true, dividendProbability: 0.95, revenuePerEmployee: 350_000,
    themes: ['input cost inflation', 'retailer concentration', 'private-label competition', 'food safety'], topics: ['volume trends', 'pricing actions', 'productivity savings'],
  },
} as const satisfies Record<string, Industry>;

type IndustryKey = keyof typeof INDUSTRIES;
const INDUSTRY_KEYS = Object.keys(INDUSTRIES) as IndustryKey[];

/** Invented companies: [ticker, name, industry, mic, street, city, state, zip, area code]. */
type Listing = readonly [string, string, IndustryKey, 'XNAS' | 'XNYS', string, string, string, string, string];

const LISTINGS: readonly Listing[] = [
  ['NVLX', 'Novalux Semiconductor Corp.', 'semis', 'XNAS', '2200 Mission Park Dr.', 'Santa Clara', 'CA', '95054', '408'],
  ['ORBT', 'Orbitrax Aerospace Inc.', 'aerospace', 'XNYS', '400 Discovery Way', 'Huntsville', 'AL', '35806', '256'],
  ['HLCN', 'Halcyon Biotherapeutics Inc.', 'pharma', 'XNAS', '75 Binney Row', 'Cambridge', 'MA', '02142', '617'],
  ['QNTR', 'Quantiro Software Inc.', 'software', 'XNAS', '901 Congress Terrace', 'Austin', 'TX', '78701', '512'],
  ['BRKW', 'Brookwell Bancorp', 'bank', 'XNYS', '120 Tryon Commons', 'Charlotte', 'NC', '28202', '704'],
  ['TRLN', 'Trellin Foods Co.', 'food', 'XNYS', '3300 Harvest Ln.', 'Minneapolis', 'MN', '55402', '612'],
  ['GRDX', 'Gridmark Energy Holdings Inc.', 'utility', 'XNYS', '1 Gridmark Plaza', 'Columbus', 'OH', '43215', '614'],
  ['PXMD', 'Pixamed Devices Inc.', 'medtech', 'XNAS', '18 Technology Cir.', 'Irvine', 'CA', '92618', '949'],
  ['VNTA', 'Ventara Motors Inc.', 'autos', 'XNAS', '5500 Sierra Flats Rd.', 'Reno', 'NV', '89502', '775'],
  ['CRSF', 'Crestforge Industries Inc.', 'machinery', 'XNYS', '800 Foundry St.', 'Milwaukee', 'WI', '53204', '414'],
  ['SLMI', 'Starlume Interactive Inc.', 'media', 'XNAS', '6100 Sunset Gower Ave.', 'Los Angeles', 'CA', '90028', '323'],
  ['PTRX', 'Petrarex Energy Corp.', 'energy', 'XNYS', '1450 Bayou Center', 'Houston', 'TX', '77002', '713'],
  ['MRQL', 'Marquelle Commerce Inc.', 'retail', 'XNAS', '2100 Harbor Steps', 'Seattle', 'WA', '98101', '206'],
  ['AXLT', 'Axelt Computing Inc.', 'hardware', 'XNAS', '350 Orchard Pkwy.', 'San Jose', 'CA', '95134', '408'],
  ['CDRN', 'Cedarine Asset Management Inc.', 'assetManagement', 'XNYS', '60 Pemberton Sq.', 'Boston', 'MA', '02108', '617'],
  ['KYRX', 'Kyronix Microsystems Inc.', 'semis', 'XNAS', '4000 Ocotillo Rd.', 'Chandler', 'AZ', '85226', '480'],
  ['LMNQ', 'Luminiq Software Corp.', 'software', 'XNAS', '1700 Larimer Row', 'Denver', 'CO', '80202', '303'],
  ['OSTL', 'Ostrel Pharmaceuticals Inc.', 'pharma', 'XNYS', '100 College Rd. West', 'Princeton', 'NJ', '08540', '609'],
  ['FHFC', 'Fernhollow Financial Corp.', 'bank', 'XNAS', '425 Walnut Row', 'Cincinnati', 'OH', '45202', '513'],
  ['BLSN', 'Bellstone Oil & Gas Inc.', 'energy', 'XNYS', '500 Permian Ave.', 'Midland', 'TX', '79701', '432'],
  ['ZPHR', 'Zephyra Aerostructures Inc.', 'aerospace', 'XNYS', '3900 Airfield Blvd.', 'Wichita', 'KS', '67209', '316'],
  ['TDRA', 'Tindra Medical Inc.', 'medtech', 'XNAS', '9800 Lakeshore Pkwy.', 'Plymouth', 'MN', '55447', '763'],
  ['QVLT', 'Quavelt Cloud Inc.', 'software', 'XNAS', '210 Glenwood Commons', 'Raleigh', 'NC', '27603', '919'],
  ['HRBN', 'Harborne Utilities Corp.', 'utility', 'XNYS', '700 Canal View', 'Richmond', 'VA', '23219', '804'],
  ['NXGA', 'Nexagra Foods Inc.', 'food', 'XNAS', '1200 Prairie Gate', 'Omaha', 'NE', '68102', '402'],
  ['DRFT', 'Driftwave Media Inc.', 'media', 'XNAS', '88 Hudson Yards Walk', 'New York', 'NY', '10001', '212'],
  ['ARKN', 'Arkenna Robotics Corp.', 'machinery', 'XNAS', '2 Allegheny Works', 'Pittsburgh', 'PA', '15222', '412'],
  ['CLVX', 'Clovix Therapeutics Inc.', 'pharma', 'XNAS', '10300 Torrey Mesa', 'San Diego', 'CA', '92121', '858'],
  ['SMRL', 'Semiral Microdevices Inc.', 'semis', 'XNAS', '8000 Foothill Tech Dr.', 'Boise', 'ID', '83706', '208'],
  ['WVRT', 'Wavert Networks Inc.', 'hardware', 'XNYS', '4200 Research Commons', 'Durham', 'NC', '27703', '919'],
  ['PLVX', 'Palavex Capital Group Inc.', 'assetManagement', 'XNYS', '745 Lexington Crossing', 'New York', 'NY', '10022', '212'],
  ['ELVR', 'Elvora Automotive Inc.', 'autos', 'XNYS', '1 Riverfront Motorway', 'Detroit', 'MI', '48226', '313'],
  ['MSWK', 'Mosswick Home Goods Inc.', 'retail', 'XNYS', '3500 Peachtree Landing', 'Atlanta', 'GA', '30326', '404'],
  ['TRVD', 'Torvex Defense Systems Inc.', 'aerospace', 'XNYS', '1100 Crystal Ridge Dr.', 'Arlington', 'VA', '22202', '703'],
  ['BNQT', 'Bonquet Beverages Inc.', 'food', 'XNYS', '600 Distillery Row', 'Louisville', 'KY', '40202', '502'],
  ['CYRA', 'Cyralis Data Inc.', 'software', 'XNAS', '150 Wasatch Blvd.', 'Salt Lake City', 'UT', '84111', '801'],
  ['FLXP', 'Fluxen Power Corp.', 'utility', 'XNAS', '2400 Camelback Sq.', 'Phoenix', 'AZ', '85016', '602'],
  ['GLVR', 'Galvira Biosciences Inc.', 'pharma', 'XNAS', '700 Gateway Bluff', 'South San Francisco', 'CA', '94080', '650'],
  ['OPVN', 'Optivane Surgical Inc.', 'medtech', 'XNYS', '5100 Poplar Commons', 'Memphis', 'TN', '38117', '901'],
  ['RDGB', 'Redgrove Bancshares Inc.', 'bank', 'XNYS', '1900 Vulcan Sq.', 'Birmingham', 'AL', '35203', '205'],
  ['SPWD', 'Sparrowind Energy Inc.', 'energy', 'XNAS', '101 Prairie Tower', 'Oklahoma City', 'OK', '73102', '405'],
  ['VLTS', 'Veltaris Storage Systems Inc.', 'hardware', 'XNAS', '1600 Flatiron Park', 'Longmont', 'CO', '80501', '303'],
  ['MNTX', 'Mentrix Streaming Inc.', 'media', 'XNYS', '3000 Olive Studio Way', 'Burbank', 'CA', '91505', '818'],
  ['KLDN', 'Kelderon Machinery Corp.', 'machinery', 'XNYS', '400 Cedar River Pkwy.', 'Cedar Rapids', 'IA', '52401', '319'],
  ['PRMO', 'Prismora Optics Inc.', 'semis', 'XNYS', '25 Genesee Lightworks', 'Rochester', 'NY', '14604', '585'],
  ['TLNX', 'Talonix Security Software Inc.', 'software', 'XNAS', '11900 Sunrise Valley Ct.', 'Reston', 'VA', '20191', '703'],
  ['AMBL', 'Amberlane Outfitters Inc.', 'retail', 'XNAS', '900 Pearl District Way', 'Portland', 'OR', '97209', '503'],
  ['HRVL', 'Harvell Savings Bancorp', 'bank', 'XNAS', '280 Asylum Hill Rd.', 'Hartford', 'CT', '06103', '860'],
  ['CNDL', 'Cindrel Motors Corp.', 'autos', 'XNAS', '700 Riverbend Assembly Dr.', 'Chattanooga', 'TN', '37402', '423'],
  ['ZNTR', 'Zenthera Pharma Inc.', 'pharma', 'XNAS', '1 Canal Research Sq.', 'Indianapolis', 'IN', '46204', '317'],
];
const LISTED_TICKERS = new Set(LISTINGS.map((l) => l[0]));
/** Companies with a second share class, which some feeds list next to the main ticker. */
const DUAL_CLASS = new Set(['DRFT', 'BNQT', 'PLVX']);
/** Listings that are no longer active (acquired / delisted), to exercise the status fields. */
const INACTIVE = new Set(['HRVL', 'CNDL']);
/** Companies with a former ISIN (re-domiciled or reorganized). */
const ISIN_CHANGED = new Set(['ORBT', 'GRDX', 'MNTX']);

/** Financial statements, press releases, ratings ... exist for this many companies at most. */
const COVERED_COMPANIES = 50;

const NAME_HEADS = ['Arvo', 'Bel', 'Cor', 'Dal', 'Evo', 'Fen', 'Gal', 'Hex', 'Ilo', 'Jor', 'Kal', 'Lum', 'Mer', 'Nor', 'Obel', 'Pral', 'Quin', 'Ros', 'Sil', 'Tav', 'Ulm', 'Var', 'Wex', 'Xan', 'Yor', 'Zel'];
const NAME_TAILS = ['ant', 'ara', 'ecta', 'entis', 'ica', 'ion', 'ium', 'ova', 'ora', 'yx', 'ex', 'ita', 'onic', 'ux'];
const NAME_KINDS = ['Inc.', 'Corp.', 'Holdings Inc.', 'Group Inc.', 'Technologies Inc.', 'Co.'];
const CITIES: readonly (readonly [string, string, string, string])[] = [
  ['Dallas', 'TX', '75201', '214'], ['Chicago', 'IL', '60606', '312'], ['Nashville', 'TN', '37203', '615'],
  ['Kansas City', 'MO', '64105', '816'], ['Tampa', 'FL', '33602', '813'], ['Sacramento', 'CA', '95814', '916'],
  ['Madison', 'WI', '53703', '608'], ['Albany', 'NY', '12207', '518'], ['Tucson', 'AZ', '85701', '520'],
];
const STREETS = ['Commerce St.', 'Innovation Dr.', 'Market Sq.', 'Lakeview Pkwy.', 'Industrial Blvd.', 'Corporate Center Dr.'];

/** Everything about one company that other resources derive from; a pure function of (seed, index). */
interface Company {
  index: number;
  symbol: string;
  name: string;
  industry: Industry;
  exchange: Exchange;
  street: string;
  city: string;
  state: string;
  zip: string;
  phone: string;
  homepage: string;
  listDate: string;
  active: boolean;
  dualClass: boolean;
  price: number;
  shares: number;
  annualRevenue: number;
  employees: number;
  fiscalYearEndMonth: number;
  figi: string;
  figiComposite: string;
  figiShareClass: string;
  cusip: string;
  isin: string;
  formerIsin: string | null;
  cik: string;
  permid: string;
}

function syntheticTicker(index: number): string {
  const j = index - LISTINGS.length;
  if (j < 26 ** 4) {
    const code = encode(scatter(j, 26 ** 4, 187_319), LETTERS, 4);
    if (!LISTED_TICKERS.has(code)) return code;
  }
  return encode(j, LETTERS, 5); // five letters never collide with the four-letter codes
}

function buildCompany(seed: number, offsets: CodeOffsets, index: number): Company {
  const rng = rngFor(seed, 'company', index);
  const listing = LISTINGS[index];
  let symbol: string, name: string, industryKey: IndustryKey, mic: 'XNAS' | 'XNYS', street: string, city: string, state: string, zip: string, area: string;
  if (listing) {
    [symbol, name, industryKey, mic, street, city, state, zip, area] = listing;
  } else {
    symbol = syntheticTicker(index);
    name = `${rng.pick(NAME_HEADS)}${rng.pick(NAME_TAILS)} ${rng.pick(NAME_KINDS)}`;
    industryKey = rng.pick(INDUSTRY_KEYS);
    mic = rng.chance(0.55) ? 'XNAS' : 'XNYS';
    street = `${rng.int(10, 9900)} ${rng.pick(STREETS)}`;
    [city, state, zip, area] = rng.pick(CITIES);
  }
  const industry: Industry = INDUSTRIES[industryKey];
  const price = round(rng.logRange(9, 420), 2);
  const shares = Math.round(rng.logRange(1.5e9, 350e9) / price / 1000) * 1000; // market cap $1.5B..$350B
  const annualRevenue = (price * shares) / (industry.ps * rng.range(0.6, 1.6));
  const cusip = cusipOf(index, '10', offsets);
  const word = name.split(' ')[0]!.toLowerCase().replace(/[^a-z]/g, '');
  return {
    index, symbol, name, industry, exchange: EXCHANGES[mic], street, city, state, zip,
    phone: `(${area}) 555-01${String(rng.int(0, 99)).padStart(2, '0')}`,
    homepage: listing ? `https://www.${word}.example.com` : `https://www.${word}-${symbol.toLowerCase()}.example.com`,
    listDate: isoDate(Date.UTC(rng.int(1986, 2021), rng.int(0, 11), rng.int(1, 28))),
    active: listing ? !INACTIVE.has(symbol) : !rng.chance(0.02),
    dualClass: DUAL_CLASS.has(symbol),
    price, shares, annualRevenue,
    employees: Math.max(40, Math.round((annualRevenue / industry.revenuePerEmployee) * rng.range(0.8, 1.2))),
    fiscalYearEndMonth: rng.pick([12, 12, 12, 9, 9, 6, 3]),
    figi: figiOf(index, 0, offsets),
    figiComposite: figiOf(index, 1, offsets),
    figiShareClass: figiOf(index, 2, offsets),
    cusip,
    isin: isinOf(cusip),
    formerIsin: ISIN_CHANGED.has(symbol) || (!listing && rng.chance(0.03)) ? isinOf(cusipOf(index, '20', offsets)) : null,
    cik: String(1_000_000 + scatter(index, 9_000_000, offsets.cik)).padStart(10, '0'),
    permid: String(4_295_000_000 + scatter(index, 1_000_000, offsets.permid)),
  };
}

function buildCompanies(opts: SampleOptions, count: number): Company[] {
  const offsets = codeOffsets(opts.seed);
  const out: Company[] = [];
  for (let i = 0; i < count; i++) out.push(buildCompany(opts.seed, offsets, i));
  return out;
}

// ================================================================ securities and logos

const LOGO_BASE = 'https://static.example.com/logos';
const logoUrls = (symbol: string) => ({
  png: `${LOGO_BASE}/${symbol}.png`,
  svg: `${LOGO_BASE}/${symbol}.svg`,
  thumbnail: `${LOGO_BASE}/${symbol}_thumb.png`,
});

function securityRow(c: Company, rng: Rng): Prisma.SecurityCreateManyInput {
  const lastUpdated = new Date(ANCHOR_MS - rng.int(1, 72) * 3_600_000);
  return {
    id: `${c.figi}_${c.exchange.mic}`,
    symbol: c.symbol,
    name: c.name,
    status: c.active ? 'ACTIVE' : 'INACTIVE',
    // absent = SQL NULL (a Json column takes no plain null on input)
    ...(c.formerIsin ? { isinHistory: [c.formerIsin] } : {}),
    gics: c.industry.sector,
    gicsCode: c.industry.gicsCode,
    marketSector: 'Equity',
    securityDescription: c.symbol,
    securityType: 'Common Stock',
    securityType2: 'Common Stock',
    sicCode: c.industry.sicCode,
    sicDescription: c.industry.sicDescription,
    address1: c.street,
    city: c.city,
    postalCode: c.zip,
    state: c.state,
    description: `${c.name} ${c.industry.does}. The company is headquartered in ${c.city}, ${c.state}.`,
    homepageUrl: c.homepage,
    listDate: c.listDate,
    phoneNumber: c.phone,
    totalEmployees: c.employees,
    exchangeCountry: 'US',
    exchangeName: c.exchange.name,
    micCode: c.exchange.mic,
    vendoryExchangeCode: c.exchange.exchCode,
    vendoryTicker: `${c.symbol} ${c.exchange.exchCode}`,
    vendorxExchangeCode: c.exchange.vendorxCode,
    vendorxExchangeName: c.exchange.vendorxName,
    marketCap: BigInt(Math.round(c.price * c.shares)),
    roundLot: 100,
    shareClassSharesOutstanding: BigInt(c.shares),
    weightedSharesOutstanding: BigInt(Math.round((c.shares * rng.range(0.995, 1.01)) / 1000) * 1000),
    cik: c.cik,
    cusip: c.cusip,
    figi: c.figi,
    figiComposite: c.figiComposite,
    figiShareClass: c.figiShareClass,
    isin: c.isin,
    opol: c.exchange.mic,
    permid: c.permid,
    ric: `${c.symbol}${c.exchange.ricSuffix}`,
    active: c.active,
    currencyName: 'usd',
    lastUpdatedUtc: lastUpdated,
    locale: 'us',
    market: 'stocks',
    primaryExchange: c.exchange.mic,
    ticker: c.symbol,
    tickerRoot: c.symbol,
    type: 'CS',
    createdAt: new Date(Date.UTC(2025, 0, 2, 12, 0, 0)),
    updatedAt: lastUpdated,
  };
}

/**
 * 1 to 3 security-info rows: the listing itself, sometimes a legacy row for the same FIGI whose
 * symbol carries the `*` marker, sometimes the composite (exchange-less, MIC '') row. The first
 * company shows all three so every quirk of the format is present in the default set.
 */
function logoSecurityInfoRows(c: Company, logoId: number, rng: Rng): Prisma.LogoSecurityInfoCreateManyInput[] {
  const base = {
    logoId, name: c.name.toUpperCase(), compositeFigi: c.figiComposite, shareClassFigi: c.figiShareClass, marketSector: 'Equity',
  };
  const rows: Prisma.LogoSecurityInfoCreateManyInput[] = [
    { ...base, position: 0, symbol: c.symbol, mic: c.exchange.mic, figi: c.figi, exchCode: c.exchange.exchCode },
  ];
  const variant = c.index === 0 ? 3 : rng.pick([1, 1, 2, 2, 3]);
  if (variant === 3) rows.push({ ...base, position: rows.length, symbol: `${c.symbol}*`, mic: c.exchange.mic, figi: c.figi, exchCode: c.exchange.exchCode });
  if (variant >= 2) rows.push({ ...base, position: rows.length, symbol: c.symbol, mic: '', figi: c.figiComposite, exchCode: 'US' });
  return rows;
}

function buildSecurities(seed: number, companies: Company[]): SampleSecurity[] {
  return companies.map((c) => {
    const rng = rngFor(seed, 'security', c.index);
    const urls = logoUrls(c.symbol);
    const size = rng.pick([128, 256, 512]);
    const stamp = new Date(Date.UTC(2025, 5, 1) + rng.int(0, 400) * DAY_MS);
    const logo = {
      id: c.index + 1,
      symbol: c.symbol,
      companyName: c.name,
      pngUrl: urls.png,
      pngHeight: size,
      pngWidth: rng.chance(0.3) ? size * 2 : size,
      pngSizeKb: round(rng.range(4, 48), 1),
      svgUrl: urls.svg,
      svgSizeKb: round(rng.range(1, 12), 1),
      thumbnailUrl: urls.thumbnail,
      thumbnailSizeKb: round(rng.range(0.5, 4), 1),
      createdAt: stamp,
      updatedAt: stamp,
    };
    return { row: securityRow(c, rng), logo, logoSecurityInfo: logoSecurityInfoRows(c, logo.id, rng) };
  });
}

// ================================================================ financial statements

interface Period {
  year: number;
  quarter: 1 | 2 | 3 | 4;
  end: string;
  endMs: number;
}

/**
 * The 8 fiscal quarters of the company's two latest complete fiscal years: those whose annual
 * report (~45 days after year end) is out by the anchor date.
 */
function fiscalQuarters(fiscalYearEndMonth: number): Period[] {
  let latest = 2026;
  while (monthEndMs(latest, fiscalYearEndMonth) + 45 * DAY_MS > ANCHOR_MS) latest--;
  const periods: Period[] = [];
  for (const year of [latest - 1, latest]) {
    for (const quarter of [1, 2, 3, 4] as const) {
      let month = fiscalYearEndMonth - 3 * (4 - quarter);
      let calendarYear = year;
      if (month <= 0) {
        month += 12;
        calendarYear--;
      }
      const endMs = monthEndMs(calendarYear, month);
      periods.push({ year, quarter, end: isoDate(endMs), endMs });
    }
  }
  return periods;
}

/**
 * Balance-sheet state at a period end, in whole dollars. Optional spec fields are null when the
 * company does not report them. Sign convention: every amount is positive in its natural
 * direction except `oci`, `otherEquity` and `retained`, which may be negative; `treasury` is a
 * positive amount that is SUBTRACTED from equity (spec `treasury_stock`; the fundamentals
 * `TreasuryStock` line carries it negated, so equity there is a plain sum of its lines).
 */
interface Books {
  cash: number;
  marketable: number | null;
  receivables: number;
  inventory: number | null;
  otherCurrentAssets: number;
  fixedAssets: number;
  goodwill: number;
  intangibles: number;
  otherAssets: number;
  payables: number;
  deferredRevenue: number;
  shortTermDebt: number;
  accrued: number;
  longTermDebt: number;
  otherLiabilities: number;
  shareCapital: number;
  paidInCapital: number | null;
  retained: number;
  oci: number;
  otherEquity: number;
  treasury: number | null;
  minority: number | null;
}

function totals(b: Books) {
  const currentAssets = b.cash + (b.marketable ?? 0) + b.receivables + (b.inventory ?? 0) + b.otherCurrentAssets;
  const assets = currentAssets + b.fixedAssets + b.goodwill + b.intangibles + b.otherAssets;
  const currentLiabilities = b.payables + b.deferredRevenue + b.shortTermDebt + b.accrued;
  const liabilities = currentLiabilities + b.longTermDebt + b.otherLiabilities;
  const parentEquity = b.shareCapital + (b.paidInCapital ?? 0) + b.retained + b.oci + b.otherEquity - (b.treasury ?? 0);
  const equity = parentEquity + (b.minority ?? 0);
  return { currentAssets, assets, currentLiabilities, liabilities, parentEquity, equity };
}

/**
 * Closes the books: other long-term liabilities take up what the roll-forward leaves over (small,
 * since the statements are built from consistent flows), and other assets take it instead when
 * liabilities would fall below `floor`. Amounts are integers, so the identity holds exactly.
 */
function balance(b: Books, floor: number): void {
  b.otherLiabilities = 0;
  const t = totals(b);
  const plug = t.assets - t.liabilities - t.equity;
  if (plug >= floor) {
    b.otherLiabilities = plug;
  } else {
    b.otherAssets += floor - plug;
    b.otherLiabilities = floor;
  }
}

type Lines = Record<StatementLine, number | null>;
type BalanceSheetLine = (typeof BALANCE_SHEET)[number];

function balanceSheetLines(b: Books, commitments: number | null): Record<BalanceSheetLine, number | null> {
  const t = totals(b);
  return {
    CashEquivalents: b.cash,
    ShortTermInvestments: b.marketable ?? 0,
    Inventories: b.inventory ?? 0,
    PrepaidExpensesOtherCurrentAssets: b.receivables + b.otherCurrentAssets,
    TotalCurrentAssets: t.currentAssets,
    PropertyPlantEquipmentNet: b.fixedAssets,
    Goodwill: b.goodwill,
    IntangibleAssetsNet: b.intangibles,
    OtherAssets: b.otherAssets,
    TotalAssets: t.assets,
    AccountsPayable: b.payables,
    DeferredRevenueCurrent: b.deferredRevenue,
    DeferredLiabilitiesCurrent: 0,
    DebtCurrent: b.shortTermDebt,
    AccruedOtherCurrentLiabilities: b.accrued,
    TotalCurrentLiabilities: t.currentLiabilities,
    LongTermDebtCapitalLeaseObligations: b.longTermDebt,
    OtherNoncurrentLiabilities: b.otherLiabilities,
    TotalLiabilities: t.liabilities,
    CommitmentsContingencies: commitments,
    PreferredStock: 0,
    CommonStock: b.shareCapital,
    AdditionalPaidInCapital: b.paidInCapital ?? 0,
    TreasuryStock: neg(b.treasury ?? 0),
    AccumulatedOtherComprehensiveIncome: b.oci,
    RetainedEarningsDeficit: b.retained,
    OtherEquity: b.otherEquity,
    TotalEquityAttributableParent: t.parentEquity,
    NoncontrollingInterest: b.minority ?? 0,
    TotalEquity: t.equity,
    TotalLiabilitiesEquity: t.liabilities + t.equity,
  };
}

/** Spec 2.2 amounts (snake_case); absent optional fields are null. */
function balanceSheetAmounts(b: Books): Record<BalanceSheetAmount, number | null> {
  const t = totals(b);
  return {
    accumulated_retained_earnings: b.retained,
    acquired_goodwill: b.goodwill,
    advance_customer_payments: b.deferredRevenue,
    cash_and_short_term_equivalents: b.cash,
    current_accrued_liabilities: b.accrued,
    customer_receivables: b.receivables,
    long_term_debt_obligations: b.longTermDebt,
    long_term_miscellaneous_liabilities: b.otherLiabilities,
    miscellaneous_assets: b.otherAssets,
    miscellaneous_current_assets: b.otherCurrentAssets,
    net_fixed_assets: b.fixedAssets,
    net_intangible_assets: b.intangibles,
    ordinary_share_capital: b.shareCapital,
    other_comprehensive_income_accumulated: b.oci,
    other_stockholder_equity: b.otherEquity,
    parent_company_equity: t.parentEquity,
    payable_to_suppliers: b.payables,
    short_term_debt_obligations: b.shortTermDebt,
    sum_of_current_assets: t.currentAssets,
    sum_of_current_liabilities: t.currentLiabilities,
    total_assets: t.assets,
    total_equity: t.equity,
    total_liabilities: t.liabilities,
    total_liabilities_plus_equity: t.liabilities + t.equity,
    capital_paid_in_excess: b.paidInCapital,
    marketable_securities_short_term: b.marketable,
    minority_shareholder_interest: b.minority,
    stock_inventory: b.inventory,
    treasury_stock: b.treasury,
  };
}

interface QuarterResult {
  period: Period;
  books: Books;
  lines: Lines;
  /** share price at the period end; metrics use the last trade instead, but drawing it keeps the stream stable */
  price: number;
}

const eps = (income: number, shares: number): number => round(income / shares, 2);

/**
 * Simulates 8 quarters. Income statement, cash flow and balance sheet come from one set of flows:
 * cash rolls forward by the cash-flow statement, retained earnings by net income and dividends,
 * debt by its issuances and repayments, fixed assets by capex and depreciation, working capital
 * from days-of-revenue ratios (its change is the cash-flow working-capital line).
 */
function simulateCompany(seed: number, c: Company): QuarterResult[] {
  const rng = rngFor(seed, 'financials', c.index);
  const ind = c.industry;
  const periods = fiscalQuarters(c.fiscalYearEndMonth);

  const growth = rng.range(-0.01, 0.05);
  let trend = c.annualRevenue / 4 / (1 + growth) ** 8;
  const grossMargin = ind.grossMargin * rng.range(0.9, 1.1);
  const sgaRatio = ind.sga * rng.range(0.85, 1.15);
  const rdRatio = ind.rd * rng.range(0.8, 1.25);
  const capexRatio = ind.capex * rng.range(0.8, 1.2);
  const depreciationRate = (ind.capex / (4 * ind.fixedAssets)) * 0.9;
  const amortizationRate = 0.03;
  const ddaOperatingShare = rng.range(0.3, 0.7);
  const sbcRatio = rng.range(0.005, 0.05);
  const taxRate = rng.range(0.14, 0.25);
  const dsoDays = rng.range(30, 70);
  const dioDays = rng.range(40, 110);
  const dpoDays = rng.range(30, 75);
  const otherCurrentRatio = rng.range(0.05, 0.2);
  const deferredRatio = rng.range(0.02, 0.3);
  const accruedRatio = rng.range(0.15, 0.35);
  const dividendRatio = rng.chance(ind.dividendProbability) ? rng.range(0.01, 0.05) : 0;
  const hasTreasury = rng.chance(0.6);
  const buybackRatio = hasTreasury && rng.chance(0.7) ? rng.range(0.01, 0.05) : 0;
  const shareDrift = buybackRatio > 0 ? -rng.range(0.001, 0.006) : rng.range(0, 0.006);
  const dilution = rng.range(1.004, 1.025);
  const hasAffiliates = rng.chance(0.3);
  const minorityShare = rng.range(0.01, 0.05);
  const commitments = rng.chance(0.6) ? 0 : null;
  const discontinuedQuarter = rng.chance(0.12) ? rng.int(0, 7) : -1;
  const acquisitionQuarter = rng.chance(0.25) ? rng.int(0, 7) : -1;

  // Opening books, one quarter before the first period.
  const r0 = trend;
  const cogs0 = r0 * (1 - grossMargin);
  const open: Books = {
    cash: k(4 * r0 * rng.range(0.08, 0.35)),
    marketable: rng.chance(0.6) ? k(4 * r0 * rng.range(0.05, 0.3)) : null,
    receivables: k((r0 * dsoDays) / 91),
    inventory: ind.inventory && rng.chance(0.95) ? k((cogs0 * dioDays) / 91) : null,
    otherCurrentAssets: k(r0 * otherCurrentRatio),
    fixedAssets: k(4 * r0 * ind.fixedAssets * rng.range(0.8, 1.2)),
    goodwill: k(4 * r0 * rng.range(0.05, 0.4)),
    intangibles: k(4 * r0 * rng.range(0.02, 0.2)),
    otherAssets: k(4 * r0 * rng.range(0.03, 0.1)),
    payables: k((cogs0 * dpoDays) / 91),
    deferredRevenue: k(r0 * deferredRatio),
    shortTermDebt: 0,
    accrued: k(r0 * accruedRatio),
    longTermDebt: 0,
    otherLiabilities: 0,
    shareCapital: k(c.shares * rng.pick([0.0001, 0.001, 0.01])),
    paidInCapital: null,
    retained: 0,
    oci: 0,
    otherEquity: 0,
    treasury: null,
    minority: null,
  };
  const openAssets = totals(open).assets;
  open.shortTermDebt = k(openAssets * rng.range(0, 0.04));
  open.longTermDebt = k(openAssets * rng.range(0.05, 0.3));
  open.otherLiabilities = k(openAssets * rng.range(0.03, 0.08));
  const openEquity = openAssets - totals(open).liabilities;
  open.minority = rng.chance(0.3) ? k(openEquity * rng.range(0.01, 0.05)) : null;
  open.paidInCapital = rng.chance(0.85) ? k(openEquity * rng.range(0.2, 0.6)) : null;
  open.treasury = hasTreasury ? k(openEquity * rng.range(0.05, 0.3)) : null;
  open.oci = k(openEquity * rng.range(-0.05, 0.02));
  open.otherEquity = rng.chance(0.5) ? k(openEquity * rng.range(-0.01, 0.01)) : 0;
  open.retained = openEquity - (open.minority ?? 0) - open.shareCapital - (open.paidInCapital ?? 0) - open.oci - open.otherEquity + (open.treasury ?? 0);

  const out: QuarterResult[] = [];
  let prev = open;
  periods.forEach((period, t) => {
    trend *= 1 + growth;
    // income statement
    const revenue = k(trend * rng.range(0.96, 1.04));
    const cogs = k(revenue * (1 - grossMargin * rng.range(0.97, 1.03)));
    const grossProfit = revenue - cogs;
    const depreciation = k(prev.fixedAssets * depreciationRate);
    const amortization = k(prev.intangibles * amortizationRate);
    const dda = depreciation + amortization;
    const ddaExpense = k(dda * ddaOperatingShare); // the rest sits in cost of revenue
    const sga = k(revenue * sgaRatio * rng.range(0.95, 1.05));
    const rnd = k(revenue * rdRatio * rng.range(0.95, 1.05));
    const otherOpex = k(revenue * rng.range(0, 0.015));
    const totalOpex = sga + rnd + ddaExpense + otherOpex;
    const operatingIncome = grossProfit - totalOpex;
    const interestExpense = k(((prev.shortTermDebt + prev.longTermDebt) * 0.055) / 4);
    const interestIncome = k(((prev.cash + (prev.marketable ?? 0)) * 0.035) / 4);
    const otherIncome = k(revenue * rng.range(-0.004, 0.004));
    const totalOther = interestIncome - interestExpense + otherIncome;
    const pretax = operatingIncome + totalOther;
    const taxes = k(pretax * taxRate);
    const discontinued = t === discontinuedQuarter ? k(revenue * rng.range(-0.03, 0.02)) : 0;
    const affiliates = hasAffiliates ? k(revenue * rng.range(0, 0.004)) : 0;
    const consolidated = pretax - taxes + discontinued + affiliates;
    const minorityIncome = prev.minority === null ? 0 : k(consolidated * minorityShare);
    const commonIncome = consolidated - minorityIncome;
    const basicShares = Math.round(c.shares * (1 + shareDrift * (t - 7)));
    const dilutedShares = commonIncome > 0 ? Math.round(basicShares * dilution) : basicShares;

    // working capital at the period end
    const receivables = k((revenue * dsoDays) / 91);
    const inventory = prev.inventory === null ? null : k((cogs * dioDays) / 91);
    const otherCurrentAssets = k(revenue * otherCurrentRatio * rng.range(0.95, 1.05));
    const payables = k((cogs * dpoDays) / 91);
    const deferredRevenue = k(revenue * deferredRatio * rng.range(0.95, 1.05));
    const accrued = k(revenue * accruedRatio * rng.range(0.95, 1.05));
    const workingCapitalChange =
      prev.receivables - receivables + (prev.inventory ?? 0) - (inventory ?? 0) + prev.otherCurrentAssets - otherCurrentAssets
      + payables - prev.payables + deferredRevenue - prev.deferredRevenue + accrued - prev.accrued;

    // cash flow
    const sbc = k(revenue * sbcRatio);
    const otherOperating = sbc - affiliates;
    const operatingContinuing = consolidated - discontinued + dda + otherOperating + workingCapitalChange;
    const operating = operatingContinuing + discontinued;
    const capex = neg(k(revenue * capexRatio * rng.range(0.8, 1.2)));
    const assetSales = rng.chance(0.3) ? k(prev.fixedAssets * rng.range(0, 0.01)) : 0;
    const acquisition = t === acquisitionQuarter ? neg(k(revenue * rng.range(0.2, 0.8))) : 0;
    const acquiredIntangibles = k(neg(acquisition) * 0.35);
    const acquiredGoodwill = neg(acquisition) - acquiredIntangibles;
    const marketable = prev.marketable === null ? null : k(prev.marketable * rng.range(0.9, 1.12));
    const otherInvesting = (prev.marketable ?? 0) - (marketable ?? 0);
    const investing = capex + assetSales + acquisition + otherInvesting;
    const dividends = neg(k(revenue * dividendRatio));
    const repurchases = neg(k(revenue * buybackRatio * rng.range(0.5, 1.5)));
    const debtDraw = rng.next();
    const longTermDebtChange = debtDraw < 0.12 ? k(prev.longTermDebt * rng.range(0.05, 0.2) + revenue * 0.05)
      : debtDraw < 0.3 ? neg(k(prev.longTermDebt * rng.range(0.02, 0.1))) : 0;
    let shortTermDebtChange = rng.chance(0.3) ? neg(k(prev.shortTermDebt * rng.range(0, 0.5))) : rng.chance(0.2) ? k(revenue * rng.range(0, 0.05)) : 0;
    const fx = k(revenue * rng.range(-0.002, 0.002));
    // Borrow short term rather than let cash fall below a working minimum.
    const cashFloor = k(revenue * 0.15);
    const projected = prev.cash + operating + investing + shortTermDebtChange + dividends + repurchases + longTermDebtChange + fx;
    if (projected < cashFloor) shortTermDebtChange += cashFloor - projected;
    const financing = shortTermDebtChange + dividends + repurchases + longTermDebtChange;
    const cashChange = operating + investing + financing + fx;

    const books: Books = {
      cash: prev.cash + cashChange,
      marketable,
      receivables,
      inventory,
      otherCurrentAssets,
      fixedAssets: prev.fixedAssets - capex - depreciation - assetSales,
      goodwill: prev.goodwill + acquiredGoodwill,
      intangibles: prev.intangibles - amortization + acquiredIntangibles,
      otherAssets: prev.otherAssets + affiliates + k(prev.otherAssets * rng.range(-0.01, 0.01)),
      payables,
      deferredRevenue,
      shortTermDebt: prev.shortTermDebt + shortTermDebtChange,
      accrued,
      longTermDebt: prev.longTermDebt + longTermDebtChange,
      otherLiabilities: 0,
      shareCapital: prev.shareCapital + (prev.paidInCapital === null ? sbc : 0),
      paidInCapital: prev.paidInCapital === null ? null : prev.paidInCapital + sbc,
      retained: prev.retained + commonIncome + dividends,
      oci: prev.oci + fx + k(revenue * rng.range(-0.003, 0.003)),
      otherEquity: prev.otherEquity,
      treasury: prev.treasury === null ? null : prev.treasury - repurchases,
      minority: prev.minority === null ? null : prev.minority + minorityIncome,
    };
    balance(books, k(revenue * 0.05));

    const lines: Lines = {
      Revenue: revenue,
      CostOfRevenue: cogs,
      GrossProfit: grossProfit,
      SellingGeneralAdministrative: sga,
      ResearchDevelopment: rnd,
      DepreciationDepletionAmortizationExpense: ddaExpense,
      OtherOperatingExpenses: otherOpex,
      TotalOperatingExpenses: totalOpex,
      OperatingIncome: operatingIncome,
      InterestExpense: interestExpense,
      InterestInvestmentIncome: interestIncome,
      OtherExpenseIncome: otherIncome,
      TotalOtherIncomeExpense: totalOther,
      IncomeBeforeIncomeTaxes: pretax,
      IncomeTaxes: taxes,
      DiscontinuedOperations: discontinued,
      EquityInAffiliates: affiliates,
      ExtraordinaryItems: 0,
      ConsolidatedNetIncomeLoss: consolidated,
      NoncontrollingInterestIncome: minorityIncome,
      PreferredStockDividendsDeclared: 0,
      NetIncomeLossAttributableCommonShareholders: commonIncome,
      BasicEarningsPerShare: eps(commonIncome, basicShares),
      DilutedEarningsPerShare: eps(commonIncome, dilutedShares),
      BasicSharesOutstanding: basicShares,
      DilutedSharesOutstanding: dilutedShares,
      EBITDA: operatingIncome + dda,
      ...balanceSheetLines(books, commitments),
      NetIncomeCashFlow: consolidated,
      IncomeLossDiscontinuedOperations: neg(discontinued),
      DepreciationDepletionAmortization: dda,
      OtherOperatingActivities: otherOperating,
      ChangeOtherOperatingAssetsLiabilitiesNet: workingCapitalChange,
      CashOperatingActivitiesContinuingOperations: operatingContinuing,
      NetCashOperatingActivitiesDiscontinuedOperations: discontinued,
      NetCashOperatingActivities: operating,
      PurchasePropertyPlantEquipment: capex,
      SalePropertyPlantEquipment: assetSales,
      AcquisitionsNet: acquisition,
      OtherInvestingActivities: otherInvesting,
      NetCashInvestingActivitiesContinuingOperations: investing,
      NetCashInvestingActivitiesDiscontinuedOperations: 0,
      NetCashInvestingActivities: investing,
      ShortTermDebtIssuancesRepayments: shortTermDebtChange,
      CashDividends: dividends,
      EquityRepurchases: repurchases,
      OtherFinancingActivities: longTermDebtChange,
      NetCashFinancingActivitiesContinuingOperations: financing,
      NetCashFinancingActivitiesDiscontinuedOperations: 0,
      NetCashFinancingActivities: financing,
      EffectCurrencyExchangeRate: fx,
      OtherCashAdjustments: 0,
      ChangeCashEquivalents: cashChange,
    };
    const price = round(c.price * (1 + 0.03 * (t - 7)) * rng.range(0.92, 1.08), 2);
    out.push({ period, books, lines, price });
    prev = books;
  });
  return out;
}

/** A fiscal year: flows are the sum of its quarters, positions those of its last quarter. */
function fiscalYearLines(quarters: QuarterResult[]): Lines {
  const lines: Lines = { ...quarters[quarters.length - 1]!.lines };
  for (const line of [...INCOME_STATEMENT, ...CASH_FLOW]) {
    lines[line] = quarters.reduce((sum, q) => sum + (q.lines[line] ?? 0), 0);
  }
  const income = lines.NetIncomeLossAttributableCommonShareholders ?? 0;
  const basic = Math.round(quarters.reduce((s, q) => s + (q.lines.BasicSharesOutstanding ?? 0), 0) / quarters.length);
  const diluted = income > 0 ? Math.round(quarters.reduce((s, q) => s + (q.lines.DilutedSharesOutstanding ?? 0), 0) / quarters.length) : basic;
  lines.BasicSharesOutstanding = basic;
  lines.DilutedSharesOutstanding = diluted;
  lines.BasicEarningsPerShare = eps(income, basic);
  lines.DilutedEarningsPerShare = eps(income, diluted);
  return lines;
}

const RISK_GENERIC = ['macroeconomic conditions', 'cybersecurity', 'key personnel', 'litigation', 'climate-related risks', 'capital markets access'];
const RISK_HEADINGS = [
  'We depend on a limited number of suppliers for critical components',
  'Adverse economic conditions could reduce demand for our products',
  'Our indebtedness could limit our operating flexibility',
  'Security breaches could harm our reputation and results',
  'Changes in tax law could increase our effective tax rate',
  'We may not realize the expected benefits of acquisitions',
];
const LITIGATION_HEADINGS = [
  'Securities class action dismissed', 'Patent infringement suit filed by competitor', 'Settlement of wage-and-hour claims',
  'Derivative complaint consolidated', 'Regulatory inquiry into sales practices', 'Contract dispute with former distributor',
];

/**
 * Derived metrics by domain/financial-metrics.ts from the same inputs a recompute on the seeded database
 * sees (the symbol's last sample trade, the security master's shares and employees), so the two
 * agree; the insights are drawn, as the sample has no filing text.
 */
function metricsRow(fundamentalId: number, quarter: string, lines: Lines, c: Company, price: number | null, rng: Rng, stamp: Date): Prisma.FundamentalMetricsCreateManyInput {
  const income = lines.NetIncomeLossAttributableCommonShareholders ?? 0;
  const themes = rng.sample([...c.industry.themes, ...RISK_GENERIC], rng.int(3, 4));
  const riskAverage = round(rng.range(-0.6, -0.1), 3);
  const litigationCount = rng.int(0, 6);
  return {
    fundamentalId,
    ...derivedMetrics({ quarter, lines, price, sharesOutstanding: c.shares, employees: c.employees }),
    riskFactorCount: rng.int(18, 64),
    riskTopThemes: themes,
    riskAverageSentimentScore: riskAverage,
    riskMostNegativeHeading: rng.pick(RISK_HEADINGS),
    riskMostNegativeSentiment: round(Math.max(-1, riskAverage - rng.range(0.1, 0.4)), 3),
    mdnaForwardLookingTermCount: rng.int(12, 140),
    mdnaForwardToHistoricalRatio: round(rng.range(0.2, 1.6), 3),
    mdnaToneScore: round(Math.max(-1, Math.min(1, (income > 0 ? 0.25 : -0.2) + rng.range(-0.3, 0.3))), 3),
    mdnaKeyTopics: rng.sample([...c.industry.topics, 'liquidity', 'capital allocation', 'outlook'], rng.int(3, 4)),
    litigationCount,
    litigationRecentHeadings: rng.sample(LITIGATION_HEADINGS, Math.min(litigationCount, 3)),
    createdAt: stamp,
    updatedAt: stamp,
  };
}

interface Financials {
  balanceSheets: (Prisma.BalanceSheetCreateManyInput & { id: number })[];
  balanceSheetSymbols: Prisma.BalanceSheetSymbolCreateManyInput[];
  fundamentals: (Prisma.FundamentalCreateManyInput & { id: number })[];
  fundamentalMetrics: Prisma.FundamentalMetricsCreateManyInput[];
  /** per company index, its simulated quarters (for call summaries) */
  quarters: Map<number, QuarterResult[]>;
}

/** `lastPrices`: per symbol, the price of its last sample trade (absent: no trades). */
function buildFinancials(seed: number, companies: Company[], lastPrices: ReadonlyMap<string, number>): Financials {
  const out: Financials = { balanceSheets: [], balanceSheetSymbols: [], fundamentals: [], fundamentalMetrics: [], quarters: new Map() };
  const filed = (period: Period) => new Date(Math.min(period.endMs + 40 * DAY_MS, ANCHOR_MS - DAY_MS) + 13 * 3_600_000);

  for (const c of companies) {
    const quarters = simulateCompany(seed, c);
    out.quarters.set(c.index, quarters);
    const rng = rngFor(seed, 'metrics', c.index);
    const symbols = c.dualClass ? [c.symbol, `${c.symbol}.B`] : [c.symbol];

    const addBalanceSheet = (q: QuarterResult, timeframe: Prisma.BalanceSheetCreateManyInput['timeframe']) => {
      const id = out.balanceSheets.length + 1;
      const row: Record<string, unknown> = {
        id, cik: c.cik, fiscalYear: q.period.year, fiscalQuarter: q.period.quarter, reportingPeriodEnd: q.period.end, timeframe,
      };
      const amounts = balanceSheetAmounts(q.books);
      for (const field of [...BALANCE_SHEET_REQUIRED, ...BALANCE_SHEET_OPTIONAL]) row[camelOf(field)] = amounts[field];
      row.createdAt = filed(q.period);
      row.updatedAt = row.createdAt;
      out.balanceSheets.push(row as unknown as Prisma.BalanceSheetCreateManyInput & { id: number });
      symbols.forEach((symbol, position) => out.balanceSheetSymbols.push({ balanceSheetId: id, position, symbol }));
    };
    const addFundamental = (q: QuarterResult, lines: Lines, annual: boolean) => {
      const id = out.fundamentals.length + 1;
      const stamp = filed(q.period);
      const row: Record<string, unknown> = {
        id, symbol: c.symbol, cik: c.cik, endPeriod: q.period.end, quarter: annual ? 'FY' : `Q${q.period.quarter}`, year: q.period.year,
      };
      for (const line of STATEMENT_LINES) row[columnOf(line)] = lines[line];
      row.createdAt = stamp;
      row.updatedAt = stamp;
      out.fundamentals.push(row as unknown as Prisma.FundamentalCreateManyInput & { id: number });
      out.fundamentalMetrics.push(metricsRow(id, row.quarter as string, lines, c, lastPrices.get(c.symbol) ?? null, rng, stamp));
    };

    for (let y = 0; y < quarters.length; y += 4) {
      const year = quarters.slice(y, y + 4);
      for (const q of year) {
        addBalanceSheet(q, 'quarterly');
        addFundamental(q, q.lines, false);
      }
      addBalanceSheet(year[3]!, 'annual');
      addFundamental(year[3]!, fiscalYearLines(year), true);
    }
    addBalanceSheet(quarters[quarters.length - 1]!, 'trailing_twelve_months');
  }
  return out;
}

// ================================================================ people and firms

const FIRST_NAMES = ['Avery', 'Blake', 'Carmen', 'Dana', 'Elliot', 'Farah', 'Gideon', 'Harper', 'Imani', 'Jonah', 'Keiko', 'Lionel', 'Marisol', 'Nikhil', 'Odette', 'Priya', 'Quentin', 'Rosalind', 'Soren', 'Talia', 'Umar', 'Vera', 'Wesley', 'Yasmin'];
const LAST_NAMES = ['Abernathy', 'Bellweather', 'Castellano', 'Drummond', 'Eastwick', 'Fairbanks', 'Galloway', 'Holloway', 'Iverson', 'Kinsley', 'Lindqvist', 'Marchetti', 'Nakamura', 'Okafor', 'Pemberton', 'Quarles', 'Ravenscroft', 'Sandoval', 'Thackeray', 'Underhill', 'Vasquez', 'Whitcombe', 'Yardley', 'Zielinski'];
const person = (rng: Rng): string => `${rng.pick(FIRST_NAMES)} ${rng.pick(LAST_NAMES)}`;

/** Fictional brokerages; the last one quotes targets in Canadian dollars. */
const FIRMS = ['Crestline Securities', 'Harrowgate Capital Markets', 'Northmoor Equity Research', 'Bluewater & Company', 'Summit Ledger Partners', 'Larkspur Research', 'Pinecrest Markets', 'Ironbridge Advisors', 'Kestrel Point Capital', 'Maple Ridge Securities'];
const CAD_FIRM = 'Maple Ridge Securities';
const USD_PER_CAD = 0.72;

function executives(seed: number, c: Company) {
  const rng = rngFor(seed, 'people', c.index);
  return { ceo: person(rng), cfo: person(rng), ir: person(rng) };
}

// ================================================================ press releases

const WIRE = 'Meridian Wire';
const WIRE_BASE = 'https://wire.example.com';
const QUARTER_WORDS = ['First', 'Second', 'Third', 'Fourth'];
const CATEGORIES = {
  'results-date': 'Earnings', product: 'Product Announcement', dividend: 'Dividends', partnership: 'Partnerships',
  conference: 'Conferences', appointment: 'Management Changes',
} as const;

interface CompanyIds {
  pressReleases: { id: number; at: number }[];
  ratings: { id: number; at: number }[];
  calls: { id: number; at: number }[];
}

function buildPressReleases(seed: number, companies: Company[], ids: Map<number, CompanyIds>) {
  const releases: (Prisma.PressReleaseCreateManyInput & { id: number })[] = [];
  const tickers: Prisma.PressReleaseTickerCreateManyInput[] = [];
  const securities: Prisma.PressReleaseSecurityCreateManyInput[] = [];

  for (const c of companies) {
    const rng = rngFor(seed, 'press', c.index);
    const people = executives(seed, c);
    const count = rng.int(2, 4);
    const times: number[] = [];
    for (let i = 0; i < count; i++) {
      const day = ANCHOR_DAY_MS - rng.int(0, 59) * DAY_MS;
      times.push(day + rng.int(11 * 60, 20 * 60 + 59) * 60_000);
    }
    times.sort((a, b) => a - b);

    for (const at of times) {
      const id = releases.length + 1;
      const others = companies.filter((o) => o.index !== c.index);
      const kind = rng.pick(['results-date', 'product', 'dividend', 'partnership', 'conference', 'appointment'] as const);
      const partner = kind === 'partnership' && others.length > 0 ? rng.pick(others) : null;
      const named = partner ? [c, partner] : [c];
      const when = longDate(at);
      const product = `${c.name.split(' ')[0]} ${rng.pick(['X', 'Pro', 'One', 'Edge', 'Prime'])} ${c.industry.product}`;
      let headline: string, summary: string;
      switch (kind) {
        case 'results-date': {
          const reportMs = at + rng.int(10, 25) * DAY_MS;
          headline = `${c.name} to Report ${rng.pick(QUARTER_WORDS)} Quarter Financial Results on ${longDate(reportMs)}`;
          summary = `${c.name} will release its financial results after the market close on ${longDate(reportMs)} and host a conference call at 5:00 p.m. Eastern Time.`;
          break;
        }
        case 'product':
          headline = `${c.name} Introduces the ${product}`;
          summary = `${c.name} today introduced the ${product}, expanding its portfolio for customers in ${c.industry.subIndustry.toLowerCase()}.`;
          break;
        case 'dividend': {
          const dps = round(rng.range(0.05, 1.2), 2);
          headline = `${c.name} Declares Quarterly Dividend of $${dps.toFixed(2)} per Share`;
          summary = `The board of directors of ${c.name} declared a quarterly cash dividend of $${dps.toFixed(2)} per share, payable to shareholders of record.`;
          break;
        }
        case 'partnership':
          headline = `${c.name} and ${partner!.name} Announce Strategic Collaboration`;
          summary = `${c.name} and ${partner!.name} announced a multi-year collaboration to co-develop and jointly market new offerings.`;
          break;
        case 'conference':
          headline = `${c.name} to Present at the ${rng.pick(FIRMS)} ${c.industry.sector} Conference`;
          summary = `${people.cfo}, Chief Financial Officer of ${c.name}, will present at the conference; a live webcast will be available on the company's investor relations website.`;
          break;
        default: {
          const appointee = person(rng);
          headline = `${c.name} Appoints ${appointee} as Chief Operating Officer`;
          summary = `${c.name} named ${appointee} Chief Operating Officer, reporting to Chief Executive Officer ${people.ceo}.`;
        }
      }
      const dateline = `${c.city.toUpperCase()}, ${c.state}, ${when} (${WIRE}) --`;
      const about = `About ${c.name}: ${c.name} ${c.industry.does}.`;
      const url = `${WIRE_BASE}/news-release/${isoDate(at).replaceAll('-', '/')}/${1_000_000 + id}`;
      releases.push({
        id,
        wireDataId: String(id),
        vendor: WIRE,
        releaseId: rng.chance(0.5) ? url : JSON.stringify({ url, version: '1' }),
        externalId: `MW-${isoDate(at).replaceAll('-', '')}-${String(id).padStart(5, '0')}`,
        transmissionId: String(rng.int(10_000_000, 99_999_999)),
        headline,
        subHeadline: rng.chance(0.5) ? `${c.symbol} on ${c.exchange.label}` : '',
        dateline,
        language: 'en',
        publishTime: new Date(at),
        source: c.name,
        sourceUrl: url,
        summary,
        bodyHtml: `<p>${dateline} ${summary}</p><p>${about}</p><p>Investor contact: ${people.ir}, ${c.phone}</p>`,
        bodyText: `${dateline} ${summary}\n\n${about}\n\nInvestor contact: ${people.ir}, ${c.phone}`,
        ...(rng.chance(0.6) ? { categories: [CATEGORIES[kind]] } : {}), // absent = NULL
        keywords: [c.industry.subIndustry, kind.replace('-', ' '), c.symbol],
        externalLinks: [`${c.homepage}/investors`],
        exchanges: named.map((n) => `${n.exchange.label}:${n.symbol}`),
        contacts: [{ organization: c.name }, ...(partner ? [{ organization: partner.name }] : [])],
        raw: { vendor: WIRE, wire_id: id, channel: 'corporate', received_at: new Date(at).toISOString(), tickers: named.map((n) => n.symbol), priority: 'normal' },
        createdAt: new Date(at + 60_000),
        updatedAt: new Date(at + 60_000),
      });
      named.forEach((n, position) => {
        tickers.push({ pressReleaseId: id, position, ticker: n.symbol });
        securities.push({
          pressReleaseId: id, position, figi: n.figi, isin: n.isin, name: n.name, symbol: n.symbol, micCode: n.exchange.mic,
          figiComposite: n.figiComposite, figiShareClass: rng.chance(0.2) ? '' : n.figiShareClass, vendorxExchCode: n.exchange.vendorxCode,
        });
      });
      ids.get(c.index)!.pressReleases.push({ id, at });
    }
  }
  return { releases, tickers, securities };
}

// ================================================================ ratings

const BULLISH = ['Strong Buy', 'Buy', 'Overweight', 'Outperform'];
const NEUTRAL = ['Neutral', 'Hold', 'Equal-Weight', 'Market Perform'];
const BEARISH = ['Underweight', 'Underperform', 'Sell'];

function buildRatings(seed: number, companies: Company[], ids: Map<number, CompanyIds>): Prisma.RatingCreateManyInput[] {
  const rows: Prisma.RatingCreateManyInput[] = [];
  for (const c of companies) {
    const rng = rngFor(seed, 'ratings', c.index);
    const count = rng.int(4, 8);
    const times: number[] = [];
    for (let i = 0; i < count; i++) times.push(ANCHOR_MS - rng.int(3600, (180 * DAY_MS) / 1000) * 1000);
    times.sort((a, b) => a - b);
    for (const at of times) {
      const id = rows.length + 1;
      const firm = rng.pick(FIRMS);
      const action = rng.pick(['Upgrades', 'Downgrades', 'Maintains', 'Maintains', 'Initiates Coverage On', 'Reiterates', 'Raises Price Target', 'Lowers Price Target'] as const);
      const rating = action === 'Upgrades' ? rng.pick(BULLISH) : action === 'Downgrades' ? rng.pick([...NEUTRAL, ...BEARISH]) : rng.pick([...BULLISH, ...BULLISH, ...NEUTRAL, ...BEARISH]);
      const targetUsd = c.price * (BULLISH.includes(rating) ? rng.range(1.05, 1.45) : BEARISH.includes(rating) ? rng.range(0.6, 0.95) : rng.range(0.9, 1.15));
      const priceTarget = firm === CAD_FIRM ? `C$${money(targetUsd / USD_PER_CAD)}` : `$${money(targetUsd)}`;
      const isRating = action !== 'Raises Price Target' && action !== 'Lowers Price Target';
      const analyst = person(rng);
      const verb = { Upgrades: 'upgrades', Downgrades: 'downgrades', Maintains: 'maintains', 'Initiates Coverage On': 'initiates coverage on', Reiterates: 'reiterates', 'Raises Price Target': 'raises the price target on', 'Lowers Price Target': 'lowers the price target on' }[action];
      rows.push({
        id,
        firm,
        ticker: c.symbol,
        exchange: c.exchange.label,
        company: c.name,
        action,
        rating,
        priceTarget,
        story: `${firm} analyst ${analyst} ${verb} ${c.name} (${c.symbol})${isRating ? ` with ${/^[AEIOU]/.test(rating) ? 'an' : 'a'} ${rating} rating` : ''} and a price target of ${priceTarget}.`,
        isRating,
        createdAt: new Date(at),
        updatedAt: new Date(at + rng.int(0, 3600) * 1000),
      });
      ids.get(c.index)!.ratings.push({ id, at });
    }
  }
  return rows;
}

// ================================================================ conference-call summaries

function buildCallSummaries(seed: number, companies: Company[], financials: Financials, ids: Map<number, CompanyIds>): Prisma.CallSummaryCreateManyInput[] {
  const rows: Prisma.CallSummaryCreateManyInput[] = [];
  for (const c of companies) {
    const rng = rngFor(seed, 'calls', c.index);
    const people = executives(seed, c);
    const quarters = financials.quarters.get(c.index)!;
    for (let t = 4; t < 8; t++) {
      const q = quarters[t]!;
      const prior = quarters[t - 4]!;
      const id = rows.length + 1;
      const revenue = q.lines.Revenue ?? 0;
      const growth = revenue / (prior.lines.Revenue ?? 1) - 1;
      const epsValue = q.lines.DilutedEarningsPerShare ?? 0;
      const grossMargin = (q.lines.GrossProfit ?? 0) / revenue;
      const at = q.period.endMs + rng.int(20, 40) * DAY_MS + (rng.chance(0.7) ? 21.5 : 13) * 3_600_000;
      const sentiment = round(Math.max(-1, Math.min(1, growth * 4 + (epsValue > 0 ? 0.2 : -0.2) + rng.range(-0.15, 0.15))), 3);
      const period = `Q${q.period.quarter} FY${q.period.year}`;
      const analysts = rng.sample(FIRMS, rng.int(2, 3)).map((organization) => ({ name: person(rng), role: 'Analyst', organization }));
      const nextRevenue = revenue * (1 + rng.range(-0.02, 0.06));
      rows.push({
        id,
        symbol: c.symbol,
        companyName: c.name,
        callDate: new Date(at),
        fiscalYear: q.period.year,
        fiscalPeriod: `Q${q.period.quarter}`,
        title: `${c.name} (${c.symbol}) ${period} Earnings Call`,
        summary: `${c.name} reported ${period} revenue of ${billions(revenue)}, ${growth >= 0 ? 'up' : 'down'} ${Math.abs(growth * 100).toFixed(1)}% year over year, `
          + `with diluted EPS of $${epsValue.toFixed(2)} and a gross margin of ${(grossMargin * 100).toFixed(1)}%. `
          + `Management discussed ${rng.sample(c.industry.topics, 2).join(' and ')}.`,
        keyPoints: [
          `Revenue ${billions(revenue)} (${growth >= 0 ? '+' : ''}${(growth * 100).toFixed(1)}% YoY)`,
          `Diluted EPS $${epsValue.toFixed(2)}`,
          `Gross margin ${(grossMargin * 100).toFixed(1)}%`,
          ...rng.sample(c.industry.topics, rng.int(1, 2)).map((topic) => `Update on ${topic}`),
        ],
        ...(rng.chance(0.7)
          ? { guidance: `Management expects next-quarter revenue between ${billions(nextRevenue * 0.98)} and ${billions(nextRevenue * 1.02)}.` }
          : { guidance: null }),
        sentimentScore: sentiment,
        participants: [
          { name: people.ceo, role: 'Chief Executive Officer', organization: c.name },
          { name: people.cfo, role: 'Chief Financial Officer', organization: c.name },
          { name: people.ir, role: 'Head of Investor Relations', organization: c.name },
          ...analysts,
        ],
        createdAt: new Date(at + 2 * 3_600_000),
        updatedAt: new Date(at + 2 * 3_600_000),
      });
      ids.get(c.index)!.calls.push({ id, at });
    }
  }
  return rows;
}

// ================================================================ curated news

const CATALYSTS = ['Earnings', 'Analyst Rating', 'Press Release', 'Sector Momentum', 'Guidance', 'Unusual Volume'];

function buildNews(seed: number, companies: Company[], securities: SampleSecurity[], ids: Map<number, CompanyIds>) {
  const items: Prisma.NewsItemCreateManyInput[] = [];
  const rows: Prisma.NewsSecurityCreateManyInput[] = [];
  for (const c of companies) {
    const rng = rngFor(seed, 'news', c.index);
    const own = ids.get(c.index)!;
    const logo = securities[c.index]!.logo;
    const count = rng.int(3, 5);
    for (let i = 0; i < count; i++) {
      const id = items.length + 1;
      const at = ANCHOR_MS - rng.int(2 * 3600, (30 * DAY_MS) / 1000) * 1000;
      const type = rng.chance(0.55) ? 'gainers' : 'losers';
      const move = round(rng.range(2, 14), 1);
      const catalyst = rng.pick(CATALYSTS);
      const before = <T extends { id: number; at: number }>(list: T[], max: number) =>
        rng.sample(list.filter((x) => x.at <= at), rng.int(0, max)).map((x) => x.id).sort((a, b) => a - b);
      items.push({
        id,
        newsId: uuidV4(rng),
        headline: `${c.name} (${c.symbol}) shares ${type === 'gainers' ? 'rise' : 'fall'} ${move}% ${catalyst === 'Earnings' ? 'after quarterly results' : catalyst === 'Analyst Rating' ? 'following an analyst rating change' : `on ${catalyst.toLowerCase()}`}`,
        catalyst,
        catalystCreated: rng.chance(0.5),
        associatedPressReleases: before(own.pressReleases, 2),
        associatedRatings: before(own.ratings, 2),
        associatedTranscripts: rng.chance(0.5) ? before(own.calls, 1) : [],
        logoExists: true,
        logoThumbnailUrl: logo.thumbnailUrl,
        onAllTickers: rng.chance(0.2),
        onEntities: rng.chance(0.7),
        shareClassFigi: c.figiShareClass,
        ticker: c.symbol,
        type,
        createdAt: new Date(at),
        updatedAt: new Date(at + rng.int(0, 7200) * 1000),
      });
      rows.push({
        newsItemId: id, position: 0, figi: c.figi, name: c.name, mic: c.exchange.mic, exchcode: c.exchange.exchCode, ticker: c.symbol,
        compositefigi: c.figiComposite, securitytype: 'Common Stock', marketsector: 'Equity', shareclassfigi: c.figiShareClass,
      });
    }
  }
  return { items, rows };
}

// ================================================================ reference data

export function generateReference(opts: SampleOptions): {
  securities: Prisma.SecurityCreateManyInput[];
  logos: (Prisma.LogoCreateManyInput & { id: number })[];
  logoSecurityInfo: Prisma.LogoSecurityInfoCreateManyInput[];
  balanceSheets: (Prisma.BalanceSheetCreateManyInput & { id: number })[];
  balanceSheetSymbols: Prisma.BalanceSheetSymbolCreateManyInput[];
  fundamentals: (Prisma.FundamentalCreateManyInput & { id: number })[];
  fundamentalMetrics: Prisma.FundamentalMetricsCreateManyInput[];
  pressReleases: (Prisma.PressReleaseCreateManyInput & { id: number })[];
  pressReleaseTickers: Prisma.PressReleaseTickerCreateManyInput[];
  pressReleaseSecurities: Prisma.PressReleaseSecurityCreateManyInput[];
  ratings: Prisma.RatingCreateManyInput[];
  callSummaries: Prisma.CallSummaryCreateManyInput[];
  newsItems: Prisma.NewsItemCreateManyInput[];
  newsSecurities: Prisma.NewsSecurityCreateManyInput[];
} {
  checkOptions(opts);
  const companies = buildCompanies(opts, opts.securities);
  const securities = buildSecurities(opts.seed, companies);
  const covered = companies.slice(0, COVERED_COMPANIES);
  const ids = new Map<number, CompanyIds>(covered.map((c) => [c.index, { pressReleases: [], ratings: [], calls: [] }]));

  const financials = buildFinancials(opts.seed, covered, lastTradePrices(opts));
  const press = buildPressReleases(opts.seed, covered, ids);
  const ratings = buildRatings(opts.seed, covered, ids);
  const callSummaries = buildCallSummaries(opts.seed, covered, financials, ids);
  const news = buildNews(opts.seed, covered, securities, ids);

  return {
    securities: securities.map((s) => s.row),
    logos: securities.map((s) => s.logo),
    logoSecurityInfo: securities.flatMap((s) => s.logoSecurityInfo),
    balanceSheets: financials.balanceSheets,
    balanceSheetSymbols: financials.balanceSheetSymbols,
    fundamentals: financials.fundamentals,
    fundamentalMetrics: financials.fundamentalMetrics,
    pressReleases: press.releases,
    pressReleaseTickers: press.tickers,
    pressReleaseSecurities: press.securities,
    ratings,
    callSummaries,
    newsItems: news.items,
    newsSecurities: news.rows,
  };
}

// ================================================================ trades and quotes

const TRADES_PER_SCALE = 30_000;
const QUOTES_PER_SCALE = 30_000;
const DEFAULT_BATCH = 5000;

interface MarketSymbol {
  index: number;
  symbol: string;
  price: number;
  tape: number;
  trades: number;
  quotes: number;
}

/** Splits total by weights with largest remainders, so the parts sum to total exactly. */
function apportion(total: number, weights: number[]): number[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  const exact = weights.map((w) => (total * w) / sum);
  const parts = exact.map(Math.floor);
  const order = exact.map((x, i) => ({ i, rest: x - Math.floor(x) })).sort((a, b) => b.rest - a.rest || a.i - b.i);
  for (let left = total - parts.reduce((a, b) => a + b, 0), r = 0; left > 0; left--, r = (r + 1) % order.length) parts[order[r]!.i]!++;
  return parts;
}

/** Zipf-like volume (weight 1/rank): with 50 symbols the busiest carries ~22% of all rows. */
function marketPlan(opts: SampleOptions): MarketSymbol[] {
  checkOptions(opts);
  const companies = buildCompanies(opts, Math.min(COVERED_COMPANIES, opts.securities));
  const weights = companies.map((_, rank) => 1 / (rank + 1));
  const trades = apportion(Math.round(TRADES_PER_SCALE * opts.scale), weights);
  const quotes = apportion(Math.round(QUOTES_PER_SCALE * opts.scale), weights);
  return companies.map((c, i) => ({ index: c.index, symbol: c.symbol, price: c.price, tape: c.exchange.tape, trades: trades[i]!, quotes: quotes[i]! }));
}

export function plannedMarketRows(opts: SampleOptions): { trades: number; quotes: number; perSymbol: { symbol: string; trades: number; quotes: number }[] } {
  const plan = marketPlan(opts);
  return {
    trades: plan.reduce((s, p) => s + p.trades, 0),
    quotes: plan.reduce((s, p) => s + p.quotes, 0),
    perSymbol: plan.map((p) => ({ symbol: p.symbol, trades: p.trades, quotes: p.quotes })),
  };
}

function checkBatchSize(batchSize: number): void {
  if (!Number.isSafeInteger(batchSize) || batchSize < 1) throw new RangeError(`batch size must be a positive integer, got ${batchSize}`);
}

// Shared, frozen condition arrays: rows reference them instead of allocating one per row.
const freeze = (sets: number[][]): readonly (readonly number[])[] => Object.freeze(sets.map((s) => Object.freeze(s)));
/** Weighted by repetition; indexed with a uniform draw. */
const TRADE_CONDITIONS = freeze([[], [], [], [], [], [], [12, 37], [12, 37], [12, 37], [37], [14, 41], [12]]);
const QUOTE_CONDITIONS = freeze([[], [], [], [], [1], [1], [14], [1, 9]]);
const TRADE_VENUES = [4, 4, 4, 4, 11, 11, 12, 12, 12, 15, 15, 19] as const;
const QUOTE_VENUES = [4, 11, 11, 12, 12, 15, 19, 19] as const;

/**
 * Row j of a symbol's n rows is placed at a uniform point of the j-th of n equal slots of trading
 * time, so timestamps rise with the sequence number without sorting; now and then a row repeats the
 * previous timestamp (sweeps print together), and the sequence number breaks the tie.
 */
export function tradeBatches(opts: SampleOptions, batchSize = DEFAULT_BATCH): Generator<Prisma.TradeCreateManyInput[]> {
  checkBatchSize(batchSize);
  const plan = marketPlan(opts);
  return (function* () {
    const opens = sessionOpensNs();
    let batch: Prisma.TradeCreateManyInput[] = [];
    for (const s of plan) {
      for (const trade of symbolTrades(opts.seed, s, opens)) {
        batch.push(trade);
        if (batch.length === batchSize) {
          yield batch;
          batch = [];
        }
      }
    }
    if (batch.length > 0) yield batch;
  })();
}

/** The price of each symbol's last sample trade (its latest: time and sequence only rise); symbols without trades are absent. */
function lastTradePrices(opts: SampleOptions): Map<string, number> {
  const opens = sessionOpensNs();
  const out = new Map<string, number>();
  for (const s of marketPlan(opts)) {
    let last: Prisma.TradeCreateManyInput | undefined;
    for (const trade of symbolTrades(opts.seed, s, opens)) last = trade;
    if (last) out.set(s.symbol, last.price);
  }
  return out;
}

/** One symbol's trades in order: a random walk around its reference price. */
function* symbolTrades(seed: number, s: MarketSymbol, opens: bigint[]): Generator<Prisma.TradeCreateManyInput> {
  const n = s.trades;
  if (n === 0) return;
  const rng = rngFor(seed, 'trades', s.index);
  const symbol = s.symbol, tape = s.tape, base = s.price;
  const slot = TRADING_NS / n;
  const step = base * 0.002;
  let price = base;
  let seq = 1000 + s.index * 7 + rng.int(0, 999);
  const firstTradeId = rng.int(10_000, 99_999) * 1000;
  let t = 0;
  for (let j = 0; j < n; j++) {
    if (j === 0 || rng.next() >= 0.03) {
      const next = Math.floor((j + rng.next()) * slot);
      t = next < t ? t : next >= TRADING_NS ? TRADING_NS - 1 : next;
    }
    const session = (t / SESSION_NS) | 0;
    price += (base - price) * 0.0005 + step * (rng.next() - 0.5);
    if (price < 0.01) price = 0.01;
    const u = rng.next();
    const size = u < 0.45 ? 1 + ((u * 220) | 0) : 100 * (1 + ((u * u * u * 20) | 0));
    seq += rng.next() < 0.15 ? 2 + ((rng.next() * 6) | 0) : 1;
    yield {
      symbol,
      sequenceNumber: BigInt(seq),
      sipTimestamp: opens[session]! + BigInt(t - session * SESSION_NS),
      tradeId: String(firstTradeId + j),
      price: Math.round(price * 10_000) / 10_000,
      size,
      exchange: TRADE_VENUES[(rng.next() * TRADE_VENUES.length) | 0]!,
      tape,
      conditions: TRADE_CONDITIONS[(rng.next() * TRADE_CONDITIONS.length) | 0]!,
    };
  }
}

/** Quotes follow the same time layout as trades; prices are whole cents with bid < ask. */
export function quoteBatches(opts: SampleOptions, batchSize = DEFAULT_BATCH): Generator<Prisma.QuoteCreateManyInput[]> {
  checkBatchSize(batchSize);
  const plan = marketPlan(opts);
  return (function* () {
    const opens = sessionOpensNs();
    let batch: Prisma.QuoteCreateManyInput[] = [];
    for (const s of plan) {
      const n = s.quotes;
      if (n === 0) continue;
      const rng = rngFor(opts.seed, 'quotes', s.index);
      const symbol = s.symbol, tape = s.tape, base = s.price;
      const slot = TRADING_NS / n;
      const step = base * 0.002;
      let mid = base;
      let seq = 1000 + s.index * 11 + rng.int(0, 999);
      let t = 0;
      for (let j = 0; j < n; j++) {
        if (j === 0 || rng.next() >= 0.05) {
          const next = Math.floor((j + rng.next()) * slot);
          t = next < t ? t : next >= TRADING_NS ? TRADING_NS - 1 : next;
        }
        const session = (t / SESSION_NS) | 0;
        mid += (base - mid) * 0.0005 + step * (rng.next() - 0.5);
        if (mid < 0.05) mid = 0.05;
        const u = rng.next();
        const ticks = u < 0.5 ? 1 : u < 0.8 ? 2 : u < 0.95 ? 3 : 5;
        const bidCents = Math.max(1, Math.floor(mid * 100 - ticks / 2));
        const a = rng.next(), b = rng.next();
        seq += rng.next() < 0.15 ? 2 + ((rng.next() * 6) | 0) : 1;
        batch.push({
          symbol,
          sequenceNumber: BigInt(seq),
          sipTimestamp: opens[session]! + BigInt(t - session * SESSION_NS),
          askExchange: QUOTE_VENUES[(a * QUOTE_VENUES.length) | 0]!,
          askPrice: (bidCents + ticks) / 100,
          askSize: 100 * (1 + ((a * a * 30) | 0)),
          bidExchange: QUOTE_VENUES[(b * QUOTE_VENUES.length) | 0]!,
          bidPrice: bidCents / 100,
          bidSize: 100 * (1 + ((b * b * 30) | 0)),
          tape,
          conditions: QUOTE_CONDITIONS[(rng.next() * QUOTE_CONDITIONS.length) | 0]!,
        });
        if (batch.length === batchSize) {
          yield batch;
          batch = [];
        }
      }
    }
    if (batch.length > 0) yield batch;
  })();
}
