// Tier descriptions are read from the entitlements table (the schema's Tier enum prints them), so a
// resource moved to another tier is described right without a second edit.
import { describe, expect, it } from 'vitest';
import { ENTITLEMENTS, RESOURCES, TIERS, tierSummary } from '../../src/domain/entitlements.js';

describe('tierSummary', () => {
  it('says what each tier adds to the one below it', () => {
    expect(tierSummary('free')).toBe(
      'Logos, security master, lite fundamentals, balance sheets, ratings, curated news, exchanges, condition codes, ticker types, the market calendar, splits, dividends, ticker changes, daily bars and technical indicators.',
    );
    expect(tierSummary('pro')).toBe(
      'Free, plus enhanced fundamentals, press releases, call summaries, trades, quotes, intraday bars and snapshots.',
    );
    expect(tierSummary('enterprise')).toBe('Pro, plus OCR.');
  });

  it('names every resource once, at the lowest tier that has it, and each tier includes the one below', () => {
    for (const [i, tier] of TIERS.entries()) {
      if (i > 0)
        for (const r of ENTITLEMENTS[TIERS[i - 1]!]) expect(ENTITLEMENTS[tier].has(r), `${tier} has ${r}`).toBe(true);
    }
    const said = TIERS.map(tierSummary).join(' ');
    for (const r of RESOURCES) expect(ENTITLEMENTS.enterprise.has(r), r).toBe(true);
    expect(said.match(/OCR/g)).toHaveLength(1);
  });
});
