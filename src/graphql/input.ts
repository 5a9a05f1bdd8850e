// What a client sends around a document (operationName, variables, extensions) is checked before
// any plugin reads it: each parameter of its type, and JSON nested no deeper than MAX_INPUT_DEPTH,
// since code that recurses (graphql-js coercion, JSON.stringify) walks it. What this gateway walks
// itself it walks without recursion.
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { MAX_JSON_DEPTH, nestedDeeperThan } from '../domain/json-depth.js';
import { AppError } from '../errors.js';
import { requestError } from './errors.js';

/** Deepest nesting of arrays and objects in `variables` or `extensions`, the outer object counted. */
export const MAX_INPUT_DEPTH = MAX_JSON_DEPTH;

/** A value received, in a message: a scalar as JSON (cut at 40 characters), a container by its kind. */
function received(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  const json = JSON.stringify(value) ?? String(value);
  return json.length > 40 ? `${json.slice(0, 40)}…` : json;
}

/**
 * The first rule of GraphQL over HTTP that a request's parameters break, if one is: `query` and
 * `operationName` are strings, `variables` and `extensions` objects (each may be absent or null),
 * and neither of these nests deeper than MAX_INPUT_DEPTH. HTTP (useRequestParams) and WebSocket
 * (graphql/ws.ts) apply the same.
 */
export function paramsError(params: {
  query?: unknown;
  operationName?: unknown;
  variables?: unknown;
  extensions?: unknown;
}): AppError | undefined {
  for (const part of ['query', 'operationName'] as const) {
    const value = params[part];
    if (value != null && typeof value !== 'string')
      return new AppError('BAD_REQUEST', `${part} must be a string; got ${received(value)}`);
  }
  for (const part of ['variables', 'extensions'] as const) {
    const value = params[part];
    if (value != null && (typeof value !== 'object' || Array.isArray(value)))
      return new AppError('BAD_REQUEST', `${part} must be an object of names and values; got ${received(value)}`);
  }
  for (const part of ['variables', 'extensions'] as const) {
    if (nestedDeeperThan(params[part], MAX_INPUT_DEPTH)) {
      return new AppError(
        'BAD_REQUEST',
        `${part}: arrays and objects nest more than ${MAX_INPUT_DEPTH} levels deep; no input of this schema needs more`,
      );
    }
  }
  return undefined;
}

/**
 * A request parser's failure, coded and in one line. JSON that does not parse (a GET's or a form's
 * `variables` or `extensions`: a bare SyntaxError, an INTERNAL error otherwise; a JSON body: Yoga's
 * refusal, which carries the parser's message, quoting the body, as an extension) becomes
 * BAD_REQUEST naming what is not JSON; the parser's words never reach the client.
 */
function parseFailure(error: unknown, url: URL): unknown {
  if (error instanceof SyntaxError) {
    const part = (['variables', 'extensions'] as const).find((name) => {
      const text = url.searchParams.get(name);
      if (!text) return false;
      try {
        JSON.parse(text);
        return false;
      } catch {
        return true;
      }
    });
    return requestError('BAD_REQUEST', `the ${part ?? 'variables or extensions'} parameter is not valid JSON`);
  }
  if (error instanceof GraphQLError && error.extensions.originalError !== undefined)
    // the words REST answers an unparsable body with (http/body.ts)
    return requestError('BAD_REQUEST', 'the body is not valid JSON');
  return error;
}

/**
 * Refuses (400) a request whose parameters break paramsError's rules, before any other plugin reads
 * them (first in the list: Yoga's own check of their types runs after every plugin's onParams, and
 * checks no operationName); and codes the request parsers' failures (parseFailure).
 */
export function useRequestParams(): Plugin {
  return {
    onRequestParse({ requestParser, setRequestParser, url }) {
      if (!requestParser) return;
      setRequestParser((request) => {
        try {
          const parsed = requestParser(request);
          // a promise, or the fake one of @whatwg-node/promise-helpers, which has `then` alone
          if (typeof (parsed as Partial<PromiseLike<unknown>>).then !== 'function') return parsed;
          return (parsed as Extract<typeof parsed, Promise<unknown>>).then(undefined, (e: unknown) => {
            throw parseFailure(e, url);
          });
        } catch (e) {
          throw parseFailure(e, url);
        }
      });
    },
    onParams({ params }) {
      const e = paramsError(params);
      if (e) throw requestError(e.code, e.message);
    },
  };
}

/** Marks the text between values on the stack of stableJson. */
class Text {
  constructor(readonly text: string) {}
}

/**
 * JSON-like text of client data (variables) that tells different values apart, for cache keys:
 * like JSON.stringify for JSON values, but built without recursion, so no nesting overflows the
 * stack. Other values are written so as not to collide (a bigint as `12n`, undefined as `undefined`).
 */
export function stableJson(value: unknown): string {
  const out: string[] = [];
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (v instanceof Text) out.push(v.text);
    else if (typeof v === 'bigint') out.push(`${v}n`);
    else if (v === undefined) out.push('undefined');
    else if (v === null || typeof v !== 'object' || v instanceof Date) out.push(JSON.stringify(v) ?? 'undefined');
    else if (Array.isArray(v)) {
      out.push('[');
      stack.push(new Text(']'));
      for (let i = v.length - 1; i >= 0; i--) {
        stack.push(v[i]);
        if (i > 0) stack.push(new Text(','));
      }
    } else {
      out.push('{');
      stack.push(new Text('}'));
      const entries = Object.entries(v);
      for (let i = entries.length - 1; i >= 0; i--) {
        stack.push(entries[i]![1], new Text(`${i > 0 ? ',' : ''}${JSON.stringify(entries[i]![0])}:`));
      }
    }
  }
  return out.join('');
}
