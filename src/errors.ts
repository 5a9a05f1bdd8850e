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
  PAYLOAD_TOO_LARGE: { status: 413, graphql: 'PAYLOAD_TOO_LARGE' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, graphql: 'UNSUPPORTED_MEDIA_TYPE' },
  RATE_LIMITED: { status: 429, graphql: 'RATE_LIMITED' },
  INTERNAL: { status: 500, graphql: 'INTERNAL_SERVER_ERROR' },
  SERVICE_UNAVAILABLE: { status: 503, graphql: 'SERVICE_UNAVAILABLE' },
} as const satisfies Record<string, { status: number; graphql: string }>;

export type ErrorCode = keyof typeof ERRORS;

export class AppError extends Error {
  override name = 'AppError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  get status(): number {
    return ERRORS[this.code].status;
  }

  toGraphQL(): GraphQLError {
    return new GraphQLError(this.message, { extensions: { code: ERRORS[this.code].graphql } });
  }
}

/** The REST error body of decisions.md, with the request id. */
export function errorBody(err: AppError, requestId: string): Record<string, unknown> {
  return { status: 'ERROR', code: err.code, message: err.message, request_id: requestId };
}
