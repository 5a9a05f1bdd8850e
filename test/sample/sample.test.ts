import { describe, expect, it } from 'vitest';
import {
  DEFAULT_SAMPLE,
  generateReference,
  plannedMarketRows,
  quoteBatches,
  tradeBatches,
  type SampleOptions,
} from '../../src/sample/generate.js';
import { CASH_FLOW, INCOME_STATEMENT } from '../../src/domain/fundamentals.js';
import { FIELD_LIST_KINDS, LIST_LIMITS } from '../../src/domain/limits.js';
import { servedTextKinds } from '../domain/limits-helpers.js';
import * as f from '../../src/ingest/record-fields.js';

/** The served text kinds: the manifests' and the field tables' (test/domain/limits-helpers.ts). */
const TEXT_KINDS = servedTextKinds();

const json = (value: unknown): string =>
  JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));

function firstBatches<T>(batches: Generator<T[]>, count: number): T[][] {
  const out: T[][] = [];
  for (const batch of batches) {
    out.push(batch);
    if (out.length === count) break;
  }
  return out;
}

function expectUnique(keys: string[], what: string): void {
  const seen = new Set<string>();
  const dupes = keys.filter((key) => (seen.has(key) ? true : (seen.add(key), false)));
  expect(dupes, `duplicate ${what}`).toEqual([]);
}

function groupBy<T, K>(items: T[], key: (item: T) => K): Map<K, T[]> {
  const out = new Map<K, T[]>();
  for (const item of items) out.set(key(item), [...(out.get(key(item)) ?? []), item]);
  return out;
}

const ref = generateReference(DEFAULT_SAMPLE);
const num = (v: number | null | undefined): number => v ?? 0;

// Independent check-digit implementations, validated on real identifiers below.
const charValue = (ch: string): number => (/[0-9]/.test(ch) ? Number(ch) : ch.charCodeAt(0) - 55);
const isinValid = (isin: string): boolean => {
  const digits = [...isin.slice(0, 11)].map(charValue).join('') + isin[11];
  let sum = 0;
  [...digits].reverse().forEach((d, i) => {
    const v = Number(d) * (i % 2 === 1 ? 2 : 1);
    sum += v > 9 ? v - 9 : v;
  });
  return /^[A-Z]{2}[A-Z0-9]{9}[0-9]$/.test(isin) && sum % 10 === 0;
};
const doubleAddDouble = (body: string): string => {
  let sum = 0;
  [...body].forEach((ch, i) => {
    const v = charValue(ch) * (i % 2 === 1 ? 2 : 1);
    sum += Math.floor(v / 10) + (v % 10);
  });
  return String((10 - (sum % 10)) % 10);
};
const cusipValid = (c: string): boolean => /^[0-9A-Z]{8}[0-9]$/.test(c) && doubleAddDouble(c.slice(0, 8)) === c[8];
const figiValid = (f: string): boolean =>
  /^BBG[0-9BCDFGHJKLMNPQRSTVWXYZ]{8}[0-9]$/.test(f) && doubleAddDouble(f.slice(0, 11)) === f[11];

describe('sample data: determinism', () => {
  it('gives identical output for the same options', () => {
    expect(json(generateReference(DEFAULT_SAMPLE))).toBe(json(ref));
    expect(json(firstBatches(tradeBatches(DEFAULT_SAMPLE), 3))).toBe(
      json(firstBatches(tradeBatches(DEFAULT_SAMPLE), 3)),
    );
    expect(json(firstBatches(quoteBatches(DEFAULT_SAMPLE), 3))).toBe(
      json(firstBatches(quoteBatches(DEFAULT_SAMPLE), 3)),
    );
  });

  it('gives different output for a different seed', () => {
    const other: SampleOptions = { ...DEFAULT_SAMPLE, seed: 7 };
    expect(json(generateReference(other))).not.toBe(json(ref));
    expect(json(firstBatches(tradeBatches(other), 1))).not.toBe(json(firstBatches(tradeBatches(DEFAULT_SAMPLE), 1)));
  });

  it('keeps the first companies unchanged when more securities are asked for', () => {
    const more = generateReference({ ...DEFAULT_SAMPLE, securities: 120 });
    expect(more.securities).toHaveLength(120);
    expect(more.logos).toHaveLength(120);
    expect(json(more.securities.slice(0, 50))).toBe(json(ref.securities));
    // financials and other per-company data stay limited to the first 50 companies
    expect(more.balanceSheets).toHaveLength(ref.balanceSheets.length);
    expectUnique(
      more.securities.map((s) => s.symbol),
      'ticker',
    );
    expectUnique(
      more.securities.map((s) => s.id),
      'security id',
    );
  });

  it('rejects invalid options', () => {
    expect(() => generateReference({ ...DEFAULT_SAMPLE, securities: 0 })).toThrow(RangeError);
    expect(() => plannedMarketRows({ ...DEFAULT_SAMPLE, scale: -1 })).toThrow(RangeError);
    expect(() => tradeBatches(DEFAULT_SAMPLE, 0)).toThrow(RangeError);
  });
});

describe('sample data: securities and logos', () => {
  it('fills every security field with valid identifiers', () => {
    expect(ref.securities).toHaveLength(DEFAULT_SAMPLE.securities);
    expect(isinValid('US0378331005')).toBe(true);
    expect(cusipValid('037833100')).toBe(true);
    expect(figiValid('BBG000B9XRY4')).toBe(true);
    for (const s of ref.securities) {
      expect(s.id).toBe(`${s.figi}_${s.micCode}`);
      expect(['XNAS', 'XNYS']).toContain(s.micCode);
      expect(figiValid(s.figi) && figiValid(s.figiComposite!) && figiValid(s.figiShareClass!), s.symbol).toBe(true);
      expect(cusipValid(s.cusip!), s.cusip!).toBe(true);
      expect(isinValid(s.isin!), s.isin!).toBe(true);
      expect(s.isin!.slice(2, 11)).toBe(s.cusip);
      expect(s.cik).toMatch(/^[0-9]{10}$/);
      expect(s.gicsCode).toMatch(/^[0-9]{8}$/);
      expect(typeof s.marketCap).toBe('bigint');
      expect(s.exchangeCountry).toBe('US');
      expect(s.currencyName).toBe('usd');
      for (const value of Object.values(s)) expect(value).not.toBeNull();
    }
    expect(ref.securities.filter((s) => !s.active).length).toBeGreaterThanOrEqual(2);
    expect(ref.securities.filter((s) => s.status === 'ACTIVE').length).toBeGreaterThan(40);
  });

  it('gives every security a logo whose security info shows the format quirks', () => {
    const logoBySymbol = new Map(ref.logos.map((l) => [l.symbol, l]));
    for (const s of ref.securities) expect(logoBySymbol.has(s.symbol), s.symbol).toBe(true);
    const rowsByLogo = groupBy(ref.logoSecurityInfo, (r) => r.logoId);
    for (const logo of ref.logos) {
      const rows = rowsByLogo.get(logo.id) ?? [];
      expect(rows.length).toBeGreaterThanOrEqual(1);
      expect(rows.length).toBeLessThanOrEqual(3);
      expect(logo.pngUrl).toBe(`https://static.example.com/logos/${logo.symbol}.png`);
    }
    const repeatsFigi = [...rowsByLogo.values()].some((rows) => new Set(rows.map((r) => r.figi)).size < rows.length);
    expect(repeatsFigi).toBe(true);
    expect(ref.logoSecurityInfo.some((r) => r.symbol.endsWith('*'))).toBe(true);
    expect(ref.logoSecurityInfo.some((r) => r.mic === '')).toBe(true);
  });
});

describe('sample data: balance sheets and fundamentals', () => {
  it('balances every balance sheet exactly', () => {
    expect(ref.balanceSheets).toHaveLength(50 * 11);
    for (const b of ref.balanceSheets) {
      const currentAssets =
        b.cashAndShortTermEquivalents +
        b.customerReceivables +
        num(b.stockInventory) +
        num(b.marketableSecuritiesShortTerm) +
        b.miscellaneousCurrentAssets;
      const currentLiabilities =
        b.payableToSuppliers + b.advanceCustomerPayments + b.shortTermDebtObligations + b.currentAccruedLiabilities;
      const parent =
        b.ordinaryShareCapital +
        num(b.capitalPaidInExcess) +
        b.accumulatedRetainedEarnings +
        b.otherComprehensiveIncomeAccumulated +
        b.otherStockholderEquity -
        num(b.treasuryStock);
      expect(b.sumOfCurrentAssets).toBe(currentAssets);
      expect(b.sumOfCurrentLiabilities).toBe(currentLiabilities);
      expect(b.totalAssets).toBe(
        b.sumOfCurrentAssets + b.netFixedAssets + b.acquiredGoodwill + b.netIntangibleAssets + b.miscellaneousAssets,
      );
      expect(b.totalLiabilities).toBe(
        b.sumOfCurrentLiabilities + b.longTermDebtObligations + b.longTermMiscellaneousLiabilities,
      );
      expect(b.parentCompanyEquity).toBe(parent);
      expect(b.totalEquity).toBe(b.parentCompanyEquity + num(b.minorityShareholderInterest));
      expect(b.totalAssets).toBe(b.totalLiabilities + b.totalEquity);
      expect(b.totalLiabilitiesPlusEquity).toBe(b.totalAssets);
      expect(b.cik).toMatch(/^[0-9]{10}$/);
      expect(b.reportingPeriodEnd < '2026-11-20').toBe(true);
    }
    // some optional fields are absent, and the sums above held regardless
    expect(ref.balanceSheets.some((b) => b.treasuryStock === null)).toBe(true);
    expect(ref.balanceSheets.some((b) => b.stockInventory === null)).toBe(true);
    expect(ref.balanceSheets.some((b) => b.otherComprehensiveIncomeAccumulated < 0)).toBe(true);
    expect(new Set(ref.balanceSheets.map((b) => b.timeframe))).toEqual(
      new Set(['quarterly', 'annual', 'trailing_twelve_months']),
    );
  });

  it('lists symbols for every balance sheet, sometimes a second share class', () => {
    const ids = new Set(ref.balanceSheetSymbols.map((s) => s.balanceSheetId));
    for (const b of ref.balanceSheets) expect(ids.has(b.id)).toBe(true);
    expect(ref.balanceSheetSymbols.some((s) => s.symbol.endsWith('.B'))).toBe(true);
  });

  it('agrees with the balance sheet of the same period', () => {
    const byKey = new Map(ref.fundamentals.map((f) => [`${f.cik}|${f.endPeriod}|${f.quarter}`, f]));
    for (const b of ref.balanceSheets) {
      if (b.timeframe === 'trailing_twelve_months') continue;
      const f = byKey.get(
        `${b.cik}|${b.reportingPeriodEnd}|${b.timeframe === 'annual' ? 'FY' : `Q${b.fiscalQuarter}`}`,
      );
      expect(f, `${b.cik} ${b.reportingPeriodEnd} ${b.timeframe}`).toBeDefined();
      expect(f!.year).toBe(b.fiscalYear);
      expect(f!.totalAssets).toBe(b.totalAssets);
      expect(f!.totalLiabilities).toBe(b.totalLiabilities);
      expect(f!.totalEquity).toBe(b.totalEquity);
      expect(f!.totalLiabilitiesEquity).toBe(b.totalLiabilitiesPlusEquity);
      expect(f!.totalCurrentAssets).toBe(b.sumOfCurrentAssets);
      expect(f!.totalCurrentLiabilities).toBe(b.sumOfCurrentLiabilities);
      expect(f!.cashEquivalents).toBe(b.cashAndShortTermEquivalents);
      expect(f!.goodwill).toBe(b.acquiredGoodwill);
      expect(f!.totalEquityAttributableParent).toBe(b.parentCompanyEquity);
    }
  });

  it('keeps statements internally consistent and fiscal years equal to their quarters', () => {
    for (const f of ref.fundamentals) {
      expect(f.grossProfit).toBe(f.revenue - f.costOfRevenue);
      expect(f.totalOperatingExpenses).toBe(
        f.sellingGeneralAdministrative +
          f.researchDevelopment +
          f.depreciationDepletionAmortizationExpense +
          f.otherOperatingExpenses,
      );
      expect(f.operatingIncome).toBe(f.grossProfit - f.totalOperatingExpenses);
      expect(f.incomeBeforeIncomeTaxes).toBe(f.operatingIncome + f.totalOtherIncomeExpense);
      expect(f.netIncomeLossAttributableCommonShareholders).toBe(
        f.consolidatedNetIncomeLoss - f.noncontrollingInterestIncome - f.preferredStockDividendsDeclared,
      );
      expect(f.basicEarningsPerShare).toBe(
        Math.round((f.netIncomeLossAttributableCommonShareholders / f.basicSharesOutstanding) * 100) / 100,
      );
      expect(f.netCashOperatingActivities).toBe(
        f.cashOperatingActivitiesContinuingOperations + f.netCashOperatingActivitiesDiscontinuedOperations,
      );
      expect(f.netCashInvestingActivities).toBe(
        f.netCashInvestingActivitiesContinuingOperations + f.netCashInvestingActivitiesDiscontinuedOperations,
      );
      expect(f.netCashFinancingActivities).toBe(
        f.netCashFinancingActivitiesContinuingOperations + f.netCashFinancingActivitiesDiscontinuedOperations,
      );
      expect(f.changeCashEquivalents).toBe(
        f.netCashOperatingActivities +
          f.netCashInvestingActivities +
          f.netCashFinancingActivities +
          f.effectCurrencyExchangeRate +
          f.otherCashAdjustments,
      );
    }
    const rows = ref.fundamentals as unknown as Record<string, number | string>[];
    const flowColumns = [...INCOME_STATEMENT, ...CASH_FLOW]
      .filter((l) => !/EarningsPerShare|SharesOutstanding/.test(l))
      .map((l) => (l === 'EBITDA' ? 'ebitda' : l[0]!.toLowerCase() + l.slice(1)));
    for (const fy of rows.filter((f) => f.quarter === 'FY')) {
      const quarters = rows.filter((f) => f.symbol === fy.symbol && f.year === fy.year && f.quarter !== 'FY');
      expect(quarters).toHaveLength(4);
      for (const column of flowColumns) {
        expect(fy[column], `${String(fy.symbol)} ${String(fy.year)} ${column}`).toBe(
          quarters.reduce((s, q) => s + (q[column] as number), 0),
        );
      }
    }
    expect(ref.fundamentals.some((f) => f.commitmentsContingencies === null)).toBe(true);
  });

  it('gives every fundamental one metrics row with sane derived values', () => {
    expect(ref.fundamentalMetrics.map((m) => m.fundamentalId).sort((a, b) => a - b)).toEqual(
      ref.fundamentals.map((f) => f.id),
    );
    const byId = new Map(ref.fundamentals.map((f) => [f.id, f]));
    for (const m of ref.fundamentalMetrics) {
      const f = byId.get(m.fundamentalId)!;
      expect(m.debtToEquity).toBeCloseTo((f.debtCurrent + f.longTermDebtCapitalLeaseObligations) / f.totalEquity, 3);
      for (const score of [m.riskAverageSentimentScore, m.riskMostNegativeSentiment, m.mdnaToneScore]) {
        expect(score).toBeGreaterThanOrEqual(-1);
        expect(score).toBeLessThanOrEqual(1);
      }
      expect(
        Array.isArray(m.riskTopThemes) && Array.isArray(m.mdnaKeyTopics) && Array.isArray(m.litigationRecentHeadings),
      ).toBe(true);
      expect(Number.isInteger(m.riskFactorCount) && Number.isInteger(m.litigationCount)).toBe(true);
    }
  });
});

describe('sample data: press releases, ratings, calls and news', () => {
  it('links news only to press releases, ratings and calls of the same ticker', () => {
    const tickersOf = groupBy(ref.pressReleaseTickers, (t) => t.pressReleaseId);
    const ratings = new Map(ref.ratings.map((r) => [r.id, r]));
    const calls = new Map(ref.callSummaries.map((c) => [c.id!, c]));
    const securities = new Map(ref.securities.map((s) => [s.symbol, s]));
    const logos = new Map(ref.logos.map((l) => [l.symbol, l]));
    let links = 0;
    for (const n of ref.newsItems) {
      for (const id of n.associatedPressReleases as number[]) {
        expect((tickersOf.get(id) ?? []).map((t) => t.ticker)).toContain(n.ticker);
        links++;
      }
      for (const id of n.associatedRatings as number[]) {
        expect(ratings.get(id)?.ticker).toBe(n.ticker);
        links++;
      }
      for (const id of n.associatedTranscripts as number[]) expect(calls.get(id)?.symbol).toBe(n.ticker);
      const security = securities.get(n.ticker)!;
      expect(n.shareClassFigi).toBe(security.figiShareClass);
      expect(n.logoThumbnailUrl).toBe(logos.get(n.ticker)!.thumbnailUrl);
      expect(n.newsId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
    expect(links).toBeGreaterThan(0);
    expect(ref.newsItems.some((n) => (n.associatedPressReleases as number[]).length === 0)).toBe(true);
    for (const row of ref.newsSecurities) {
      const item = ref.newsItems[row.newsItemId - 1]!;
      const security = securities.get(item.ticker)!;
      expect([row.ticker, row.figi, row.compositefigi, row.shareclassfigi]).toEqual([
        security.symbol,
        security.figi,
        security.figiComposite,
        security.figiShareClass,
      ]);
    }
  });

  it('gives press releases the documented shapes', () => {
    expect(ref.pressReleases.map((p) => p.id)).toEqual(ref.pressReleases.map((_, i) => i + 1));
    expect(ref.pressReleases.some((p) => p.releaseId.startsWith('{'))).toBe(true);
    expect(ref.pressReleases.some((p) => p.releaseId.startsWith('https://'))).toBe(true);
    expect(ref.pressReleases.some((p) => p.categories === undefined)).toBe(true);
    for (const p of ref.pressReleases) {
      expect(p.wireDataId).toBe(String(p.id));
      const at = new Date(p.publishTime).getTime();
      expect(at).toBeLessThan(Date.UTC(2026, 10, 20, 21));
      expect(at).toBeGreaterThan(Date.UTC(2026, 10, 20, 21) - 61 * 86_400_000);
    }
    expect(ref.pressReleaseSecurities.some((s) => s.figiShareClass === '')).toBe(true);
  });

  it('gives ratings and call summaries the documented shapes', () => {
    expect(ref.ratings.map((r) => r.id)).toEqual(ref.ratings.map((_, i) => i + 1));
    expect(ref.ratings.every((r) => /^(C\$|\$)[0-9,]+\.[0-9]{2}$/.test(r.priceTarget))).toBe(true);
    expect(ref.ratings.some((r) => r.priceTarget.startsWith('C$'))).toBe(true);
    expect(ref.callSummaries).toHaveLength(200);
    for (const c of ref.callSummaries) {
      expect(c.sentimentScore).toBeGreaterThanOrEqual(-1);
      expect(c.sentimentScore).toBeLessThanOrEqual(1);
      for (const p of c.participants as { name: string; role: string; organization: string }[]) {
        expect(typeof p.name === 'string' && typeof p.role === 'string' && typeof p.organization === 'string').toBe(
          true,
        );
      }
      expect(new Date(c.callDate).getTime()).toBeLessThan(Date.UTC(2026, 10, 20, 21));
    }
    expect(ref.callSummaries.some((c) => c.guidance === null)).toBe(true);
  });
});

describe('sample data: dates', () => {
  it('dates everything at or before the anchor instant', () => {
    const anchor = Date.UTC(2026, 10, 20, 21);
    let dates = 0;
    for (const rows of Object.values(ref)) {
      for (const row of rows as object[]) {
        for (const value of Object.values(row)) {
          if (value instanceof Date) {
            dates++;
            expect(value.getTime()).toBeLessThanOrEqual(anchor);
          }
        }
      }
    }
    expect(dates).toBeGreaterThan(1000);
  });
});

describe('sample data: unique keys', () => {
  it('holds every unique key of the reference data', () => {
    expectUnique(
      ref.securities.map((s) => s.id),
      'security id',
    );
    expectUnique(
      ref.securities.map((s) => `${s.figi}|${s.micCode}`),
      'figi + mic',
    );
    expectUnique(
      ref.logos.map((l) => l.symbol),
      'logo symbol',
    );
    expectUnique(
      ref.balanceSheets.map((b) => `${b.cik}|${b.reportingPeriodEnd}|${b.timeframe}`),
      'balance sheet',
    );
    expectUnique(
      ref.fundamentals.map((f) => `${f.symbol}|${f.year}|${f.quarter}`),
      'fundamental',
    );
    expectUnique(
      ref.callSummaries.map((c) => `${c.symbol}|${new Date(c.callDate).toISOString()}`),
      'call summary',
    );
    expectUnique(
      ref.newsItems.map((n) => n.newsId),
      'news id',
    );
    expectUnique(
      ref.pressReleases.map((p) => p.wireDataId),
      'wire data id',
    );
    for (const [name, rows] of Object.entries({
      logos: ref.logos,
      balanceSheets: ref.balanceSheets,
      fundamentals: ref.fundamentals,
      ratings: ref.ratings,
      newsItems: ref.newsItems,
      callSummaries: ref.callSummaries,
    })) {
      expect(
        (rows as { id?: number }[]).map((r) => r.id),
        name,
      ).toEqual(rows.map((_, i) => i + 1));
    }
  });
});

describe('sample data: trades and quotes', () => {
  const sessionOk = (ns: bigint): boolean => {
    const ms = Number(ns / 1_000_000n);
    const minute = Math.floor((ms % 86_400_000) / 60_000);
    const day = new Date(ms).getUTCDay();
    return minute >= 14 * 60 + 30 && minute < 21 * 60 && day !== 0 && day !== 6 && ms < Date.UTC(2026, 10, 20, 21);
  };

  it('orders each symbol by sequence number and timestamp, and yields the planned counts', () => {
    for (const scale of [1, 0.1]) {
      const options = { ...DEFAULT_SAMPLE, scale };
      const planned = plannedMarketRows(options);
      const last = new Map<string, { seq: bigint; ts: bigint }>();
      const counts = new Map<string, number>();
      const keys = new Set<string>();
      let ties = 0;
      for (const batch of tradeBatches(options, 1000)) {
        expect(batch.length).toBeLessThanOrEqual(1000);
        for (const t of batch) {
          const seq = t.sequenceNumber as bigint,
            ts = t.sipTimestamp as bigint;
          const prev = last.get(t.symbol);
          if (prev) {
            expect(seq > prev.seq).toBe(true);
            expect(ts >= prev.ts).toBe(true);
            if (ts === prev.ts) ties++;
          }
          last.set(t.symbol, { seq, ts });
          counts.set(t.symbol, (counts.get(t.symbol) ?? 0) + 1);
          keys.add(`${t.symbol}|${seq}`);
          if (!sessionOk(ts)) expect.fail(`trade outside market hours: ${t.symbol} ${ts}`);
        }
      }
      expect(keys.size).toBe(planned.trades);
      expect(Object.fromEntries(counts)).toEqual(
        Object.fromEntries(planned.perSymbol.filter((p) => p.trades > 0).map((p) => [p.symbol, p.trades])),
      );
      expect(ties).toBeGreaterThan(0);
      let quotes = 0;
      for (const batch of quoteBatches(options)) quotes += batch.length;
      expect(quotes).toBe(planned.quotes);
    }
    // 30,000 trades a scale apportioned by rank, less the shares of the two listings that ended
    // before the ticks (sample/corporate-actions.ts SAMPLE_DELISTINGS: HRVL and CNDL)
    const base = plannedMarketRows(DEFAULT_SAMPLE);
    expect(base.perSymbol.filter((p) => p.trades === 0).map((p) => p.symbol)).toEqual(['HRVL', 'CNDL']);
    expect(base.trades).toBe(29_725);
    expect(plannedMarketRows({ ...DEFAULT_SAMPLE, scale: 400 }).trades).toBe(11_890_004);
  });

  it('concentrates volume on the busiest symbol like a Zipf distribution', () => {
    const planned = plannedMarketRows(DEFAULT_SAMPLE);
    const busiest = Math.max(...planned.perSymbol.map((p) => p.trades));
    expect(busiest / planned.trades).toBeGreaterThan(0.15);
    expect(busiest / planned.trades).toBeLessThan(0.3);
    expect(planned.perSymbol).toHaveLength(50);
  });

  it('writes well-formed trade and quote rows', () => {
    const [trades] = firstBatches(tradeBatches(DEFAULT_SAMPLE), 1);
    for (const t of trades!) {
      expect(Number.isInteger(t.size) && t.size > 0).toBe(true);
      expect(t.price).toBe(Math.round(t.price * 10_000) / 10_000);
      expect(t.tape).toBeGreaterThanOrEqual(1);
      expect(t.tape).toBeLessThanOrEqual(3);
      expect(Array.isArray(t.conditions)).toBe(true);
      expect(typeof t.tradeId).toBe('string');
    }
    const [quotes] = firstBatches(quoteBatches(DEFAULT_SAMPLE), 1);
    for (const q of quotes!) {
      expect(q.bidPrice).toBeLessThan(q.askPrice);
      expect(q.bidPrice).toBeGreaterThan(0);
      expect(q.bidSize > 0 && q.askSize > 0).toBe(true);
    }
  });
});

describe('sample data: within the import limits (src/domain/limits.ts)', () => {
  /** The GraphQL type each generated model is served as, and its columns served under another coordinate. */
  const SERVED: Record<string, [type: string, columns?: Record<string, string>]> = {
    securities: ['Security', { description: 'CompanyInfo.description', homepageUrl: 'CompanyInfo.homepageUrl' }],
    logos: ['Logo', { pngUrl: 'LogoPng.url', svgUrl: 'LogoImage.url', thumbnailUrl: 'LogoImage.url' }],
    logoSecurityInfo: ['LogoSecurityInfo'],
    balanceSheets: ['BalanceSheet'],
    balanceSheetSymbols: ['BalanceSheet'],
    fundamentals: ['Fundamental'],
    fundamentalMetrics: ['EnhancedFundamental'],
    pressReleases: ['PressRelease'],
    pressReleaseTickers: ['PressRelease'],
    pressReleaseSecurities: ['PressReleaseSecurity'],
    ratings: ['Rating'],
    callSummaries: ['CallSummary'],
    newsItems: ['NewsItem'],
    newsSecurities: ['NewsSecurity'],
    trades: ['Trade'],
    quotes: ['Quote'],
    exchanges: ['Exchange'],
    splits: ['Split'],
    dividends: ['Dividend'],
    symbolHistory: ['SymbolPeriod'],
  };
  /** Child rows, by the column naming their parent: at most LIST_LIMITS.children per parent. */
  const CHILDREN: Record<string, string> = {
    logoSecurityInfo: 'logoId',
    balanceSheetSymbols: 'balanceSheetId',
    pressReleaseTickers: 'pressReleaseId',
    pressReleaseSecurities: 'pressReleaseId',
    newsSecurities: 'newsItemId',
  };

  /** Every value of one generated row through the import's own checks: text of its kind, lists of theirs, JSON by its text. */
  function checkRow(model: string, row: Record<string, unknown>): void {
    const [type, columns = {}] = SERVED[model]!;
    for (const [column, value] of Object.entries(row)) {
      const coordinate = columns[column] ?? `${type}.${column}`;
      const kind = TEXT_KINDS[coordinate] ?? 'short';
      const name = `${model}.${column}`;
      if (typeof value === 'string') f.string(value, name, kind);
      else if (kind === 'json') f.anyJson(value, name);
      else if (Array.isArray(value)) {
        f.array(value, name, FIELD_LIST_KINDS[coordinate] ?? 'children').forEach((item, i) => {
          if (typeof item === 'string') f.string(item, `${name}[${i}]`, kind);
          else if (typeof item === 'object' && item !== null)
            for (const [k, v] of Object.entries(item)) if (typeof v === 'string') f.string(v, `${name}[${i}].${k}`);
        });
      } else if (typeof value === 'object' && value !== null && !(value instanceof Date)) {
        throw new Error(`${name}: an object that is neither a list nor JSON`);
      }
    }
  }

  it.each([
    ['the default sample', DEFAULT_SAMPLE],
    ['--securities 1000', { ...DEFAULT_SAMPLE, securities: 1000 }],
    ['--scale 3, another seed', { ...DEFAULT_SAMPLE, scale: 3, seed: 7 }],
  ] as [string, SampleOptions][])(
    '%s: every text, list and JSON value is within the limits the import enforces',
    (_name, options) => {
      const reference = generateReference(options) as unknown as Record<string, Record<string, unknown>[]>;
      let rows = 0;
      for (const [model, list] of Object.entries(reference)) {
        for (const row of list) checkRow(model, row);
        rows += list.length;
        const parent = CHILDREN[model];
        if (parent) {
          const most = Math.max(...[...groupBy(list, (r) => r[parent]).values()].map((c) => c.length));
          expect(most, `${model} per ${parent}`).toBeLessThanOrEqual(LIST_LIMITS.children);
        }
      }
      for (const batch of tradeBatches(options)) for (const t of batch) checkRow('trades', t);
      for (const batch of quoteBatches(options)) for (const q of batch) checkRow('quotes', q);
      expect(rows).toBeGreaterThan(1000);
    },
  );
});
