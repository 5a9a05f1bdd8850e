import { getOperationAST, Kind, type DocumentNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { AppError, toGraphQLError } from '../errors.js';
import { presentedCredential } from './caller.js';

/**
 * An access cookie that fails (expired, or signed with a secret since replaced) is HttpOnly: the
 * browser cannot drop it, and it must not lock its holder out of the mutations that replace or
 * clear it. Such a request goes on without a caller; any operation other than those mutations
 * then fails as a whole with the cookie's error, exactly as before.
 */
const staleCookies = new WeakMap<Request, AppError>();
const SESSION_FIELDS = new Set(['login', 'refreshSession', 'logout', '__typename']);

/**
 * Whether `error`, thrown while authenticating a GraphQL request, is that of a stale access
 * cookie: then it is kept for useStaleCookieCheck and the request goes on without a caller.
 */
export function excuseStaleCookie(request: Request, url: URL, error: unknown): boolean {
  if (
    !(error instanceof AppError && error.code === 'UNAUTHENTICATED' && presentedCredential(request, url) === 'cookie')
  )
    return false;
  staleCookies.set(request, error);
  return true;
}

function onlySessionMutations(document: DocumentNode, operationName: string | null | undefined): boolean {
  const op = getOperationAST(document, operationName);
  return (
    op?.operation === 'mutation' &&
    op.selectionSet.selections.every((s) => s.kind === Kind.FIELD && SESSION_FIELDS.has(s.name.value))
  );
}

/** Fails an operation of a request whose cookie was excused, unless it only logs in, refreshes or logs out. */
export function useStaleCookieCheck(): Plugin<{ request: Request }> {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const error = staleCookies.get(args.contextValue.request);
      if (!error || onlySessionMutations(args.document, args.operationName)) return;
      setResultAndStopExecution({ errors: [toGraphQLError(error, { http: true })] });
    },
  };
}
