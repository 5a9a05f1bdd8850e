// The security master: what every other resource names by symbol, so it is imported first.
// Its REST route is the search (rest/security.ts), which returns the legacy security document.
import { defineResource } from './manifest.js';

export const security = defineResource({
  singular: 'security',
  plural: 'securities',
  access: [{ tier: 'free', listed: 1, words: 'security master' }],
  cacheable: [
    'SecurityClassification',
    'SecurityIdentifiers',
    'SecurityFinancials',
    'ExchangeInfo',
    'CompanyInfo',
    'Address',
    'TickerMeta',
  ],
  textKinds: { 'Security.isinHistory': 'json' },
  tables: [{ model: 'Security', sample: 'securities' }],
  sync: { pages: 'search', path: '/search/api/v1/securities', size: 250 },
});
