// Every REST-compatibility route, in one list for the app's router and the OpenAPI document: the
// session's, then each resource's in the order of its manifests (resources/index.ts).
import { RESOURCES, type ResourceNoun } from '../resources/index.js';
import { balanceSheetRoutes } from './balance-sheet.js';
import { callSummaryRoutes } from './call-summary.js';
import { exchangeRoutes } from './exchange.js';
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

/**
 * Each resource's routes, by its noun: a record rather than a list, so a resource whose manifest
 * has no routes here does not compile. The order is the manifests', not this record's.
 */
const RESOURCE_ROUTES: Readonly<Record<ResourceNoun, readonly Route[]>> = {
  security: securitySearchRoutes,
  logo: logoRoutes,
  'balance-sheet': balanceSheetRoutes,
  fundamental: fundamentalRoutes,
  'press-release': pressReleaseRoutes,
  rating: ratingRoutes,
  'call-summary': callSummaryRoutes,
  news: newsRoutes,
  exchange: exchangeRoutes,
  trade: tradeRoutes,
  quote: quoteRoutes,
  ocr: ocrRoutes,
};

export const routes: readonly Route[] = [...sessionRoutes, ...RESOURCES.flatMap((r) => RESOURCE_ROUTES[r.noun])];
