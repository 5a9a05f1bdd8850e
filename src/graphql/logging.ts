import { inspect } from 'node:util';
import { getOperationAST, GraphQLError, type ExecutionResult } from 'graphql';
import type { Plugin, YogaLogger } from 'graphql-yoga';
import type { Context } from '../context.js';
import { isDatabaseUnavailable } from '../db/unavailable.js';
import { AppError } from '../errors.js';
import type { Logger } from '../observability/log.js';
import type { RequestLog } from '../observability/request-log.js';

function codesOf(result: unknown): string[] {
  const results = Array.isArray(result) ? result : [result];
  return results.flatMap((r) =>
    ((r as ExecutionResult | undefined)?.errors ?? []).map((e) =>
      String(e.extensions?.code ?? 'INTERNAL_SERVER_ERROR'),
    ),
  );
}

/** Tells the request log the operation name and error codes of GraphQL requests; Yoga runs it with the others. */
export function useRequestLog(log: RequestLog): Plugin<Record<string, unknown>, { ctx?: Context }> {
  return {
    onParams({ params, context }) {
      if (params.operationName) log.operation(context.ctx, params.operationName.slice(0, 100));
    },
    onExecute({ args }) {
      const ctx = args.contextValue.ctx as Context | undefined;
      const req = log.has(ctx) ? ctx : (args.contextValue as unknown as Context);
      log.operation(req, getOperationAST(args.document, args.operationName)?.name?.value ?? 'anonymous');
    },
    onResultProcess({ result, serverContext }) {
      if (!(Symbol.asyncIterator in Object(result))) log.codes(serverContext.ctx, codesOf(result));
    },
  };
}

function isClientError(e: unknown): boolean {
  const original = e instanceof GraphQLError ? e.originalError : e;
  return original instanceof AppError && original.status < 500;
}

/**
 * Yoga's own messages as JSON lines. Yoga logs every error it masks or recodes, including coded
 * AppErrors (a client's mistake, already in the request line): those go to debug, and an
 * unreachable database (a 503, also in the request line) to warn.
 */
export function yogaLogger(logger: Logger): YogaLogger {
  const child = logger.child({ component: 'graphql' });
  const write =
    (level: 'debug' | 'info' | 'warn' | 'error') =>
    (...args: unknown[]) => {
      const err = args.find((a): a is Error => a instanceof Error);
      const msg = args
        .filter((a) => a !== err)
        .map((a) => (typeof a === 'string' ? a : inspect(a, { depth: 2, breakLength: Infinity })))
        .join(' ');
      if (err && level === 'error' && isClientError(err)) return child.debug({ err }, msg || err.message);
      if (err && level === 'error' && isDatabaseUnavailable(err)) return child.warn({ err }, msg || err.message);
      if (err) child[level]({ err }, msg || err.message);
      else child[level](msg);
    };
  return { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };
}
