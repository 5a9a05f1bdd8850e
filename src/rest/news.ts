import type { Route } from './route.js';

// filled in by the news REST module
export const newsRoutes: Route[] = [];
