import type { Route } from './route.js';

// filled in by the security REST module
export const securityRoutes: Route[] = [];
