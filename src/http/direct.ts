// POST /graphql with a small JSON body, its body read whole and Yoga answering below its adapter
// (docs/architecture.md, "The direct way"). Everything else goes the adapter's way, untouched.
import type { IncomingMessage, RequestListener } from 'node:http';
import { sendNodeResponse } from '@whatwg-node/server';
import { SMALL_BODY_BYTES } from './body.js';
import { fetchRequest, type NodeServerContext } from './node.js';
import type { FallbackReason } from '../observability/fallbacks.js';

/** Bodies up to this many bytes are read before the caller is known: readBody (http/body.ts) counts none of them. */
export const DIRECT_BODY_BYTES = SMALL_BODY_BYTES;

/** Answers the request as the app's fetch handler does, the GraphQL part without Yoga's adapter (app.ts). */
export type DirectHandler = (request: Request, serverContext: NodeServerContext) => Promise<Response>;

const JSON_TYPE = /^application\/json(;\s*charset=utf-8)?$/i;
/** What the answer of a query or mutation is sent as; a stream (SSE, multipart) goes the adapter's way. */
const JSON_ACCEPTED = /(^|,)\s*(application\/(graphql-response\+)?json|application\/\*|\*\/\*)\s*(;[^,]*)?(,|$)/i;
const STREAM_ACCEPTED = /text\/event-stream|multipart\//i;

/**
 * Why the direct way does not serve `req`, or undefined when it does: it serves a POST to exactly
 * /graphql (no query string), no Upgrade, no If-None-Match (the response cache's only adapter hook,
 * an onRequest: graphql/cache.ts), a JSON body of a declared length within DIRECT_BODY_BYTES, and
 * an Accept that takes a JSON answer (or none). `elsewhere`:
 * what it is not for (any other method or path); any other reason is a fallback of a request it is
 * for, counted on `mdg_fallback_total{path="direct"}` (observability/fallbacks.ts).
 */
export function whyNotDirect(req: IncomingMessage): FallbackReason<'direct'> | 'elsewhere' | undefined {
  const h = req.headers;
  if (req.method !== 'POST' || !req.url?.startsWith('/graphql') || (req.url.length > 8 && req.url[8] !== '?'))
    return 'elsewhere';
  if (req.url !== '/graphql') return 'query_string';
  if (h.upgrade !== undefined) return 'connection';
  if (h['if-none-match'] !== undefined) return 'conditional';
  if (!JSON_TYPE.test(h['content-type'] ?? '')) return 'content_type';
  const length = h['content-length'];
  if (
    h['transfer-encoding'] !== undefined ||
    length === undefined ||
    !/^\d{1,6}$/.test(length) ||
    Number(length) === 0 ||
    Number(length) > DIRECT_BODY_BYTES
  )
    return 'body';
  const accept = h.accept;
  return accept === undefined || accept === '' || (JSON_ACCEPTED.test(accept) && !STREAM_ACCEPTED.test(accept))
    ? undefined
    : 'accept';
}

/** The body, whole: Node's parser delivers exactly Content-Length bytes. Rejects if the client goes first. */
function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('end', () =>
      resolve(chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8')),
    );
    req.once('error', reject);
    req.once('close', () => req.complete || reject(new Error('the client closed the connection before its body')));
  });
}

/**
 * The server's request listener: the direct way for what `whyNotDirect` admits, `fallback` (the
 * app as a Node listener) for everything else, telling `fellBack` why a request the direct way is
 * for went the adapter's way. The answer is written as the adapter writes it.
 */
export function directListener({
  fallback,
  handle,
  RequestClass,
  fellBack,
}: {
  fallback: RequestListener;
  handle: DirectHandler;
  RequestClass: typeof Request;
  fellBack?: (reason: FallbackReason<'direct'>) => void;
}): RequestListener {
  return (req, res) => {
    const why = whyNotDirect(req);
    if (why !== undefined) {
      if (why !== 'elsewhere') fellBack?.(why);
      return fallback(req, res);
    }
    void readBody(req)
      .then((body) => {
        return handle(fetchRequest(req, res, RequestClass, body), { req, res });
      })
      .then(
        (response) => sendNodeResponse(response, res, req, true),
        () => void res.destroy(), // the body never arrived whole: there is no one to answer
      )
      .catch((e: unknown) => console.error(`Unexpected error while handling request: ${(e as Error)?.message ?? e}`));
  };
}
