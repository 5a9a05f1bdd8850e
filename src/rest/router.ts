// The REST-compatibility router: finds the route of a path, checks who may call it, and runs it.
import { releaseHeld, type Context } from '../context.js';
import { checkAuthenticated, checkEntitled } from '../domain/entitlements.js';
import { AppError, methodNotAllowed } from '../errors.js';
import { checkJsonType, readBody, type BodyReading } from '../http/body.js';
import { splitQuery } from './params.js';
import { matchPath, type Route } from './route.js';

export interface RestRouterDeps {
  routes: readonly Route[];
  /** Authenticates the request and counts it against its rate limit (app.ts); throws the coded error. */
  identify(ctx: Context, url: URL): Promise<void>;
  /** Counts a request without a caller against its client address's budget (ctx.pacing); throws RATE_LIMITED past it. */
  anonymous(ctx: Context): Promise<void>;
  /** The bodies in flight (BODY_BYTES_IN_FLIGHT) and the slowest pace a body may arrive at. */
  bodies: BodyReading;
  /** Names the route of the request for the request log and metrics (observability/request-log.ts). */
  matched(ctx: Context, template: string): void;
}

/** The methods the routes of a path take, as an Allow header lists them (GET brings HEAD). */
export function allowedMethods(routes: readonly Route[], pathname: string): string[] {
  const methods = new Set(routes.filter((r) => matchPath(r.path, pathname)).map((r) => r.method as string));
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort();
}

/**
 * The query the route reads: the names its definitions lack are set aside, told to the context
 * (X-Ignored-Parameters, the request's log line) and never reach the handler.
 */
function routeQuery(ctx: Context, route: Route, url: URL): URL {
  const { query, ignored } = splitQuery(route.doc.query, url.searchParams);
  if (ignored.length === 0) return url;
  ctx.ignoredParameters.push(...ignored);
  const known = new URL(url);
  known.search = query.toString();
  return known;
}

/**
 * The handler of every path but /graphql and the probes. A public route counts against the client
 * address; any other authenticates and checks the caller's entitlement before its handler runs.
 * A path no route serves is a 404, one served with other methods a 405 with Allow, both counted
 * against the address too (a scanner's 404s count).
 */
export function restRouter({ routes, identify, anonymous, bodies, matched }: RestRouterDeps) {
  for (const route of routes) {
    if (route.doc.body && !route.maxBodyBytes)
      throw new Error(
        `${route.method} ${route.path} documents a body but no maxBodyBytes: nothing would read it within bounds`,
      );
  }
  return async function rest(ctx: Context, url: URL): Promise<Response> {
    for (const route of routes) {
      if (route.method !== ctx.request.method && !(route.method === 'GET' && ctx.request.method === 'HEAD')) continue;
      const params = matchPath(route.path, url.pathname);
      if (!params) continue;
      matched(ctx, route.path);
      if (route.access === 'public') await anonymous(ctx);
      else {
        await identify(ctx, url);
        if (route.access === 'authenticated') checkAuthenticated(ctx.caller);
        else checkEntitled(ctx.caller, route.access);
      }
      const query = routeQuery(ctx, route, url);
      try {
        if (route.maxBodyBytes) {
          // JSON, as its OpenAPI requestBody says; read once the caller is known and entitled, a
          // public route's caller being its address
          checkJsonType(ctx.request);
          const read = await readBody(ctx.request, bodies, {
            limit: route.maxBodyBytes,
            anonymous: ctx.caller ? undefined : ctx.ip,
            deadline: ctx.deadline,
          });
          ctx.request = read.request;
          if (read.release) ctx.work.held.push(read.release);
        }
        const response = await route.handle(ctx, query, params);
        for (const [name, value] of ctx.responseHeaders) response.headers.append(name, value);
        return response;
      } finally {
        releaseHeld(ctx);
      }
    }
    await anonymous(ctx);
    const allow = allowedMethods(routes, url.pathname);
    if (allow.length) throw methodNotAllowed(ctx.request.method, url.pathname, allow);
    throw new AppError('NOT_FOUND', `no such path: ${ctx.request.method} ${url.pathname}`);
  };
}
