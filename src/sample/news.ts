/** Curated news items, each linking to the press releases, ratings and calls its company had before it. */
import type { Prisma } from '../../generated/prisma/client.js';
import { round } from './amounts.js';
import type { Company, CompanyIds } from './catalog.js';
import { rngFor, uuidV4 } from './random.js';
import type { SampleSecurity } from './securities.js';
import { ANCHOR_MS, DAY_MS } from './time.js';

const CATALYSTS = ['Earnings', 'Analyst Rating', 'Press Release', 'Sector Momentum', 'Guidance', 'Unusual Volume'];

export function buildNews(
  seed: number,
  companies: Company[],
  securities: SampleSecurity[],
  ids: Map<number, CompanyIds>,
) {
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
        rng
          .sample(
            list.filter((x) => x.at <= at),
            rng.int(0, max),
          )
          .map((x) => x.id)
          .sort((a, b) => a - b);
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
        newsItemId: id,
        position: 0,
        figi: c.figi,
        name: c.name,
        mic: c.exchange.mic,
        exchcode: c.exchange.exchCode,
        ticker: c.symbol,
        compositefigi: c.figiComposite,
        securitytype: 'Common Stock',
        marketsector: 'Equity',
        shareclassfigi: c.figiShareClass,
      });
    }
  }
  return { items, rows };
}
