// How the page talks to the gateway: queries as JSON POSTs to /graphql, trades over graphql-ws on
// the same path, each with the API key of the key field, or with none so the login cookie counts
// (docs/frontend.md#credentials). Partial data is kept: a field the tier may not read answers
// null with a FORBIDDEN error at its path, and the panel of that path shows itself locked.
import { type Client, createClient } from 'graphql-ws/client';

export interface GraphQLError {
  message: string;
  path?: (string | number)[];
  extensions?: { code?: string };
}

export interface Result<T> {
  data: T | null;
  errors: GraphQLError[];
}

const KEY_STORAGE = 'mdg.apiKey';
export const DEMO_KEY = 'demo-pro';

/** The stored key; the demo key the first time; '' (the login cookie) once the field was emptied. */
export function storedKey(): string {
  return localStorage.getItem(KEY_STORAGE) ?? DEMO_KEY;
}

export function storeKey(key: string): void {
  localStorage.setItem(KEY_STORAGE, key);
}

/** One query, answered as data and errors; a refused request (401, 429, 400) as one error with its code. */
export async function query<T>(
  document: string,
  variables: Record<string, unknown>,
  key: string,
  signal?: AbortSignal,
): Promise<Result<T>> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (key) headers['x-api-key'] = key;
  const response = await fetch('/graphql', {
    method: 'POST',
    headers,
    body: JSON.stringify({ query: document, variables }),
    signal: signal ?? null,
  });
  const body = (await response.json().catch(() => ({}))) as {
    data?: T | null;
    errors?: GraphQLError[];
    error?: { code?: string; message?: string };
  };
  const errors = body.errors ?? [];
  // a REST-shaped refusal (rate limit, body too large) names its code in `error`
  if (!body.data && !errors.length)
    errors.push({
      message: body.error?.message ?? `the gateway answered HTTP ${response.status}`,
      extensions: { code: body.error?.code ?? `HTTP_${response.status}` },
    });
  return { data: body.data ?? null, errors };
}

/** The error at `path` (or below it), if the answer has one: what a panel shows instead of its data. */
export function errorAt(errors: GraphQLError[], ...path: string[]): GraphQLError | undefined {
  return errors.find((e) => !e.path || path.every((p, i) => e.path![i] === p));
}

export const isForbidden = (e: GraphQLError | undefined) => e?.extensions?.code === 'FORBIDDEN';

let socket: { key: string; client: Client; open: boolean } | undefined;

const RETRY_ATTEMPTS = 30;
const RETRY_MAX_MS = 5_000;
/** graphql-ws's backoff (2^n s plus 0.3 to 3 s of jitter) held to RETRY_MAX_MS: a restored server is found soon. */
const retryDelayMs = (retries: number) => Math.min(1000 * 2 ** retries, RETRY_MAX_MS) + 300 + Math.random() * 2_700;

/** The page's one WebSocket, opened on first use and again when the key changes. */
function socketFor(key: string): NonNullable<typeof socket> {
  if (socket?.key === key) return socket;
  void socket?.client.dispose();
  const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`;
  const client = createClient({
    url,
    connectionParams: key ? { apiKey: key } : {},
    lazy: true,
    // a server restarting or a network dropping for a minute or two: each subscription resumes after
    retryAttempts: RETRY_ATTEMPTS,
    retryWait: (retries) => new Promise((resolve) => setTimeout(resolve, retryDelayMs(retries))),
    // a refused connection reaches graphql-ws as the browser's error Event, not a close event: retry
    // it too (its default retries close events alone, and a server down would end every subscription)
    shouldRetry: () => true,
  });
  const opened = { key, client, open: false };
  client.on('connected', () => (opened.open = true));
  client.on('closed', () => (opened.open = false));
  socket = opened;
  return opened;
}

export interface SubscriptionHandlers<T> {
  data(data: T): void;
  /** The error that ended it (FORBIDDEN for a tier without it, UNAUTHENTICATED for a revoked key). */
  error(e: GraphQLError): void;
  /** The socket is open and its credentials accepted: events from here on reach `data`. */
  connected?(): void;
  /** The socket closed; graphql-ws opens it again and the subscription resumes (`positionOf`). */
  disconnected?(): void;
  /**
   * The stream position of an event (its `position`): given, a reconnect subscribes again with
   * `after` the last one handled, and an event at or before it is dropped, so each arrives once
   * (docs/graphql.md#resuming-a-subscription).
   */
  positionOf?(data: T): string | null | undefined;
}

/** Each event of `document` until the returned function is called. */
export function subscribe<T>(
  document: string,
  variables: Record<string, unknown>,
  key: string,
  handlers: SubscriptionHandlers<T>,
): () => void {
  const { client, open } = socketFor(key);
  const offConnected = handlers.connected ? client.on('connected', handlers.connected) : () => {};
  const offClosed = handlers.disconnected ? client.on('closed', handlers.disconnected) : () => {};
  // already open for another subscription: no new 'connected' comes
  if (open) queueMicrotask(() => handlers.connected?.());
  // graphql-ws sends this same payload at every reconnect: `after` set here is what it resumes from
  const payload = { query: document, variables: { ...variables } };
  let last: bigint | undefined;
  const stop = client.subscribe<T>(payload, {
    next: (result) => {
      if (result.errors?.length) return handlers.error(result.errors[0] as GraphQLError);
      if (!result.data) return;
      const position = handlers.positionOf?.(result.data as T);
      if (position != null) {
        if (last !== undefined && BigInt(position) <= last) return;
        last = BigInt(position);
        payload.variables.after = position;
      }
      handlers.data(result.data as T);
    },
    error: (e) => {
      const list = Array.isArray(e) ? (e as GraphQLError[]) : [];
      handlers.error(list[0] ?? { message: e instanceof Error ? e.message : 'the live connection closed' });
    },
    complete: () => {},
  });
  return () => (offConnected(), offClosed(), stop());
}
