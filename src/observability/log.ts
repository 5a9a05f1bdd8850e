import { AsyncLocalStorage } from 'node:async_hooks';
import os from 'node:os';
import { pino, type DestinationStream, type Logger } from 'pino';
import { prettyFactory } from 'pino-pretty';
import type { LogFormat, LogLevel } from '../config.js';

export type { Logger };

/**
 * Paths pino blanks if they ever reach a log call. Belt and braces: request lines carry ids, never
 * credentials (see observability/request-log.ts), and no code logs headers, bodies or variables.
 */
const REDACT = [
  'password',
  '*.password',
  'apikey',
  '*.apikey',
  'apiKey',
  '*.apiKey',
  'key',
  '*.key',
  'token',
  '*.token',
  'accessToken',
  'refreshToken',
  'secret',
  '*.secret',
  'jwtSecret',
  '*.jwtSecret',
  'variables',
  'headers.authorization',
  'headers.cookie',
  'headers["x-api-key"]',
  'headers["set-cookie"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
];

/** Fields every line logged while a request runs carries (its request id, nothing else), whoever logs it: Yoga, OCR, a service. */
const requestScope = new AsyncLocalStorage<Record<string, unknown>>();

const NO_FIELDS = Object.freeze({});

/** Runs one request's handling; lines logged inside it carry what `setRequestScope` adds. */
export function inRequestScope<T>(fn: () => T): T {
  return requestScope.run({}, fn);
}

export function setRequestScope(fields: Record<string, unknown>): void {
  const store = requestScope.getStore();
  if (store) Object.assign(store, fields);
}

/**
 * JSON lines: `{"level":"info","time":"…","pid":…,"hostname":"…","msg":"…",…}`; `pretty`, the
 * same lines made readable (`[12:41:55.778] INFO: msg {fields}`) after redaction. One logger per
 * process, made by server.ts (or a test, with its own destination) and passed down.
 */
export function createLogger(level: LogLevel, destination?: DestinationStream, format: LogFormat = 'json'): Logger {
  if (level === 'silent' && !destination) return silentLogger();
  const out = destination ?? batchedStdout();
  return pino(
    {
      level,
      base: { pid: process.pid, hostname: os.hostname() },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACT, censor: '[redacted]' },
      // a copy: pino merges each line's own fields into what mixin returns. A line with a request
      // id of its own (every request line) keeps it over the scope's, so the merge is skipped: it
      // cost more than the rest of writing the line (bench/RESULTS.md)
      mixin: (line) => ('requestId' in line ? NO_FIELDS : { ...requestScope.getStore() }),
      mixinMergeStrategy: (line, scope) => (scope === NO_FIELDS ? line : Object.assign(scope, line)),
    },
    format === 'pretty' ? prettified(out, !destination && Boolean(process.stdout.isTTY)) : out,
  );
}

/**
 * Each JSON line as pino-pretty prints it, written synchronously to `out` (pino-pretty's own
 * stream is asynchronous: a line logged just before process.exit would be lost).
 */
function prettified(out: DestinationStream, colorize: boolean): DestinationStream {
  const pretty = prettyFactory({ colorize, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', singleLine: true });
  return { write: (line: string) => out.write(pretty(line)) };
}

/**
 * Stdout in one synchronous write per turn of the event loop: the lines logged in one turn (under
 * load, the request lines of every response that turn sent) go out together when it ends, or as
 * soon as 8 KB wait; what waits is written when the process exits, so a line logged just before
 * process.exit is kept. A write per line cost ~15% of a `{ __typename }` request. Asynchronous
 * writes cost as little but buffer without bound when the reader of stdout is slower than the
 * server (+20 MB RSS in a 60 s soak), where a synchronous write waits for it.
 */
function batchedStdout(): DestinationStream {
  const stream = pino.destination({ dest: 1, sync: true, minLength: 8192 });
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    stream.flush();
  };
  process.once('exit', () => stream.flushSync());
  return {
    write(line: string) {
      stream.write(line);
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
  };
}

/** A logger that writes nothing, for apps a test makes without one. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
