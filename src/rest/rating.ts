import type { Route } from './route.js';

// filled in by the rating REST module
export const ratingRoutes: Route[] = [];
