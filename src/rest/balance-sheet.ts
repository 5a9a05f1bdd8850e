import type { Route } from './route.js';

// filled in by the balance-sheet REST module
export const balanceSheetRoutes: Route[] = [];
