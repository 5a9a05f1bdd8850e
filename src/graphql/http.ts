// GraphQL over HTTP at /graphql: the caller is identified and the body bounded before Yoga sees
// the request, then Yoga answers (JSON, or an SSE stream for a subscription).
import type { GraphQLConfig } from '../config.js';
import type { Context } from '../context.js';
import { knownError } from '../db/unavailable.js';
import { type AppError, toGraphQLError } from '../errors.js';
import { excuseStaleCookie } from '../auth/stale-cookie.js';
import { checkNotCrossSite } from '../auth/csrf.js';
import { readBody, type BodyReading } from '../http/body.js';
import { graphqlBodyLimit } from './guard.js';
import type { GraphQLServer } from './yoga.js';

export interface GraphQLOverHttpDeps {
  yoga: GraphQLServer;
  /** How Yoga answers: `yoga.fetch` by default; http/direct.ts's requests go `withoutAdapter(yoga)` (graphql/yoga.ts). */
  answer?: (request: Request, serverContext: { ctx: Context }) => Promise<Response>;
  config: Readonly<Pick<GraphQLConfig, 'maxBodyBytes'>>;
  /** Authenticates the request and counts it against its rate limit (app.ts); throws the coded error. */
  identify(ctx: Context, url: URL): Promise<void>;
  /** The bodies in flight (BODY_BYTES_IN_FLIGHT) and the slowest pace a body may arrive at. */
  bodies: BodyReading;
  /** Records a request refused before Yoga saw it (observability/request-log.ts). */
  failed(ctx: Context, thrown: unknown, answered: AppError): void;
}

/** A refusal before Yoga: the body GraphQL clients read errors from, with the status REST answers. */
function refusal(error: AppError): Response {
  const headers = new Headers(error.headers);
  headers.set('content-type', 'application/json; charset=utf-8');
  return new Response(JSON.stringify({ errors: [toGraphQLError(error)] }), { status: error.status, headers });
}

export function graphqlOverHttp({
  yoga,
  answer = async (request, serverContext) => yoga.fetch(request, serverContext),
  config,
  identify,
  bodies,
  failed,
}: GraphQLOverHttpDeps) {
  return async function graphql(ctx: Context, url: URL): Promise<Response> {
    let request: Request;
    let releaseBody: (() => void) | undefined;
    try {
      try {
        await identify(ctx, url);
      } catch (e) {
        // an access cookie gone stale must not lock its holder out of login, refresh and logout
        if (!excuseStaleCookie(ctx.request, url, e)) throw e;
      }
      if (ctx.caller?.via === 'cookie') checkNotCrossSite(ctx.request);
      // the body only now, charged to this caller: its own limit, and its address's part without a credential
      ({ request, release: releaseBody } = await readBody(ctx.request, bodies, {
        limit: graphqlBodyLimit(config, ctx.caller),
        anonymous: ctx.caller ? undefined : ctx.ip,
        deadline: ctx.deadline,
        RequestClass: yoga.fetchAPI.Request,
      }));
    } catch (thrown) {
      const e = knownError(thrown, () => ctx.deadline.timedOut('sql'));
      releaseBody?.();
      if (!e) throw thrown;
      failed(ctx, thrown, e);
      return refusal(e);
    }
    let response: Response;
    try {
      response = await answer(request, { ctx });
    } finally {
      releaseBody?.();
    }
    for (const [name, value] of ctx.responseHeaders) response.headers.append(name, value);
    // a subscription over SSE: proxies (nginx) would hold its events back in their buffers
    if (response.headers.get('content-type')?.startsWith('text/event-stream'))
      response.headers.set('x-accel-buffering', 'no');
    return response;
  };
}
