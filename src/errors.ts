import { GraphQLError } from 'graphql';

/**
 * The one table of error codes: each maps to a GraphQL `extensions.code` (the same string) and an
 * HTTP status for REST.
 */
export const ERROR_STATUS = {
  BAD_REQUEST: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  SERVICE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

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
    return ERROR_STATUS[this.code];
  }

  toGraphQL(): GraphQLError {
    return new GraphQLError(this.message, { extensions: { code: this.code, http: { status: this.status } } });
  }
}

/** The REST error body of decisions.md, with the request id. */
export function errorBody(err: AppError, requestId: string): Record<string, unknown> {
  return { status: 'ERROR', code: err.code, message: err.message, request_id: requestId };
}
