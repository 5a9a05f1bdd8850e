/** Security-master rows and logos, one of each per company. */
import type { Prisma } from '../../generated/prisma/client.js';
import { round } from './amounts.js';
import type { Company } from './catalog.js';
import { rngFor, type Rng } from './random.js';
import { ANCHOR_MS, DAY_MS } from './time.js';

export interface SampleSecurity {
  row: Prisma.SecurityCreateManyInput;
  logo: Prisma.LogoCreateManyInput & { id: number };
  logoSecurityInfo: Prisma.LogoSecurityInfoCreateManyInput[];
}

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
    logoId,
    name: c.name.toUpperCase(),
    compositeFigi: c.figiComposite,
    shareClassFigi: c.figiShareClass,
    marketSector: 'Equity',
  };
  const rows: Prisma.LogoSecurityInfoCreateManyInput[] = [
    { ...base, position: 0, symbol: c.symbol, mic: c.exchange.mic, figi: c.figi, exchCode: c.exchange.exchCode },
  ];
  const variant = c.index === 0 ? 3 : rng.pick([1, 1, 2, 2, 3]);
  if (variant === 3)
    rows.push({
      ...base,
      position: rows.length,
      symbol: `${c.symbol}*`,
      mic: c.exchange.mic,
      figi: c.figi,
      exchCode: c.exchange.exchCode,
    });
  if (variant >= 2)
    rows.push({ ...base, position: rows.length, symbol: c.symbol, mic: '', figi: c.figiComposite, exchCode: 'US' });
  return rows;
}

export function buildSecurities(seed: number, companies: Company[]): SampleSecurity[] {
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
