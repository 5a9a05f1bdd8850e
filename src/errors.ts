import { GraphQLError } from 'graphql';

/**
 * The one table of error codes. Each code has its HTTP status (REST, and the GraphQL-over-HTTP
 * response where the whole request fails) and the `extensions.code` GraphQL clients see, which
 * follows the names Apollo Client and urql users know (BAD_USER_INPUT, UNAUTHENTICATED ...).
 */
export const ERRORS = {
  BAD_REQUEST: { status: 400, graphql: 'BAD_USER_INPUT' },
  UNAUTHENTICATED: { status: 401, graphql: 'UNAUTHENTICATED' },
  FORBIDDEN: { status: 403, graphql: 'FORBIDDEN' },
  NOT_FOUND: { status: 404, graphql: 'NOT_FOUND' },
  // a REST path served with other methods: the Allow header lists them (rest/router.ts)
  METHOD_NOT_ALLOWED: { status: 405, graphql: 'METHOD_NOT_ALLOWED' },
  PAYLOAD_TOO_LARGE: { status: 413, graphql: 'PAYLOAD_TOO_LARGE' },
  // a body (or WebSocket message) arriving slower than BODY_MIN_BYTES_PER_SECOND after BODY_GRACE_MS
  // (http/pace.ts): it held its connection and its bytes, so the connection is closed after the answer
  BODY_TOO_SLOW: { status: 408, graphql: 'BODY_TOO_SLOW' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, graphql: 'UNSUPPORTED_MEDIA_TYPE' },
  RATE_LIMITED: { status: 429, graphql: 'RATE_LIMITED' },
  // a user holds WS_SOCKETS_PER_CALLER WebSocket connections already, or an address as many not yet authenticated
  TOO_MANY_CONNECTIONS: { status: 429, graphql: 'TOO_MANY_CONNECTIONS' },
  // a user holds API_KEYS_PER_USER active keys already: revoking one makes room
  API_KEY_LIMIT_REACHED: { status: 409, graphql: 'API_KEY_LIMIT_REACHED' },
  INTERNAL: { status: 500, graphql: 'INTERNAL_SERVER_ERROR' },
  // the client closed the connection before the answer (nginx's 499): nobody reads it, and it is
  // no fault of the server's (a 500 at error level would page someone for a closed browser tab)
  CLIENT_CLOSED_REQUEST: { status: 499, graphql: 'CLIENT_CLOSED_REQUEST' },
  SERVICE_UNAVAILABLE: { status: 503, graphql: 'SERVICE_UNAVAILABLE' },
  // the database cannot be used (down, restarting, out of connections, locked past its timeout, refusing
  // us, dropped, without its tables until db/readiness.ts migrates it): retry later
  DATABASE_UNAVAILABLE: { status: 503, graphql: 'DATABASE_UNAVAILABLE' },
  // the request ran out of REQUEST_TIMEOUT_MS (runtime/deadline.ts): its statements were cancelled;
  // 503, as it says nothing of the request's validity, with Retry-After
  TIMEOUT: { status: 503, graphql: 'TIMEOUT' },
  // start-up only, never a request's: the PostgreSQL database DATABASE_URL names does not exist
  // and was not created (db/pg-create.ts); the message names the createdb command to run
  DATABASE_MISSING: { status: 503, graphql: 'DATABASE_MISSING' },
  // GraphQL only: a document refused before it runs (graphql/guard.ts)
  QUERY_TOO_DEEP: { status: 400, graphql: 'QUERY_TOO_DEEP' },
  TOO_MANY_ALIASES: { status: 400, graphql: 'TOO_MANY_ALIASES' },
  QUERY_TOO_COMPLEX: { status: 400, graphql: 'QUERY_TOO_COMPLEX' },
  TOO_MANY_TOKENS: { status: 400, graphql: 'TOO_MANY_TOKENS' },
  TOO_MANY_DIRECTIVES: { status: 400, graphql: 'TOO_MANY_DIRECTIVES' },
  INTROSPECTION_DISABLED: { status: 400, graphql: 'INTROSPECTION_DISABLED' },
  // GraphQL only: persisted documents (graphql/persisted.ts). NOT_FOUND is a step of Apollo's APQ
  // protocol, not a failure: 200, as Apollo Server answers it (the client then sends the text).
  PERSISTED_QUERY_NOT_FOUND: { status: 200, graphql: 'PERSISTED_QUERY_NOT_FOUND' },
  PERSISTED_QUERY_HASH_MISMATCH: { status: 400, graphql: 'PERSISTED_QUERY_HASH_MISMATCH' },
  PERSISTED_QUERY_NOT_ALLOWED: { status: 400, graphql: 'PERSISTED_QUERY_NOT_ALLOWED' },
  // APQ without a credential: Apollo's link then stops using APQ and sends the query itself
  PERSISTED_QUERY_NOT_SUPPORTED: { status: 400, graphql: 'PERSISTED_QUERY_NOT_SUPPORTED' },
  // GraphQL only: live subscriptions (graphql/live.ts). A user holds its SUBSCRIPTIONS_PER_CALLER
  // already (429); this instance serves its SUBSCRIPTIONS_PER_INSTANCE (503: another may have room)
  TOO_MANY_SUBSCRIPTIONS: { status: 429, graphql: 'TOO_MANY_SUBSCRIPTIONS' },
  SUBSCRIPTIONS_FULL: { status: 503, graphql: 'SUBSCRIPTIONS_FULL' },
  // a subscriber left more than SUBSCRIPTION_BUFFER_BYTES unread: only ever the last event of a
  // stream whose 200 is sent, so its status is never seen
  SLOW_CONSUMER: { status: 429, graphql: 'SLOW_CONSUMER' },
  // a subscription resumed (`after`, `since`) from before the oldest live event the database keeps,
  // or too far behind (REPLAY_MAX_ROWS): extensions.oldestPosition names the oldest kept
  REPLAY_TOO_OLD: { status: 410, graphql: 'REPLAY_TOO_OLD' },
} as const satisfies Record<string, { status: number; graphql: string }>;

export type ErrorCode = keyof typeof ERRORS;

export class AppError extends Error {
  override name = 'AppError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
    /** What a client reads besides the code (GraphQL `extensions`): a position to resume from. */
    readonly extensions: Record<string, string> = {},
  ) {
    super(message);
  }

  get status(): number {
    return ERRORS[this.code].status;
  }
}

/** A path served with other methods than the request's: 405, Allow listing the ones it takes (REST, probes, /graphql). */
export function methodNotAllowed(method: string, path: string, allow: readonly string[]): AppError {
  return new AppError('METHOD_NOT_ALLOWED', `${method} is not served at ${path}; it takes ${allow.join(', ')}`, {
    allow: allow.join(', '),
  });
}

/**
 * The one conversion of an AppError into a GraphQL error: its message, and its code's
 * `extensions.code` from the table above, at the document's `nodes` or the result's `path` if given.
 *
 * With `http`, also its status and headers as `extensions.http`, which Yoga answers an HTTP request
 * with and leaves out of the body (graphql/ws.ts and graphql/live.ts drop it from WebSocket and SSE
 * messages). Set it only for an error that decides the HTTP status: one that refuses the whole
 * request before execution (graphql/errors.ts requestError, auth/stale-cookie.ts), or one that asks
 * the client to come back later (Retry-After, graphql/errors.ts maskError). A field's other errors
 * leave the answer 200 with the data of the fields that succeeded, as GraphQL clients expect.
 * `spec: false`: the status is this table's, even for clients that accept only application/json.
 */
export function toGraphQLError(
  error: AppError,
  at: { nodes?: GraphQLError['nodes']; path?: GraphQLError['path']; http?: boolean } = {},
): GraphQLError {
  const headers = Object.keys(error.headers).length ? { headers: error.headers } : {};
  return new GraphQLError(error.message, {
    ...(at.nodes ? { nodes: at.nodes } : {}),
    ...(at.path ? { path: at.path } : {}),
    extensions: {
      code: ERRORS[error.code].graphql,
      ...error.extensions,
      ...(at.http ? { http: { status: error.status, spec: false, ...headers } } : {}),
    },
  });
}

/** Seconds a client is asked to wait (Retry-After) when the database is unavailable. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

export function databaseUnavailable(): AppError {
  return new AppError(
    'DATABASE_UNAVAILABLE',
    `the database is unavailable; retry in ${DATABASE_RETRY_AFTER_SECONDS} s`,
    { 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS) },
  );
}

/** The REST error body (docs/rest.md#error-bodies-and-status-codes), with the request id. */
export function errorBody(err: AppError, requestId: string): Record<string, unknown> {
  return { status: 'ERROR', code: err.code, message: err.message, request_id: requestId };
}
