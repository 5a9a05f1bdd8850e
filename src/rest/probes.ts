// The health probes, the metrics and the OpenAPI document (app.ts serves them before any route):
// GET or HEAD, no credentials, no rate limit.
import { NOT_READY, type DatabaseReadiness } from '../db/readiness.js';
import { databaseUnavailable } from '../errors.js';
import { json } from './route.js';

export type Handler = (request: Request) => Promise<Response> | Response;

/** The health probes, the metrics and the OpenAPI document: GET or HEAD, no credentials, no rate limit. */
export function probes({
  readiness,
  draining,
  metrics,
  openApi,
}: {
  readiness: DatabaseReadiness;
  draining: () => boolean;
  metrics: Handler;
  openApi: unknown;
}): ReadonlyMap<string, Handler> {
  return new Map<string, Handler>([
    ['/healthz', () => json({ status: 'ok' })],
    [
      '/readyz',
      async () => {
        if (draining())
          return json({ status: 'draining', message: 'shutting down: finishing the requests in flight' }, 503);
        const database = await readiness.current();
        if (database.ready) return json({ status: 'ready' });
        const { headers } = databaseUnavailable();
        return json(
          { status: 'unavailable', reason: database.reason, message: NOT_READY[database.reason] },
          503,
          headers,
        );
      },
    ],
    ['/metrics', metrics],
    ['/openapi.json', () => json(openApi)],
  ]);
}
