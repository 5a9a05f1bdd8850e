import type { Route } from './route.js';

// filled in by the fundamental REST module
export const fundamentalRoutes: Route[] = [];
