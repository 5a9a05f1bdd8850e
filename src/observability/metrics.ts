import { createHash, timingSafeEqual } from 'node:crypto';
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';

/** A series on /metrics: its name, its help, and the label its values are split by, if any. */
export interface MetricSpec {
  name: string;
  help: string;
  /** With a label, `read` returns the value of each label value (`{ total: 3, idle: 1 }`). */
  label?: string;
}

export type Reading = number | Readonly<Record<string, number>>;

/**
 * How a capability shows its numbers: it hands over a function that reads them, and every scrape
 * calls it. The db client, the OCR pool, the rate limiter and the process guard register this way,
 * so this folder needs to know none of them.
 */
export interface MetricRegistrar {
  /** A value that goes up and down (open connections, queued jobs). */
  gauge(spec: MetricSpec, read: () => Reading): void;
  /** A count that only grows (statements sent, workers replaced): `read` returns the total so far. */
  counter(spec: MetricSpec, read: () => Reading): void;
}

export interface Metrics extends MetricRegistrar {
  /** For the request log's own counters and histogram, which it updates as requests end. */
  readonly registry: Registry;
  /** GET /metrics. */
  serve(request: Request): Promise<Response>;
}

export interface MetricsDeps {
  config: Pick<Readonly<Config>, 'nodeEnv' | 'observability'>;
  /** The build info series' labels besides node_version: the gateway's version and the database kind. */
  build: { version: string; database: string };
}

function eachValue(
  reading: Reading,
  label: string | undefined,
  set: (labels: Record<string, string>, value: number) => void,
): void {
  if (typeof reading === 'number') set({}, reading);
  else for (const [value, n] of Object.entries(reading)) set({ [label!]: value }, n);
}

/**
 * Per app: a Prometheus registry of its own (several apps in one test process do not collide),
 * the build info series, and the /metrics endpoint that serves them.
 */
export function createMetrics({ config, build }: MetricsDeps): Metrics {
  const registry = new Registry();
  const registers = [registry];
  const labelNames = (spec: MetricSpec) => (spec.label ? [spec.label] : []);

  new Gauge({
    name: 'mdg_build_info',
    help: 'Version of the gateway, of Node.js, and the kind of database; always 1',
    labelNames: ['version', 'node_version', 'database'] as const,
    registers,
    collect() {
      this.set({ version: build.version, node_version: process.version, database: build.database }, 1);
    },
  });

  let processMetrics = false;
  const metricsToken = config.observability.metricsToken;
  const tokenDigest = metricsToken ? createHash('sha256').update(metricsToken).digest() : undefined;

  return {
    registry,

    gauge(spec, read) {
      new Gauge({
        name: spec.name,
        help: spec.help,
        labelNames: labelNames(spec),
        registers,
        collect() {
          eachValue(read(), spec.label, (labels, n) => this.set(labels, n));
        },
      });
    },

    counter(spec, read) {
      // prom-client counters only go up by increments: each scrape adds what the total grew by
      const seen = new Map<string, number>();
      new Counter({
        name: spec.name,
        help: spec.help,
        labelNames: labelNames(spec),
        registers,
        collect() {
          eachValue(read(), spec.label, (labels, now) => {
            const key = spec.label ? labels[spec.label]! : '';
            this.inc(labels, Math.max(0, now - (seen.get(key) ?? 0)));
            seen.set(key, now);
          });
        },
      });
    },

    /**
     * With METRICS_TOKEN set it needs `Authorization: Bearer <token>`; without it, it is open
     * outside production and refused in production (metrics tell a lot about a service).
     */
    async serve(request) {
      if (tokenDigest) {
        const given = /^Bearer\s+(\S+)$/i.exec(request.headers.get('authorization') ?? '')?.[1];
        if (!given || !timingSafeEqual(createHash('sha256').update(given).digest(), tokenDigest)) {
          throw new AppError('UNAUTHENTICATED', '/metrics needs the header Authorization: Bearer <METRICS_TOKEN>', {
            'www-authenticate': 'Bearer realm="metrics"',
          });
        }
      } else if (config.nodeEnv === 'production') {
        throw new AppError('FORBIDDEN', '/metrics is off in production until METRICS_TOKEN is set');
      }
      if (!processMetrics) {
        // process and event-loop metrics start with the first scrape, so apps never scraped (tests) start no monitors
        collectDefaultMetrics({ register: registry });
        processMetrics = true;
      }
      return new Response(await registry.metrics(), { headers: { 'content-type': registry.contentType } });
    },
  };
}
