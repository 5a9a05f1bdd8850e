// Why a request to an upstream got no answer, in one line an operator can act on. Node's fetch
// says only "fetch failed"; the reason (refused, no such host, a timeout, TLS) is in its `cause`.

/** Causes no retry within seconds cures (and TLS failures): every request to that upstream fails alike. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']);

const WORDS: Record<string, string> = {
  ECONNREFUSED: 'connection refused: nothing listens there',
  ENOTFOUND: 'no such host (DNS)',
  EAI_AGAIN: 'the DNS lookup failed for now',
  EHOSTUNREACH: 'no route to the host',
  ENETUNREACH: 'no route to the network',
  EADDRNOTAVAIL: 'no such address',
  ETIMEDOUT: 'timed out connecting',
  UND_ERR_CONNECT_TIMEOUT: 'timed out connecting',
  UND_ERR_HEADERS_TIMEOUT: 'timed out waiting for the answer',
  UND_ERR_BODY_TIMEOUT: 'timed out reading the answer',
  ECONNRESET: 'the connection was reset',
  UND_ERR_SOCKET: 'the connection closed before the answer',
  EPIPE: 'the connection closed while sending',
};

const isTls = (code: string) =>
  /^(ERR_SSL_|ERR_TLS_|CERT_|DEPTH_ZERO_|SELF_SIGNED_|UNABLE_TO_(GET|VERIFY)_)/.test(code);

export interface FetchFailure {
  /** e.g. `cannot reach vendor.example.com:443: connection refused: nothing listens there (ECONNREFUSED)` */
  message: string;
  /** The host cannot be reached at all: every other request to it fails the same way. */
  unreachable: boolean;
}

/**
 * What `e`, thrown by fetch(url), means; undefined when it is no network failure (a JSON parse
 * error, an abort), whose own message says enough.
 */
export function fetchFailure(e: unknown, url: URL): FetchFailure | undefined {
  if (!(e instanceof TypeError) || e.message !== 'fetch failed') return undefined;
  const cause = (e as { cause?: unknown }).cause as (Error & { code?: string }) | undefined;
  const code = typeof cause?.code === 'string' ? cause.code : undefined;
  const host = url.port ? url.host : `${url.hostname}:${url.protocol === 'https:' ? 443 : 80}`;
  const detail = cause?.message?.split('\n')[0] ?? 'no cause given';
  let why: string;
  if (code === undefined) why = detail;
  else if (WORDS[code]) why = `${WORDS[code]} (${code})`;
  // OpenSSL's own text is `<hex>:error:<hex>:SSL routines:<function>:<reason>:<file>:<line>:`
  else if (isTls(code)) why = `TLS failed: ${/SSL routines:[^:]*:([^:]+)/.exec(detail)?.[1] ?? detail} (${code})`;
  else why = `${detail} (${code})`;
  return {
    message: `cannot reach ${host}: ${why}`,
    unreachable: code !== undefined && (UNREACHABLE.has(code) || isTls(code)),
  };
}
