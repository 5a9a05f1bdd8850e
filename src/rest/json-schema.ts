// JSON Schema (2020-12, as OpenAPI 3.1 uses) builders for the REST response documents.
export type JsonSchema = Record<string, unknown>;

export const str = (description?: string): JsonSchema => ({ type: 'string', ...(description ? { description } : {}) });
export const num = (description?: string): JsonSchema => ({ type: 'number', ...(description ? { description } : {}) });
export const int = (description?: string): JsonSchema => ({ type: 'integer', ...(description ? { description } : {}) });
export const bool = (description?: string): JsonSchema => ({
  type: 'boolean',
  ...(description ? { description } : {}),
});
export const arr = (items: JsonSchema, description?: string): JsonSchema => ({
  type: 'array',
  items,
  ...(description ? { description } : {}),
});
export const nullable = (schema: JsonSchema): JsonSchema => ({ anyOf: [schema, { type: 'null' }] });
export const timestamp = (description = 'ISO 8601 UTC timestamp.'): JsonSchema => ({
  type: 'string',
  format: 'date-time',
  description,
});
export const date = (description = 'A date yyyy-mm-dd.'): JsonSchema => ({
  type: 'string',
  format: 'date',
  description,
});

/**
 * An object with exactly these keys: `required` lists the always-present ones (by default all);
 * no other key may appear, so a test validating a response catches a stray or misspelled key.
 */
export function object(
  properties: Record<string, JsonSchema>,
  required: readonly string[] = Object.keys(properties),
  description?: string,
): JsonSchema {
  return {
    type: 'object',
    properties,
    required: [...required],
    additionalProperties: false,
    ...(description ? { description } : {}),
  };
}

/** The error body every route answers with (docs/rest.md#error-bodies-and-status-codes). */
export const ERROR_BODY = object({
  status: { const: 'ERROR' },
  code: str(
    'The error code: BAD_REQUEST, UNAUTHENTICATED, FORBIDDEN, NOT_FOUND, PAYLOAD_TOO_LARGE, UNSUPPORTED_MEDIA_TYPE, RATE_LIMITED, SERVICE_UNAVAILABLE.',
  ),
  message: str('What was wrong, naming the parameter and the value.'),
  request_id: str('Also sent as the X-Request-Id header.'),
});
