import type { Route } from './route.js';

// filled in by the press-release REST module
export const pressReleaseRoutes: Route[] = [];
