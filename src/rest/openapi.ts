import { ERROR_BODY, type JsonSchema } from './json-schema.js';
import type { ParamSpec, ParamSpecs } from './params.js';
import type { Route } from './route.js';

/**
 * The OpenAPI 3.1 document of the REST-compatibility routes, built from the routes themselves: the
 * parameters are the definitions the handlers validate with, the responses the schemas the tests
 * validate every answer against.
 */
function paramSchema(spec: ParamSpec): JsonSchema {
  const s: JsonSchema = { type: spec.type };
  if ('default' in spec && spec.default !== undefined) s.default = spec.default;
  if (spec.type === 'integer') {
    if (spec.minimum !== undefined) s.minimum = spec.minimum;
    if (spec.maximum !== undefined) s.maximum = spec.maximum;
  }
  if (spec.type === 'string') {
    if (spec.enum) s.enum = [...spec.enum];
    if (spec.pattern) s.pattern = spec.pattern.source;
    if (spec.maxLength !== undefined) s.maxLength = spec.maxLength;
    // the canonical form; other forms are read too (the description says which: rest/params.ts)
    if (spec.format === 'date') s.format = 'date';
  }
  return s;
}

/** An enum's values and a boolean are read in any case (rest/params.ts): the document shows them as answers spell them. */
function describe(spec: ParamSpec): string {
  return (spec.type === 'string' && spec.enum) || spec.type === 'boolean'
    ? `${spec.description} Read in any case.`
    : spec.description;
}

function parameters(specs: ParamSpecs | undefined, where: 'query' | 'path') {
  return Object.entries(specs ?? {}).flatMap(([name, spec]) => {
    const schema = paramSchema(spec);
    const own = {
      name,
      in: where,
      required: where === 'path' || spec.required === true,
      description: describe(spec),
      schema,
    };
    const aliases = (spec.aliases ?? []).map((alias) => ({
      name: alias,
      in: where,
      required: false,
      description: `Alias of ${name} (give one of them).`,
      schema,
    }));
    return [own, ...aliases];
  });
}

/** Every answer of a route may carry it (docs/rest.md#what-the-routes-accept). */
const IGNORED_PARAMETERS_HEADER = {
  'X-Ignored-Parameters': {
    description:
      'The query parameters of the request that this route does not take (or that a cursor made redundant) and set aside unused: each percent-encoded, separated by ", ", at most 20 (then "+N" more), each cut to 40 characters. Absent when none.',
    schema: { type: 'string' },
  },
};

const ERRORS: Record<string, string> = {
  '400':
    "A parameter or the body is invalid, or the request's Host header or target is malformed; the message names it and the value received.",
  '401': 'No credentials, or credentials that are not valid.',
  '403':
    "The caller's tier does not include this resource; or the request is authenticated by cookie and comes from a page of another site (CSRF protection).",
  '404': 'Unknown path, or an unknown symbol where the path names one.',
  '429': 'Rate limited; see Retry-After.',
  '503':
    'The database is unavailable (down, gone, or without its tables: DATABASE_UNAVAILABLE), the instance is out of room for the work (SERVICE_UNAVAILABLE), or the request ran out of its time (TIMEOUT, REQUEST_TIMEOUT_MS from its arrival); always with Retry-After.',
};

const BODY_ERRORS: Record<string, string> = {
  '408':
    'The body arrived slower than the minimum pace (by default 32 KiB per second after its first 10 s): BODY_TOO_SLOW, and the connection is closed.',
  '413': 'The body is over its size limit.',
  '415': 'The body is not application/json.',
};

export function openApiDocument(routes: readonly Route[], version: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const p = route.path.replace(/:([a-z_]+)/g, '{$1}');
    const responses: Record<string, unknown> = {
      '200': {
        description: 'OK',
        headers: IGNORED_PARAMETERS_HEADER,
        content: { 'application/json': { schema: route.doc.response } },
      },
    };
    const errors = { ...ERRORS, ...(route.doc.body ? BODY_ERRORS : {}), ...route.doc.errors };
    for (const [code, description] of Object.entries(errors).sort(([a], [b]) => a.localeCompare(b))) {
      if (route.access === 'public' && (code === '401' || code === '403') && !route.doc.errors?.[code]) continue;
      const schema = route.doc.badRequestBody
        ? code === '400'
          ? route.doc.badRequestBody
          : // the handler's own 503 (the database, the search engine's capacity) has the route's body, the server's the usual one
            code === '503'
            ? { anyOf: [{ $ref: '#/components/schemas/Error' }, route.doc.badRequestBody] }
            : { $ref: '#/components/schemas/Error' }
        : { $ref: '#/components/schemas/Error' };
      responses[code] = { description, content: { 'application/json': { schema } } };
    }
    (paths[p] ??= {})[route.method.toLowerCase()] = {
      summary: route.doc.summary,
      ...(route.doc.description ? { description: route.doc.description } : {}),
      parameters: [...parameters(route.doc.path, 'path'), ...parameters(route.doc.query, 'query')],
      ...(route.doc.body
        ? { requestBody: { required: true, content: { 'application/json': { schema: route.doc.body } } } }
        : {}),
      responses,
      security:
        route.access === 'public'
          ? []
          : [{ apikeyQuery: [] }, { apiKeyQuery: [] }, { apikeyHeader: [] }, { bearer: [] }, { cookie: [] }],
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Market data gateway: REST compatibility',
      version,
      description:
        'The legacy REST paths of the financial data service, answered by the GraphQL gateway. GraphQL: /graphql.',
    },
    paths,
    components: {
      schemas: { Error: ERROR_BODY },
      securitySchemes: {
        apikeyQuery: { type: 'apiKey', in: 'query', name: 'apikey' },
        apiKeyQuery: {
          type: 'apiKey',
          in: 'query',
          name: 'apiKey',
          description:
            'The same key in the spelling Massive (Polygon) clients send; given with apikey, both must agree.',
        },
        apikeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'An access token (a JWT), or an API key: a value without a dot is looked up as an API key.',
        },
        cookie: { type: 'apiKey', in: 'cookie', name: 'DT_AUTH_TOKEN' },
      },
    },
  };
}
