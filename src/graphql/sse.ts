// A live subscription over Server-Sent Events: the stream Yoga's SSE processor would write
// (graphql-yoga's result-processor/sse.js: a first ping, `next` events, `complete`), but fed by
// the subscription's group (graphql/live.ts) with events serialized once for all its members.
import { Readable } from 'node:stream';
import type { AppError } from '../errors.js';
import type { StreamMark } from '../runtime/events.js';
import { errorPayload, type LiveEvent, type Sink } from './live-group.js';
import type { LiveStreamServer } from './live.js';

const PING = Buffer.from(':\n\n');
const COMPLETE = Buffer.from('event: complete\ndata:\n\n');
/** Keep-alive pings, as Yoga sends them: proxies close a connection that stays silent. */
const PING_EVERY_MS = 12_000;
/**
 * How long a stream ended by the server may take to reach its client before the connection is
 * cut: a client that never reads would otherwise hold its socket and buffers for good.
 */
const UNREAD_END_GRACE_MS = 10_000;

/**
 * The response of one SSE subscription. Its body is a Node stream (what Yoga's fetch API turns a
 * ReadableStream into anyway): the server pipes it to the socket and stops reading when the
 * socket's buffers are full. Events the stream cannot take yet wait here (references to the
 * group's shared bytes) and go out joined, one chunk per turn of delivery; more than
 * SUBSCRIPTION_BUFFER_BYTES waiting while it takes nothing ends the subscription with SLOW_CONSUMER.
 */
export const sseResponse: LiveStreamServer = ({ hub, slot, result, ctx, fetchAPI }) => {
  // in position order; under LATEST one per topic, a newer event of a topic taking the older's place
  let waiting = new Map<unknown, LiveEvent>();
  let bytes = 0;
  let n = 0;
  const keyOf = slot.policy === 'LATEST' ? (e: LiveEvent) => e.mark?.topic : () => n++;
  let delivered: StreamMark | undefined;
  let wanted = true; // the stream takes more: its buffer is below its high-water mark
  let closed = false;

  const chunks = () => [...waiting.values()].map((e) => e.sse());
  const hand = () => {
    const all = chunks();
    wanted = body.push(all.length === 1 ? all[0]! : Buffer.concat(all, bytes));
    delivered = [...waiting.values()].at(-1)?.mark ?? delivered;
    waiting = new Map();
    bytes = 0;
  };
  const finish = (last: Buffer) => {
    if (closed) return;
    closed = true;
    clearInterval(ping);
    body.push(last);
    body.push(null);
  };

  const body = new Readable({
    read() {
      wanted = true;
      if (!closed && waiting.size) hand();
    },
    destroy(error, callback) {
      // the client cancelled its body, or its connection closed
      closed = true;
      clearInterval(ping);
      member.leave();
      callback(error);
    },
  });
  // some browsers wait for a first byte before they report the response
  body.push(PING);
  const ping = setInterval(() => {
    if (!closed && wanted) wanted = body.push(PING);
  }, PING_EVERY_MS).unref();

  const sink: Sink = {
    deliver(event: LiveEvent) {
      if (closed) return true;
      const key = keyOf(event);
      const replaced = waiting.get(key);
      if (replaced) (bytes -= replaced.sse().length), waiting.delete(key);
      waiting.set(key, event);
      bytes += event.sse().length;
      return true;
    },
    flush() {
      if (closed || waiting.size === 0) return true;
      if (wanted) hand();
      // under LATEST what waits is one event per topic at most: bounded by the symbols named
      return slot.policy === 'LATEST' || bytes <= hub.bufferBytes;
    },
    delivered: () => delivered,
    fail(error: AppError) {
      // what has not been taken yet is not delivered after the reason it ended
      waiting = new Map();
      bytes = 0;
      finish(Buffer.concat([Buffer.from(`event: next\ndata: ${errorPayload(error)}\n\n`), COMPLETE]));
      const cut = ctx.cutConnection;
      if (cut) setTimeout(cut, UNREAD_END_GRACE_MS).unref();
    },
    complete() {
      finish(Buffer.concat([...chunks(), COMPLETE]));
      waiting = new Map();
      bytes = 0;
    },
  };
  const member = hub.attach(slot, result, sink);
  // the connection closed: no read or cancel may ever come to say so
  const gone = () => body.destroy();
  if (ctx.request.signal.aborted) gone();
  else ctx.request.signal.addEventListener('abort', gone, { once: true });
  return new fetchAPI.Response(body as unknown as BodyInit, {
    status: 200,
    headers: {
      'Content-Type': 'text/event-stream',
      Connection: 'keep-alive',
      'Cache-Control': 'no-cache',
      'Content-Encoding': 'none',
    },
  });
};
