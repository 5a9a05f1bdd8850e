/** Press releases on an invented wire: results dates, products, dividends, partnerships, conferences, appointments. */
import type { Prisma } from '../../generated/prisma/client.js';
import { round } from './amounts.js';
import type { Company, CompanyIds } from './catalog.js';
import { FIRMS, executives, person } from './people.js';
import { rngFor, type Rng } from './random.js';
import { ANCHOR_DAY_MS, DAY_MS, isoDate, longDate } from './time.js';

const WIRE = 'Meridian Wire';
const WIRE_BASE = 'https://wire.example.com';
const QUARTER_WORDS = ['First', 'Second', 'Third', 'Fourth'];
const CATEGORIES = {
  'results-date': 'Earnings',
  product: 'Product Announcement',
  dividend: 'Dividends',
  partnership: 'Partnerships',
  conference: 'Conferences',
  appointment: 'Management Changes',
} as const;
const KINDS = ['results-date', 'product', 'dividend', 'partnership', 'conference', 'appointment'] as const;

type Kind = (typeof KINDS)[number];
type People = ReturnType<typeof executives>;

/** One release of `company`; `partner` is the other party of a partnership. */
interface Release {
  id: number;
  at: number;
  kind: Kind;
  company: Company;
  partner: Company | null;
  headline: string;
  summary: string;
}

interface PressReleases {
  releases: (Prisma.PressReleaseCreateManyInput & { id: number })[];
  tickers: Prisma.PressReleaseTickerCreateManyInput[];
  securities: Prisma.PressReleaseSecurityCreateManyInput[];
}

export function buildPressReleases(seed: number, companies: Company[], ids: Map<number, CompanyIds>): PressReleases {
  const out: PressReleases = { releases: [], tickers: [], securities: [] };
  for (const c of companies) {
    const rng = rngFor(seed, 'press', c.index);
    const people = executives(seed, c);
    const others = companies.filter((o) => o.index !== c.index);
    for (const at of releaseTimes(rng)) {
      const id = out.releases.length + 1;
      const kind = rng.pick(KINDS);
      const partner = kind === 'partnership' && others.length > 0 ? rng.pick(others) : null;
      const release: Release = {
        id,
        at,
        kind,
        company: c,
        partner,
        ...announcement(rng, c, kind, partner, at, people),
      };
      out.releases.push(releaseRow(rng, release, people));
      addNamedSecurities(rng, release, out);
      ids.get(c.index)!.pressReleases.push({ id, at });
    }
  }
  return out;
}

/** 2 to 4 publication times in the 60 days up to the anchor, oldest first. */
function releaseTimes(rng: Rng): number[] {
  const count = rng.int(2, 4);
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const day = ANCHOR_DAY_MS - rng.int(0, 59) * DAY_MS;
    times.push(day + rng.int(11 * 60, 20 * 60 + 59) * 60_000);
  }
  return times.sort((a, b) => a - b);
}

function announcement(
  rng: Rng,
  c: Company,
  kind: Kind,
  partner: Company | null,
  at: number,
  people: People,
): { headline: string; summary: string } {
  const product = `${c.name.split(' ')[0]} ${rng.pick(['X', 'Pro', 'One', 'Edge', 'Prime'])} ${c.industry.product}`;
  switch (kind) {
    case 'results-date': {
      const reportMs = at + rng.int(10, 25) * DAY_MS;
      return {
        headline: `${c.name} to Report ${rng.pick(QUARTER_WORDS)} Quarter Financial Results on ${longDate(reportMs)}`,
        summary: `${c.name} will release its financial results after the market close on ${longDate(reportMs)} and host a conference call at 5:00 p.m. Eastern Time.`,
      };
    }
    case 'product':
      return {
        headline: `${c.name} Introduces the ${product}`,
        summary: `${c.name} today introduced the ${product}, expanding its portfolio for customers in ${c.industry.subIndustry.toLowerCase()}.`,
      };
    case 'dividend': {
      const dps = round(rng.range(0.05, 1.2), 2);
      return {
        headline: `${c.name} Declares Quarterly Dividend of $${dps.toFixed(2)} per Share`,
        summary: `The board of directors of ${c.name} declared a quarterly cash dividend of $${dps.toFixed(2)} per share, payable to shareholders of record.`,
      };
    }
    case 'partnership':
      return {
        headline: `${c.name} and ${partner!.name} Announce Strategic Collaboration`,
        summary: `${c.name} and ${partner!.name} announced a multi-year collaboration to co-develop and jointly market new offerings.`,
      };
    case 'conference':
      return {
        headline: `${c.name} to Present at the ${rng.pick(FIRMS)} ${c.industry.sector} Conference`,
        summary: `${people.cfo}, Chief Financial Officer of ${c.name}, will present at the conference; a live webcast will be available on the company's investor relations website.`,
      };
    default: {
      const appointee = person(rng);
      return {
        headline: `${c.name} Appoints ${appointee} as Chief Operating Officer`,
        summary: `${c.name} named ${appointee} Chief Operating Officer, reporting to Chief Executive Officer ${people.ceo}.`,
      };
    }
  }
}

const namedIn = (r: Release): Company[] => (r.partner ? [r.company, r.partner] : [r.company]);

function releaseRow(rng: Rng, r: Release, people: People): Prisma.PressReleaseCreateManyInput & { id: number } {
  const { id, at, kind, partner, headline, summary, company: c } = r;
  const named = namedIn(r);
  const dateline = `${c.city.toUpperCase()}, ${c.state}, ${longDate(at)} (${WIRE}) --`;
  const about = `About ${c.name}: ${c.name} ${c.industry.does}.`;
  const url = `${WIRE_BASE}/news-release/${isoDate(at).replaceAll('-', '/')}/${1_000_000 + id}`;
  return {
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
    raw: {
      vendor: WIRE,
      wire_id: id,
      channel: 'corporate',
      received_at: new Date(at).toISOString(),
      tickers: named.map((n) => n.symbol),
      priority: 'normal',
    },
    createdAt: new Date(at + 60_000),
    updatedAt: new Date(at + 60_000),
  };
}

/** The release's ticker and security rows: its company first, then the partner. */
function addNamedSecurities(rng: Rng, r: Release, out: PressReleases): void {
  namedIn(r).forEach((n, position) => {
    out.tickers.push({ pressReleaseId: r.id, position, ticker: n.symbol });
    out.securities.push({
      pressReleaseId: r.id,
      position,
      figi: n.figi,
      isin: n.isin,
      name: n.name,
      symbol: n.symbol,
      micCode: n.exchange.mic,
      figiComposite: n.figiComposite,
      figiShareClass: rng.chance(0.2) ? '' : n.figiShareClass,
      vendorxExchCode: n.exchange.vendorxCode,
    });
  });
}
