// @defer and @stream (graphql/yoga.ts): an operation answered in parts keeps the rules of one answered
// at once. Its first part is sent before the rest is resolved, so what bounds an execution must
// bound the parts that follow it too: the cost it holds in the budget of work in flight
// (graphql/guard.ts) is released when its last part is sent, not when its first is, and its parts
// race the request's deadline, past which the answer ends with the request's TIMEOUT error.
import type { ExecutionResult, GraphQLError } from 'graphql';
import { handleStreamOrSingleExecutionResult, isAsyncIterable, type Plugin } from 'graphql-yoga';
import { AppError, toGraphQLError } from '../errors.js';
import type { Deadline } from '../runtime/deadline.js';

/** The parts after the first, as graphql-yoga's executor yields them (incremental delivery, 2022 format). */
export interface Part {
  data?: ExecutionResult['data'];
  errors?: readonly GraphQLError[];
  extensions?: ExecutionResult['extensions'];
  incremental?: readonly unknown[];
  hasNext?: boolean;
}

/**
 * The parts of `parts`, each raced against `deadline`; `done` runs once however the answer ends
 * (its last part, the client gone, TIMEOUT, a throw); `first` rewrites the first part (its cost).
 * Past the deadline the executor's iterator is returned (its pending work dropped) and the answer
 * ends with a part holding the TIMEOUT error and `hasNext: false`.
 */
export function boundedParts(
  parts: AsyncIterable<Part>,
  deadline: Deadline,
  done: () => void,
  first: (part: Part) => Part = (p) => p,
): AsyncIterableIterator<Part> {
  const it = parts[Symbol.asyncIterator]();
  let released = false;
  let ended = false;
  let count = 0;
  const release = () => {
    if (!released) {
      released = true;
      done();
    }
  };
  const finish = (): IteratorResult<Part> => {
    ended = true;
    release();
    return { done: true, value: undefined };
  };
  const bounded: AsyncIterableIterator<Part> = {
    async next(): Promise<IteratorResult<Part>> {
      if (ended) return finish();
      let step: IteratorResult<Part>;
      try {
        step = await deadline.race(it.next(), 'answer');
      } catch (e) {
        if (!(e instanceof AppError) || e.code !== 'TIMEOUT') {
          finish();
          throw e;
        }
        void it.return?.().catch(() => {});
        ended = true;
        release();
        const last: Part = { hasNext: false, errors: [toGraphQLError(e, { http: true })] };
        return { done: false, value: last };
      }
      if (step.done) return finish();
      if (step.value.hasNext === false) {
        ended = true;
        release();
      }
      return { done: false, value: count++ === 0 ? first(step.value) : step.value };
    },
    async return() {
      await it.return?.().catch(() => {});
      return finish();
    },
    async throw(e: unknown) {
      await it.return?.().catch(() => {});
      finish();
      throw e;
    },
    [Symbol.asyncIterator]() {
      return bounded;
    },
  };
  return bounded;
}

/**
 * Errors inside the later parts (`incremental[].errors`) masked and coded as a whole answer's are
 * (graphql/errors.ts maskError): graphql-yoga masks the top-level `errors` of each part only, so a
 * deferred field refused for its tier would reach the client without its code.
 */
export function useIncrementalErrors(mask: (error: unknown, message: string) => Error): Plugin {
  const masked = (errors: readonly GraphQLError[]) => errors.map((e) => mask(e, 'Unexpected error.') as GraphQLError);
  return {
    onExecute: () => ({
      onExecuteDone: (payload) =>
        handleStreamOrSingleExecutionResult(payload, ({ result, setResult }) => {
          const parts = (result as Part).incremental as { errors?: readonly GraphQLError[] }[] | undefined;
          if (!parts?.some((p) => p.errors?.length)) return;
          setResult({
            ...result,
            incremental: parts.map((p) => (p.errors?.length ? { ...p, errors: masked(p.errors) } : p)),
          } as typeof result);
        }),
    }),
  };
}

/** Sets `value` at `path` of `data`. */
function put(data: Record<string | number, unknown>, path: readonly (string | number)[], value: unknown): void {
  let at = data as Record<string | number, unknown>;
  for (const k of path.slice(0, -1)) at = at[k] as Record<string | number, unknown>;
  at[path.at(-1)!] = value;
}

interface Increment {
  path: readonly (string | number)[];
  data?: Record<string, unknown>;
  items?: readonly unknown[];
  errors?: readonly GraphQLError[];
}

/**
 * The parts of an answer put together into one, as a client's merge would: each deferred
 * fragment's data at its path, each streamed item at its index, every error kept. Raced against
 * `deadline` as boundedParts does (a TIMEOUT part's error ends it).
 */
export async function wholeAnswer(parts: AsyncIterable<Part>, deadline: Deadline): Promise<ExecutionResult> {
  let whole: ExecutionResult | undefined;
  const errors: GraphQLError[] = [];
  for await (const part of boundedParts(parts, deadline, () => {})) {
    errors.push(...(part.errors ?? []));
    if (!whole) {
      whole = { data: structuredClone(part.data) ?? null, ...(part.extensions ? { extensions: part.extensions } : {}) };
      continue;
    }
    for (const inc of (part.incremental ?? []) as Increment[]) {
      errors.push(...(inc.errors ?? []));
      if (!whole.data) continue;
      const data = whole.data as Record<string, unknown>;
      if (inc.items) {
        const at = inc.path.at(-1) as number;
        inc.items.forEach((item, i) => put(data, [...inc.path.slice(0, -1), at + i], item));
      } else if (inc.data) {
        let at = data as Record<string | number, unknown>;
        for (const k of inc.path) at = at[k] as Record<string | number, unknown>;
        if (at) Object.assign(at, inc.data);
      }
    }
  }
  return { ...(whole ?? { data: null }), ...(errors.length ? { errors } : {}) };
}

/** Whether an Accept header asks for an answer in parts by name (multipart/mixed or text/event-stream). */
const TAKES_PARTS = /multipart\/mixed|text\/event-stream/i;

/**
 * A client that does not name multipart/mixed or text/event-stream in its Accept (a JSON client,
 * `*​/*`, none) gets an operation with @defer or @stream answered whole, as one JSON answer (a server
 * may answer so), not graphql-yoga's bare 406. Registered before the guard, so the cost held while
 * it runs is released when the whole answer is made.
 */
export function useWholeAnswerForJson(): Plugin {
  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      const ctx = args.contextValue as unknown as { request: Request; deadline: Deadline };
      if (TAKES_PARTS.test(ctx.request.headers.get('accept') ?? '')) return;
      setExecuteFn(async (execArgs) => {
        const result = await executeFn(execArgs);
        return isAsyncIterable(result) ? wholeAnswer(result as AsyncIterable<Part>, ctx.deadline) : result;
      });
    },
  };
}
