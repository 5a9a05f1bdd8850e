// Every REST-compatibility route, in one list for the app's router and the OpenAPI document.
import { balanceSheetRoutes } from './balance-sheet.js';
import { callSummaryRoutes } from './call-summary.js';
import { fundamentalRoutes } from './fundamental.js';
import { logoRoutes } from './logo.js';
import { newsRoutes } from './news.js';
import { ocrRoutes } from './ocr.js';
import { pressReleaseRoutes } from './press-release.js';
import { quoteRoutes } from './quote.js';
import { ratingRoutes } from './rating.js';
import type { Route } from './route.js';
import { securitySearchRoutes } from './security-search.js';
import { sessionRoutes } from './session.js';
import { tradeRoutes } from './trade.js';

export const routes: readonly Route[] = [
  ...sessionRoutes,
  ...logoRoutes,
  ...balanceSheetRoutes,
  ...fundamentalRoutes,
  ...securitySearchRoutes,
  ...pressReleaseRoutes,
  ...ratingRoutes,
  ...callSummaryRoutes,
  ...newsRoutes,
  ...tradeRoutes,
  ...quoteRoutes,
  ...ocrRoutes,
];
