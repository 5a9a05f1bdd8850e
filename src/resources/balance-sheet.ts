// Balance sheets: one filer's statement of a period, with the tickers it covers.
import { defineResource } from './manifest.js';

export const balanceSheet = defineResource({
  singular: 'balance sheet',
  plural: 'balance sheets',
  access: [{ tier: 'free', listed: 3 }],
  parents: ['security'],
  cacheable: [],
  listKinds: { 'BalanceSheet.symbols': 'shareClasses' },
  tables: [
    { model: 'BalanceSheet', sample: 'balanceSheets' },
    { model: 'BalanceSheetSymbol', sample: 'balanceSheetSymbols' },
  ],
  sync: {
    pages: 'cursor',
    path: '/stocks/v1/fundamentals/balance-sheet',
    query: { limit: 1000, sort: 'period_end.asc' },
  },
});
