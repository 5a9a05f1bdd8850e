import type { Route } from './route.js';

// filled in by the call-summary REST module
export const callSummaryRoutes: Route[] = [];
