// What one WebSocket connection may hold of an instance, and how it is told no (docs/security.md,
// "WebSocket connections"): connections per user and per address not yet authenticated, and the
// bytes of the message it is sending, charged to the bodies in flight and cut when too slow.
import type { Duplex } from 'node:stream';
import { CloseCode } from 'graphql-ws';
import type { WebSocket } from 'ws';
import type { ConnectionConfig } from '../config.js';
import { AppError } from '../errors.js';
import { SMALL_BODY_BYTES } from '../http/body.js';
import { PaceMeter } from '../http/pace.js';
import type { BodyBudget, BodyHold } from '../runtime/bodies.js';

/**
 * The largest message (`ws`'s maxPayload; a larger one closes the connection with 1009): a
 * subscribe of a document at GRAPHQL_MAX_TOKENS (~8 KB printed) and its variables, as small as the
 * bodies HTTP reads uncounted. OCR frames, the only larger bodies, go over HTTP.
 */
export const MAX_MESSAGE_BYTES = SMALL_BODY_BYTES;
/** A frame's header (at most 14 bytes) beside its payload: the most a socket's unfinished message holds. */
const MAX_UNFINISHED_BYTES = MAX_MESSAGE_BYTES + 14;
/** How long a client that was told to go away may take to close before its socket is cut. */
export const CLOSE_GRACE_MS = 2_000;

/** Close codes beside graphql-ws's own: the HTTP status of the error, as 4xxx. */
const CLOSE_CODES: Partial<Record<AppError['code'], number>> = {
  UNAUTHENTICATED: CloseCode.Unauthorized, // 4401
  FORBIDDEN: CloseCode.Forbidden, // 4403
  BAD_REQUEST: CloseCode.BadRequest, // 4400
  BODY_TOO_SLOW: 4408,
  RATE_LIMITED: 4429,
  TOO_MANY_CONNECTIONS: 4429,
  SERVICE_UNAVAILABLE: 1013, // RFC 6455's "try again later"
  // the client may connect again once the database is back
  DATABASE_UNAVAILABLE: 1013,
};

/** A close reason holds at most 123 bytes. */
export const reasonOf = (e: AppError) =>
  Buffer.byteLength(e.message) <= 123 ? e.message : `${Buffer.from(e.message).subarray(0, 118).toString()}…`;

/** Closes `socket` with the code and message of `e` (4500 for a code without its own). */
export function closeWith(socket: WebSocket, e: AppError): void {
  socket.close(CLOSE_CODES[e.code] ?? CloseCode.InternalServerError, reasonOf(e));
}

/**
 * Closes `socket` as closeWith does and cuts it CLOSE_GRACE_MS later if it is still open: a peer
 * in the middle of a frame cannot answer the close, and `ws` would wait 30 s for it.
 */
function refuseSocket(socket: WebSocket, e: AppError): void {
  closeWith(socket, e);
  const cut = setTimeout(() => socket.terminate(), CLOSE_GRACE_MS);
  socket.once('close', () => clearTimeout(cut));
}

export interface SocketLimitsDeps {
  connections: Pick<ConnectionConfig, 'socketsPerCaller' | 'socketsPerAddress' | 'minBytesPerSecond' | 'graceMs'>;
  /** Where unfinished messages are charged: the bodies in flight, in the address's part before authentication. */
  bodies: BodyBudget;
}

/** One admitted socket, counted against its address until `authenticated` moves it to its user. */
export interface GuardedSocket {
  /** Counts the socket against `userId`'s connections instead of its address's; throws TOO_MANY_CONNECTIONS past the cap. */
  authenticated(userId: string): void;
}

/**
 * The parts of `ws`'s receiver (node_modules/ws/lib/receiver.js) that hold an unfinished message:
 * bytes not parsed yet, and the fragments so far. Not `ws`'s public API: test/attack/sockets.test.ts
 * fails if an upgrade of `ws` renames them.
 */
interface ReceiverState {
  _bufferedBytes?: number;
  _messageLength?: number;
}

/**
 * The instance's WebSocket caps. `admit` counts a socket just upgraded against its address (closed
 * with 4429 past WS_SOCKETS_PER_ADDRESS) and watches what it sends until it closes.
 */
export function socketLimits({ connections, bodies }: SocketLimitsDeps) {
  const byAddress = new Map<string, number>();
  const byUser = new Map<string, number>();
  const count = (map: Map<string, number>, key: string, by: number) => {
    const n = (map.get(key) ?? 0) + by;
    if (n > 0) map.set(key, n);
    else map.delete(key);
  };

  return {
    admit(socket: WebSocket, raw: Duplex, address: string): GuardedSocket | undefined {
      if ((byAddress.get(address) ?? 0) >= connections.socketsPerAddress) {
        refuseSocket(
          socket,
          new AppError(
            'TOO_MANY_CONNECTIONS',
            `one address opens at most ${connections.socketsPerAddress} WebSocket connections not yet authenticated`,
          ),
        );
        return undefined;
      }
      count(byAddress, address, 1);
      let user: string | undefined;
      const stopWatching = watchMessages(socket, raw, {
        pace: connections,
        hold: () => bodies.hold(MAX_UNFINISHED_BYTES, user === undefined ? address : undefined),
      });
      socket.once('close', () => {
        stopWatching();
        if (user === undefined) count(byAddress, address, -1);
        else count(byUser, user, -1);
      });
      return {
        authenticated(userId) {
          if (user !== undefined) return;
          if ((byUser.get(userId) ?? 0) >= connections.socketsPerCaller) {
            throw new AppError(
              'TOO_MANY_CONNECTIONS',
              `a user holds at most ${connections.socketsPerCaller} WebSocket connections at once; close one first`,
            );
          }
          count(byUser, userId, 1);
          count(byAddress, address, -1);
          user = userId;
        },
      };
    },
  };
}

/**
 * Charges the bytes of `socket`'s unfinished message, as `ws`'s receiver holds them after each chunk
 * (read after its own 'data' listener), to a hold from `hold`, given back when the message is whole
 * or the socket closed. A message that falls behind the pace closes the socket with 4408, and one
 * the budget has no room for with 4429 or 1013 (refuseSocket). Returns what stops the watch.
 */
function watchMessages(
  socket: WebSocket,
  raw: Duplex,
  { pace, hold: newHold }: { pace: SocketLimitsDeps['connections']; hold: () => BodyHold },
): () => void {
  const receiver = (socket as unknown as { _receiver: ReceiverState })._receiver;
  let hold: BodyHold | undefined;
  let meter: PaceMeter | undefined;
  /** Messages whole so far, and how many were when the meter started: the message it meters. */
  let messages = 0;
  let metered = 0;
  /** What the meter was told of its message's bytes. */
  let meterBytes = 0;
  const finish = () => {
    hold?.release();
    meter?.stop();
    hold = meter = undefined;
  };
  const refuse = (e: AppError) => {
    // what the receiver holds stays charged until the socket closes
    meter?.stop();
    raw.removeListener('data', onData);
    refuseSocket(socket, e);
  };
  const onData = () => {
    const unfinished = (receiver._bufferedBytes ?? 0) + (receiver._messageLength ?? 0);
    if (unfinished === 0) return finish();
    // a new message began since the meter started: its pace counts from now
    if (!meter || metered !== messages) {
      meter?.stop();
      metered = messages;
      meterBytes = 0;
      meter = new PaceMeter(pace, refuse, 'message');
    }
    if (unfinished > meterBytes) meter.arrived(unfinished - meterBytes);
    meterBytes = Math.max(meterBytes, unfinished);
    try {
      (hold ??= newHold()).growNow(unfinished);
    } catch (e) {
      refuse(e as AppError);
    }
  };
  socket.on('message', () => void messages++);
  raw.on('data', onData);
  return () => {
    finish();
    raw.removeListener('data', onData);
  };
}
