import { GraphQLError, Kind, visit, type ASTNode, type DocumentNode } from 'graphql';
import { maskError as yogaMaskError, type Plugin } from 'graphql-yoga';
import { knownError } from '../db/unavailable.js';
import { timeoutError } from '../runtime/deadline.js';
import { AppError, toGraphQLError, type ErrorCode } from '../errors.js';

/**
 * Internal errors are masked ("Unexpected error."); an AppError thrown by a resolver or service is
 * a client's mistake or a known state and goes out with its message and coded extensions.
 */
export function maskError(error: unknown, message: string, isDev?: boolean): Error {
  const thrown = error instanceof GraphQLError ? error.originalError : error;
  // a database that cannot be reached is a state to retry, not a bug: 503 DATABASE_UNAVAILABLE; a
  // statement cancelled at its statement_timeout ran out of the request's time (a request's reads
  // say TIMEOUT themselves: db/client.ts)
  const original = knownError(thrown, () => timeoutError('sql')) ?? thrown;
  const gql = error instanceof GraphQLError ? error : undefined;
  const at = { ...(gql?.nodes ? { nodes: gql.nodes } : {}), ...(gql?.path ? { path: gql.path } : {}) };
  // an error that asks the client to come back later (rate limited, database unreachable, OCR or
  // the instance busy) answers with its status and Retry-After, as REST does
  if (original instanceof AppError) return toGraphQLError(original, { ...at, http: 'retry-after' in original.headers });
  // Relay global ids that do not decode are the client's mistake, not ours
  if (gql && !gql.extensions?.code && /^Invalid global ID/.test(gql.message))
    return toGraphQLError(new AppError('BAD_REQUEST', gql.message), at);
  return yogaMaskError(error, message, isDev);
}

const requestErrors = new WeakSet<GraphQLError>();

/**
 * A GraphQL error that refuses a whole request before execution (a guard limit, a persisted
 * document refused), with the HTTP status of its code. Register useRequestErrorStatus with it.
 */
export function requestError(
  code: ErrorCode,
  message: string,
  nodes?: GraphQLError['nodes'],
  headers?: Record<string, string>,
): GraphQLError {
  const error = toGraphQLError(new AppError(code, message, headers), { ...(nodes ? { nodes } : {}), http: true });
  requestErrors.add(error);
  return error;
}

/**
 * Keeps the status of requestError's errors. Yoga marks an error from parsing (the token limit)
 * as one the GraphQL-over-HTTP spec answers with 200 to application/json clients, over our
 * `spec: false`; the errors table says 400.
 */
export function useRequestErrorStatus(): Plugin {
  return {
    onExecutionResult({ result }) {
      if (!result || !('errors' in result) || !result.errors) return;
      for (const error of result.errors) {
        const http = (error as GraphQLError).extensions?.http as { spec?: boolean } | undefined;
        if (http && requestErrors.has(error as GraphQLError)) http.spec = false;
      }
    },
  };
}

/** The argument whose value contains the AST node at `offset`, if any. */
function argumentAt(document: DocumentNode, offset: number): string | undefined {
  let found: string | undefined;
  visit(document, {
    Argument(node) {
      if (node.value.loc && node.value.loc.start <= offset && offset < node.value.loc.end) found = node.name.value;
    },
  });
  return found;
}

/** Whether any string or key in `value` holds U+0000; without recursion, so no nesting overflows the stack. */
function hasNul(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return true;
    } else if (v !== null && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (k.includes('\u0000')) return true;
        stack.push(x);
      }
    }
  }
  return false;
}

/** The first string literal holding U+0000 (no text column can store it; PostgreSQL refuses it). */
const nulTexts = new WeakMap<DocumentNode, { argument: string; node: ASTNode } | null>();

/** Per document: Yoga's parse cache hands the same DocumentNode to every request sending the same text. */
function nulText(document: DocumentNode): { argument: string; node: ASTNode } | undefined {
  let cached = nulTexts.get(document);
  if (cached === undefined) nulTexts.set(document, (cached = findNulText(document) ?? null));
  return cached ?? undefined;
}

function findNulText(document: DocumentNode): { argument: string; node: ASTNode } | undefined {
  let found: { argument: string; node: ASTNode } | undefined;
  visit(document, {
    StringValue(node) {
      if (!found && node.value.includes('\u0000'))
        found = { argument: node.loc ? (argumentAt(document, node.loc.start) ?? 'value') : 'value', node };
    },
  });
  return found;
}

/** Validation errors reported at a literal value are errors in an argument's value. */
const VALUE_KINDS = new Set<string>([
  Kind.INT,
  Kind.FLOAT,
  Kind.STRING,
  Kind.BOOLEAN,
  Kind.NULL,
  Kind.ENUM,
  Kind.LIST,
  Kind.OBJECT,
  Kind.OBJECT_FIELD,
]);

/**
 * Gives pre-execution errors the codes Apollo Client and urql users expect: a malformed argument
 * value (an invalid date, an unknown enum value) is BAD_USER_INPUT and its message names the
 * argument; other validation errors are GRAPHQL_VALIDATION_FAILED; bad variables BAD_USER_INPUT.
 */
export function useInputErrorCodes(): Plugin {
  return {
    onValidate({ params }) {
      return ({ result, setResult }) => {
        if (result.length === 0) {
          const where = nulText(params.documentAST);
          if (where)
            setResult([
              toGraphQLError(
                new AppError(
                  'BAD_REQUEST',
                  `argument "${where.argument}": text may not contain NUL characters (U+0000)`,
                ),
                { nodes: [where.node] },
              ),
            ]);
          return;
        }
        setResult(
          result.map((e) => {
            if (e.extensions?.code) return e; // already coded: a guard rule's, or this hook's own on a cached result
            const node = e.nodes?.[0] as ASTNode | undefined;
            const isInput = node !== undefined && VALUE_KINDS.has(node.kind);
            const arg = isInput && node?.loc ? argumentAt(params.documentAST, node.loc.start) : undefined;
            return new GraphQLError(arg ? `argument "${arg}": ${e.message}` : e.message, {
              ...(e.nodes ? { nodes: e.nodes } : {}),
              extensions: { ...e.extensions, code: isInput ? 'BAD_USER_INPUT' : 'GRAPHQL_VALIDATION_FAILED' },
            });
          }),
        );
      };
    },
    onExecute({ args, setResultAndStopExecution }) {
      if (hasNul(args.variableValues)) {
        setResultAndStopExecution({
          errors: [
            toGraphQLError(new AppError('BAD_REQUEST', 'variables: text may not contain NUL characters (U+0000)')),
          ],
        });
      }
      return {
        onExecuteDone({ result, setResult }) {
          // variable coercion fails before any resolver runs: the result has errors and no data
          if (!('errors' in result) || !result.errors || 'data' in result) return;
          setResult(codedInputErrors(result));
        },
      };
    },
    onSubscribe() {
      return {
        onSubscribeResult({ result, setResult }) {
          // the same for subscriptions; an operation the schema cannot run is also the client's mistake
          if (Symbol.asyncIterator in result || !result.errors || 'data' in result) return;
          setResult(codedInputErrors(result));
        },
      };
    },
  };
}

/** Errors of the request itself get BAD_USER_INPUT; a field's (it has a path: an auth scope, a subscription's source) is left to maskError. */
function codedInputErrors<R extends { errors?: readonly GraphQLError[] }>(result: R): R {
  return {
    ...result,
    errors: result.errors?.map((e) =>
      e.extensions?.code || e.path
        ? e
        : new GraphQLError(e.message, {
            ...(e.nodes ? { nodes: e.nodes } : {}),
            extensions: { ...e.extensions, code: 'BAD_USER_INPUT' },
          }),
    ),
  };
}
