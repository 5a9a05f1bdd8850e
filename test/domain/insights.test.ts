// Text-derived insights on small known passages (src/domain/insights.ts): how items are found
// in plain text, the tone score with its negation rule, and the three objects of the legacy record.
import { describe, expect, it } from 'vitest';
import {
  itemsOf,
  latestDate,
  litigationInsight,
  mdnaInsight,
  riskFactorsInsight,
  tokenize,
  toneOf,
} from '../../src/domain/insights.js';

const tone = (text: string) => toneOf(tokenize(text));

// A 10-K Item 1A in miniature: a caption, two headed risk factors, an introduction to skip.
const RISKS = `Item 1A. Risk Factors

You should carefully consider the risks described below, together with all of the other information in this report, before deciding to invest in our common stock. Any of them could affect our business.

Risks Related to Our Business

We depend on a limited number of suppliers for critical components.

Some components are available only from single suppliers. A shortage or delay could harm our results and damage our relationships with customers. Our competitors may obtain better terms than we do.

Our indebtedness could limit our operating flexibility.

We have $2.1 billion of debt under our credit facility, whose covenants restrict us. A downgrade could increase our interest rate and make financing difficult. We cannot assure you that we will refinance it on favorable terms.
`;

describe('tone', () => {
  it('is (P − N) / (P + N): +1 all positive, −1 all negative, 0 with no sentiment words', () => {
    expect(tone('Results were strong and profitable.')).toBe(1);
    expect(tone('We recorded losses and an impairment.')).toBe(-1);
    expect(tone('The company has offices in three states.')).toBe(0);
    expect(tone('Strong demand was offset by weakness and losses.')).toBe(-0.333); // 1 positive, 2 negative
  });

  it('matches inflections of list words, not words that merely contain them', () => {
    expect(tone('Margins weakened; sales declined.')).toBe(-1); // weaken, decline
    expect(tone('Operations improved and strengthened.')).toBe(1); // improve, strengthen
    expect(tone('The glossary and the boston office.')).toBe(0); // no "loss", no "lost"
  });

  it('turns a positive word negative when no, not, never, cannot ... stands in the three words before it', () => {
    expect(tone('This was not a good year.')).toBe(-1);
    expect(tone('We cannot assure favorable terms.')).toBe(-1);
    // four words away is no longer negated
    expect(tone('No one expected such a strong year.')).toBe(1);
    // negation does not touch negative words
    expect(tone('There was no loss.')).toBe(-1);
  });

  it('leaves out words that are neutral in financial text (risk, liability, tax, cost)', () => {
    expect(tone('Tax liability and cost risk.')).toBe(0);
  });
});

describe('items in plain text', () => {
  it('finds headed items, skipping the introduction and captions', () => {
    const items = itemsOf(RISKS);
    expect(items.map((i) => i.heading)).toEqual([
      'We depend on a limited number of suppliers for critical components.',
      'Our indebtedness could limit our operating flexibility.',
    ]);
    expect(items[1]!.text).toContain('favorable terms');
    expect(items[0]!.text).not.toContain('Risks Related');
  });

  it('takes bullets as items headed by their first sentence', () => {
    const text =
      'Key risks include:\n\n• Competition could reduce our share. It is intense.\n\n- Our suppliers may fail to deliver.\n\n2. Cyber attacks could disrupt us.';
    expect(itemsOf(text).map((i) => i.heading)).toEqual([
      'Competition could reduce our share.',
      'Our suppliers may fail to deliver.',
      'Cyber attacks could disrupt us.',
    ]);
  });

  it('with fewer than two headings or bullets takes each paragraph but a title (one per line when no line is blank)', () => {
    const text =
      'Item 3. Legal Proceedings\nDemand may fall. It has before.\nA stray short line.\nPrices may rise. Costs too.';
    expect(itemsOf(text)).toEqual([
      { heading: 'Demand may fall.', text: 'Demand may fall. It has before.' },
      { heading: 'A stray short line.', text: 'A stray short line.' },
      { heading: 'Prices may rise.', text: 'Prices may rise. Costs too.' },
    ]);
    expect(itemsOf('   \n\n  ')).toEqual([]);
  });
});

describe('risk_factors', () => {
  it('counts items, scores each, and names the most negative and the top themes', () => {
    expect(riskFactorsInsight(RISKS)).toEqual({
      count: 2,
      // each theme is in one item: list order (competition, supply chain, interest rates, indebtedness, capital markets access)
      topThemes: ['competition', 'supply chain', 'interest rates', 'indebtedness'],
      // item 1: critical, shortage, delay, harm, damage vs better = −4/6; item 2: downgrade, difficult vs
      // favorable = −1/3 ("cannot" is nine words before "favorable": too far to negate it)
      averageSentimentScore: -0.5,
      mostNegativeRisk: {
        heading: 'We depend on a limited number of suppliers for critical components.',
        sentiment: -0.667,
      },
    });
  });

  it('ranks themes by the number of items mentioning them', () => {
    const text =
      '• Competitors may cut prices.\n\n• New competition and regulation.\n\n• Regulatory changes and competitive pressure.\n\n• A cyber attack.';
    expect(riskFactorsInsight(text).topThemes).toEqual(['competition', 'regulation', 'cybersecurity']);
  });

  it('a section without items has count 0 and no average or most negative risk', () => {
    expect(riskFactorsInsight('')).toEqual({
      count: 0,
      topThemes: [],
      averageSentimentScore: null,
      mostNegativeRisk: null,
    });
  });
});

describe('mdna', () => {
  const MDNA =
    'Revenue increased 12% compared to the prior year, driven by strong demand. Gross margin improved to 41%. We expect revenue growth to continue next year, and we will invest in research and development. Our outlook remains favorable.';

  it('counts forward-looking terms, compares forward to historical sentences, scores tone and names topics', () => {
    expect(mdnaInsight(MDNA)).toEqual({
      forwardLookingTermCount: 4, // expect, next year, will, outlook
      forwardToHistoricalRatio: 1, // 2 forward sentences, 2 historical ones
      toneScore: 1, // strong, improved, favorable
      keyTopics: ['revenue growth', 'margins', 'operating expenses', 'outlook'], // revenue ×2, then one mention each in list order
    });
  });

  it('has no ratio without historical sentences; markers match exactly ("willing" is not "will")', () => {
    expect(mdnaInsight('We will grow. We plan to expand.')).toMatchObject({
      forwardLookingTermCount: 2,
      forwardToHistoricalRatio: null,
    });
    expect(mdnaInsight('Management is willing to wait. Sales were flat.')).toMatchObject({
      forwardLookingTermCount: 0,
      forwardToHistoricalRatio: 0,
    });
  });
});

describe('litigation_mentions', () => {
  const LEGAL = [
    'Item 3. Legal Proceedings',
    'Wage claims settled. On June 3, 2023, we reached a settlement of wage-and-hour claims.',
    'Patent infringement suit. In March 2024, a competitor filed a complaint in the U.S. District Court alleging patent infringement.',
    'Environmental permits. We renewed our permits in 2025.',
    'We are not a party to any other material litigation.',
    'Securities class action. A class action filed in 2022 was dismissed.',
    'Distributor dispute. In 2024-01-15 an arbitration panel ruled for us.',
  ].join('\n\n');

  it('counts matters with a litigious word, lists the latest first', () => {
    expect(litigationInsight(LEGAL)).toEqual({
      // the title, the permits paragraph (no litigious word) and the denial are not mentions
      count: 4,
      recentHeadings: ['Patent infringement suit.', 'Distributor dispute.', 'Wage claims settled.'],
    });
  });

  it('reads dates as yyyy-mm-dd, "Month d, yyyy", "Month yyyy" or a year', () => {
    expect(latestDate('On June 3, 2023 and in 2021')).toBe(20230603);
    expect(latestDate('March 2024')).toBe(20240300);
    expect(latestDate('2024-01-15')).toBe(20240115);
    expect(latestDate('Sept. 9, 2019')).toBe(20190909);
    expect(latestDate('no date, $2,010 million')).toBe(0);
  });

  it('is zero for a section that only denies litigation', () => {
    expect(litigationInsight('We are not currently a party to any material legal proceedings.')).toEqual({
      count: 0,
      recentHeadings: [],
    });
  });
});
