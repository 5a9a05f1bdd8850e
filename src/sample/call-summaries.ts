/** Earnings-call summaries for each covered company's latest four quarters, from its simulated financials. */
import type { Prisma } from '../../generated/prisma/client.js';
import { billions, round } from './amounts.js';
import type { Company, CompanyIds } from './catalog.js';
import type { Financials } from './financials.js';
import { FIRMS, executives, person } from './people.js';
import { rngFor } from './random.js';
import { DAY_MS } from './time.js';

export function buildCallSummaries(
  seed: number,
  companies: Company[],
  financials: Financials,
  ids: Map<number, CompanyIds>,
): Prisma.CallSummaryCreateManyInput[] {
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
      const sentiment = round(
        Math.max(-1, Math.min(1, growth * 4 + (epsValue > 0 ? 0.2 : -0.2) + rng.range(-0.15, 0.15))),
        3,
      );
      const period = `Q${q.period.quarter} FY${q.period.year}`;
      const analysts = rng
        .sample(FIRMS, rng.int(2, 3))
        .map((organization) => ({ name: person(rng), role: 'Analyst', organization }));
      const nextRevenue = revenue * (1 + rng.range(-0.02, 0.06));
      rows.push({
        id,
        symbol: c.symbol,
        companyName: c.name,
        callDate: new Date(at),
        fiscalYear: q.period.year,
        fiscalPeriod: `Q${q.period.quarter}`,
        title: `${c.name} (${c.symbol}) ${period} Earnings Call`,
        summary:
          `${c.name} reported ${period} revenue of ${billions(revenue)}, ${growth >= 0 ? 'up' : 'down'} ${Math.abs(growth * 100).toFixed(1)}% year over year, ` +
          `with diluted EPS of $${epsValue.toFixed(2)} and a gross margin of ${(grossMargin * 100).toFixed(1)}%. ` +
          `Management discussed ${rng.sample(c.industry.topics, 2).join(' and ')}.`,
        keyPoints: [
          `Revenue ${billions(revenue)} (${growth >= 0 ? '+' : ''}${(growth * 100).toFixed(1)}% YoY)`,
          `Diluted EPS $${epsValue.toFixed(2)}`,
          `Gross margin ${(grossMargin * 100).toFixed(1)}%`,
          ...rng.sample(c.industry.topics, rng.int(1, 2)).map((topic) => `Update on ${topic}`),
        ],
        ...(rng.chance(0.7)
          ? {
              guidance: `Management expects next-quarter revenue between ${billions(nextRevenue * 0.98)} and ${billions(nextRevenue * 1.02)}.`,
            }
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
