import type { Route } from './route.js';

// filled in by the logo REST module
export const logoRoutes: Route[] = [];
