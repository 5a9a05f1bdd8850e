// The JSON a client sends around a document (variables, extensions) is walked by code that
// recurses (graphql-js coercion, JSON.stringify): its nesting is bounded before anything else sees
// it, and what this gateway walks itself it walks without recursion.
import type { Plugin } from 'graphql-yoga';
import { MAX_JSON_DEPTH, nestedDeeperThan } from '../domain/json-depth.js';
import { AppError } from '../errors.js';
import { requestError } from './errors.js';

/** Deepest nesting of arrays and objects in `variables` or `extensions`, the outer object counted. */
export const MAX_INPUT_DEPTH = MAX_JSON_DEPTH;

/** The error for the first of `variables` and `extensions` that nests too deep, if one does. */
export function inputDepthError(params: { variables?: unknown; extensions?: unknown }): AppError | undefined {
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

/** Refuses (400) variables or extensions nested too deep, before any other plugin reads them; first in the list. */
export function useInputDepthLimit(): Plugin {
  return {
    onParams({ params }) {
      const e = inputDepthError(params);
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
