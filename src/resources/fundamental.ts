// Fundamentals: one record per company and period, served whole (enhanced, pro) or in part (lite, free).
import { defineResource } from './manifest.js';

export const fundamental = defineResource({
  singular: 'fundamental',
  plural: 'fundamentals',
  access: [
    { tier: 'free', listed: 2, words: 'lite fundamentals' },
    {
      name: 'enhancedFundamentals',
      tier: 'pro',
      listed: 6,
      words: 'enhanced fundamentals',
      types: ['EnhancedFundamental'],
    },
  ],
  parents: ['security'],
  cacheable: [
    'FundamentalBalanceSheet',
    'FundamentalCashFlow',
    'FundamentalIncomeStatement',
    'DerivedMetrics',
    'WorkingCapitalDays',
    'RiskFactors',
    'MostNegativeRisk',
    'Mdna',
    'LitigationMentions',
  ],
  listKinds: {
    'LitigationMentions.recentHeadings': 'children',
    'Mdna.keyTopics': 'children',
    'RiskFactors.topThemes': 'children',
  },
  tables: [
    { model: 'Fundamental', sample: 'fundamentals' },
    { model: 'FundamentalMetrics', sample: 'fundamentalMetrics' },
  ],
  sync: { pages: 'numbered', path: '/delivery/api/v1/fundamentals/enhanced', perSymbol: true },
});
