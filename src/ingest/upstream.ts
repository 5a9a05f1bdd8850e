// The upstream of `cli sync` (ingest/sync.ts): GETs of JSON on the origin of `--from` only, retried
// with exponential backoff and jitter on network failures and 5xx, waiting out a 429's
// Retry-After, each bounded in time, so a dead or hung upstream ends a sync instead of parking it,
// and in size, so a huge answer ends it instead of the process's memory.
import { SYNC_MAX_BODY_BYTES } from '../config.js';
import { fetchFailure } from './fetch-failure.js';
import { parseJsonExact } from './json.js';
import { grouped } from './progress.js';

export interface UpstreamOptions {
  /** Base URL of the upstream, e.g. https://vendor.example.com */
  from: string;
  apikey: string;
  fetch?: typeof fetch;
  log?: (line: string) => void;
  /** Attempts per request before the resource fails (default 6). */
  attempts?: number;
  /** First backoff step in ms (default 250), doubled per retry, capped at 30 s. */
  backoffMs?: number;
  /**
   * How long one request may take, answer and body, before it counts as failed and is retried
   * (default 30 s): fetch alone would wait 5 minutes for the headers of an upstream that accepts
   * the connection and says nothing, and as long again for each retry.
   */
  requestTimeoutMs?: number;
  /**
   * Bytes of one answer read at most (SYNC_MAX_BODY_BYTES, default 64 MiB): past it the answer is
   * refused as it arrives, and not asked for again, since the same request brings the same answer.
   */
  maxBodyBytes?: number;
}

export class SyncError extends Error {
  constructor(
    message: string,
    readonly status?: number,
    /** Why the upstream cannot be reached at all (fetch-failure.ts): the resources after this one are not tried. */
    readonly unreachable?: string,
  ) {
    super(message);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `Retry-After` as seconds or an HTTP date, in ms; capped so a hostile upstream cannot park us. */
function retryAfterMs(header: string | null): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(header) - Date.now();
  return Number.isFinite(ms) ? Math.min(Math.max(ms, 0), 120_000) : undefined;
}

const MAX_REDIRECTS = 5;
/** Of an error's answer only its start is shown (200 characters): the rest is not read. */
const ERROR_BODY_BYTES = 4096;

/** The path and query of `url` as a log line shows them: never the key. */
export const shownUrl = (url: URL) => url.pathname + url.search.replace(/apikey=[^&]*/, 'apikey=…');

/**
 * The first `max` bytes of an answer's body, read as they arrive; `whole` false when there was
 * more, which is then not read (the connection is closed). The bytes counted are the decoded
 * ones, so a compressed answer is held to the limit once inflated too.
 */
async function readUpTo(res: Response, max: number): Promise<{ bytes: Uint8Array; whole: boolean }> {
  if (!res.body) return { bytes: new Uint8Array(0), whole: true };
  const reader = res.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { bytes: Buffer.concat(parts, size), whole: true };
    if (size + value.byteLength > max) {
      parts.push(value.subarray(0, max - size));
      await reader.cancel();
      return { bytes: Buffer.concat(parts, max), whole: false };
    }
    parts.push(value);
    size += value.byteLength;
  }
}

/** As `res.text()` decodes: UTF-8, a byte-order mark dropped, a malformed sequence replaced. */
const utf8 = new TextDecoder();

export class Upstream {
  requests = 0;
  private readonly base: URL;
  private readonly fetchFn: typeof fetch;

  constructor(private readonly options: UpstreamOptions) {
    this.base = new URL(options.from);
    this.fetchFn = options.fetch ?? fetch;
  }

  url(path: string, params: Record<string, string | number | undefined> = {}): URL {
    const url = new URL(
      path.replace(/^\//, ''),
      this.base.href.endsWith('/') ? this.base : new URL(`${this.base.href}/`),
    );
    for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, String(v));
    return url;
  }

  /** A next_url as `get` would request it (with the key), refused when it leaves the origin of `--from`. */
  resolve(link: URL | string): URL {
    return this.target(link, this.base);
  }

  /**
   * The URL to request, with the key: only on the origin of `--from`. A next_url or a redirect to
   * any other origin stops the resource, and nothing (the key least of all) is sent there.
   */
  private target(link: URL | string, base: URL | string): URL {
    let url: URL;
    try {
      url = new URL(link, base);
    } catch {
      throw new SyncError(`the upstream gave a link that is not a URL: ${JSON.stringify(String(link).slice(0, 200))}`);
    }
    if (url.origin !== this.base.origin) {
      throw new SyncError(
        `the upstream links to ${url.origin}, another origin than --from (${this.base.origin}); stopped there, and nothing (the key least of all) was sent to it`,
      );
    }
    if (!url.searchParams.has('apikey')) url.searchParams.set('apikey', this.options.apikey);
    return url;
  }

  /** GET a JSON body; big integers stay exact (they arrive as strings where a Number would round). */
  async get(link: URL | string): Promise<unknown> {
    let url = this.target(link, this.base);
    const attempts = this.options.attempts ?? 6;
    const backoff = this.options.backoffMs ?? 250;
    const timeoutMs = this.options.requestTimeoutMs ?? 30_000;
    const maxBytes = this.options.maxBodyBytes ?? SYNC_MAX_BODY_BYTES;
    let redirects = 0;
    let said: string | undefined;
    for (let attempt = 1; ; attempt++) {
      this.requests++;
      const shown = shownUrl(url);
      let wait: number;
      let problem: string;
      let unreachable: string | undefined;
      try {
        // redirects are followed here, where their origin is checked, not by fetch
        const res = await this.fetchFn(url, {
          headers: { accept: 'application/json' },
          redirect: 'manual',
          signal: AbortSignal.timeout(timeoutMs),
        });
        const location = res.status >= 300 && res.status < 400 ? res.headers.get('location') : null;
        if (location !== null) {
          await res.body?.cancel();
          if (++redirects > MAX_REDIRECTS)
            throw new SyncError(`more than ${MAX_REDIRECTS} redirects from GET ${shown}`);
          url = this.target(location, url);
          attempt--;
          continue;
        }
        if (res.ok) {
          const declared = Number(res.headers.get('content-length') ?? 0);
          const body = declared > maxBytes ? undefined : await readUpTo(res, maxBytes);
          if (!body?.whole) {
            if (!body) await res.body?.cancel();
            throw new SyncError(
              `the answer to GET ${shown} is larger than ${grouped(maxBytes)} bytes (SYNC_MAX_BODY_BYTES): read no further and not asked for again`,
            );
          }
          return parseJsonExact(utf8.decode(body.bytes));
        }
        const text = utf8.decode((await readUpTo(res, ERROR_BODY_BYTES)).bytes);
        problem = `${res.status} from GET ${shown}: ${text.slice(0, 200)}`;
        if (res.status === 429) {
          wait = retryAfterMs(res.headers.get('retry-after')) ?? backoff * 2 ** (attempt - 1);
        } else if (res.status >= 500) {
          wait = Math.min(backoff * 2 ** (attempt - 1), 30_000) * (0.5 + Math.random() / 2);
        } else {
          throw new SyncError(problem, res.status);
        }
      } catch (e) {
        if (e instanceof SyncError) throw e;
        const failure = fetchFailure(e, url);
        unreachable = failure?.unreachable ? failure.message : undefined;
        const timedOut = (e as Error)?.name === 'TimeoutError';
        problem = timedOut
          ? `GET ${shown} got no whole answer from ${url.host} within ${timeoutMs / 1000} s`
          : `GET ${shown} failed: ${failure?.message ?? (e as Error).message}`;
        wait = Math.min(backoff * 2 ** (attempt - 1), 30_000) * (0.5 + Math.random() / 2);
      }
      if (attempt >= attempts)
        throw new SyncError(`${problem} (gave up after ${attempt} attempts)`, undefined, unreachable);
      // the same problem again is not repeated: a dead upstream gives one line, then the waits
      this.options.log?.(
        `  retrying in ${Math.round(wait)} ms (attempt ${attempt + 1} of ${attempts})${problem === said ? '' : `: ${problem}`}`,
      );
      said = problem;
      await sleep(wait);
    }
  }
}
