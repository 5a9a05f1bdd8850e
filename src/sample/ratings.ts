/** Analyst rating actions and price targets by the invented brokerages (src/sample/people.ts). */
import type { Prisma } from '../../generated/prisma/client.js';
import { money } from './amounts.js';
import type { Company, CompanyIds } from './catalog.js';
import { FIRMS, person } from './people.js';
import { rngFor } from './random.js';
import { ANCHOR_MS, DAY_MS } from './time.js';

/** The one brokerage of FIRMS that quotes its price targets in Canadian dollars. */
const CAD_FIRM = 'Maple Ridge Securities';
const USD_PER_CAD = 0.72;

const BULLISH = ['Strong Buy', 'Buy', 'Overweight', 'Outperform'];
const NEUTRAL = ['Neutral', 'Hold', 'Equal-Weight', 'Market Perform'];
const BEARISH = ['Underweight', 'Underperform', 'Sell'];

export function buildRatings(
  seed: number,
  companies: Company[],
  ids: Map<number, CompanyIds>,
): Prisma.RatingCreateManyInput[] {
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
      const action = rng.pick([
        'Upgrades',
        'Downgrades',
        'Maintains',
        'Maintains',
        'Initiates Coverage On',
        'Reiterates',
        'Raises Price Target',
        'Lowers Price Target',
      ] as const);
      const rating =
        action === 'Upgrades'
          ? rng.pick(BULLISH)
          : action === 'Downgrades'
            ? rng.pick([...NEUTRAL, ...BEARISH])
            : rng.pick([...BULLISH, ...BULLISH, ...NEUTRAL, ...BEARISH]);
      const targetUsd =
        c.price *
        (BULLISH.includes(rating)
          ? rng.range(1.05, 1.45)
          : BEARISH.includes(rating)
            ? rng.range(0.6, 0.95)
            : rng.range(0.9, 1.15));
      const priceTarget = firm === CAD_FIRM ? `C$${money(targetUsd / USD_PER_CAD)}` : `$${money(targetUsd)}`;
      const isRating = action !== 'Raises Price Target' && action !== 'Lowers Price Target';
      const analyst = person(rng);
      const verb = {
        Upgrades: 'upgrades',
        Downgrades: 'downgrades',
        Maintains: 'maintains',
        'Initiates Coverage On': 'initiates coverage on',
        Reiterates: 'reiterates',
        'Raises Price Target': 'raises the price target on',
        'Lowers Price Target': 'lowers the price target on',
      }[action];
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
