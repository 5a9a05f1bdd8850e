import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { checkServingConfig, loadConfig, ROOT } from '../../src/config.js';
import { TEST_JWT_SECRET } from '../helpers.js';

/**
 * The deployment files, checked without Docker: docker-compose.yml (two gateway replicas behind
 * nginx, sharing PostgreSQL and Redis), deploy/nginx.conf and the Dockerfile.
 */
interface Service {
  image?: string;
  build?: unknown;
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] | string };
  ports?: string[];
  volumes?: string[];
  stop_grace_period?: string;
}

const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');
const compose = parse(read('docker-compose.yml'), { merge: true }) as { services: Record<string, Service> };
const services = compose.services;
const gateways = ['gateway-1', 'gateway-2'];
const nginxConf = read('deploy/nginx.conf');
const configSource = read('src/config.ts');
/** Compose's `${NAME}`, `${NAME:-default}` and `${NAME:?message}` substitutions, given `vars` as the environment. */
function substitute(value: string, vars: Record<string, string>): string {
  return value.replace(/\$\{(\w+)(?::?([-?])([^}]*))?\}/g, (_m, name: string, op?: string, arg?: string) => {
    if (vars[name]) return vars[name];
    if (op === '?') throw new Error(`compose would stop: ${arg}`);
    return op === '-' ? arg! : '';
  });
}

describe('docker-compose.yml', () => {
  it('runs PostgreSQL, Redis, two gateway replicas and nginx, each started after what it needs is healthy', () => {
    expect(Object.keys(services).sort()).toEqual(['gateway-1', 'gateway-2', 'nginx', 'postgres', 'redis']);
    for (const name of ['postgres', 'redis', 'nginx'])
      expect(services[name]!.healthcheck, `${name} has a healthcheck`).toBeDefined();
    for (const name of gateways) {
      expect(services[name]!.build, `${name} is built from the Dockerfile`).toBe('.');
      expect(services[name]!.depends_on).toEqual({
        postgres: { condition: 'service_healthy' },
        redis: { condition: 'service_healthy' },
      });
      expect(Number.parseInt(services[name]!.stop_grace_period ?? '10s', 10) * 1000).toBeGreaterThan(
        Number(services[name]!.environment!.SHUTDOWN_TIMEOUT_MS),
      );
    }
    // service_healthy of a gateway is the image's HEALTHCHECK (/healthz)
    expect(read('Dockerfile').replace(/\\\n\s*/g, ' ')).toMatch(/^HEALTHCHECK .*\/healthz/m);
    expect(services.nginx!.depends_on).toEqual({
      'gateway-1': { condition: 'service_healthy' },
      'gateway-2': { condition: 'service_healthy' },
    });
    expect(services.nginx!.ports).toEqual(['4000:4000']);
    expect(services.nginx!.volumes).toContain('./deploy/nginx.conf:/etc/nginx/nginx.conf:ro');
    // only nginx is published: the replicas are reached through it
    for (const name of gateways) expect(services[name]!.ports).toBeUndefined();
  });

  it('gives each gateway the environment of a production replica, with every name one config.ts reads and no secret written out', () => {
    for (const name of gateways) {
      const env = services[name]!.environment!;
      for (const key of Object.keys(env))
        expect(configSource, `${name}: ${key} is read by src/config.ts`).toMatch(new RegExp(`\\b${key}\\b`));
      expect(env).toMatchObject({ NODE_ENV: 'production', TRUST_PROXY: 'true', REDIS_URL: 'redis://redis:6379' });
      expect(env.DATABASE_URL).toMatch(
        /^postgresql:\/\/gateway:\$\{POSTGRES_PASSWORD:\?[^}]*\}@postgres:5432\/market$/,
      );
      // secrets come from .env or the environment, and compose refuses to start without them
      expect(env.JWT_SECRET).toMatch(/^\$\{JWT_SECRET:\?[^}]*\}$/);
      expect(services.postgres!.environment!.POSTGRES_PASSWORD).toMatch(/^\$\{POSTGRES_PASSWORD:\?[^}]*\}$/);
      // a code-point collation: the search prefix is an index range there (services/security.ts)
      expect(services.postgres!.environment!.POSTGRES_INITDB_ARGS).toMatch(/--locale=C(\.UTF-8)?\b/);

      // with the secrets filled in, it is a configuration the gateway accepts
      const filled = Object.fromEntries(
        Object.entries(env).map(([k, v]) => [
          k,
          substitute(v, { JWT_SECRET: TEST_JWT_SECRET, POSTGRES_PASSWORD: 'pw' }),
        ]),
      );
      expect(() => substitute(env.JWT_SECRET!, {})).toThrow(/set JWT_SECRET/);
      const config = loadConfig(filled);
      expect(config.database).toMatchObject({ schema: 'public' });
      expect(config.auth.trustProxy).toBe(true);
      expect(config.nodeEnv).toBe('production');
      expect(config.observability.logLevel).toBe('info');
      // production serves only with PUBLIC_URL: next_url is built from it, never from a Host header
      expect(config.publicUrl).toBe('http://localhost:4000');
      expect(() => checkServingConfig(config)).not.toThrow();
    }
    expect(read('.gitignore').split('\n')).toContain('.env');
    for (const key of ['JWT_SECRET', 'POSTGRES_PASSWORD', 'METRICS_TOKEN'])
      expect(read('.env.example')).toMatch(new RegExp(`^${key}=$`, 'm'));
  });
});

describe('deploy/nginx.conf', () => {
  it('balances over exactly the compose gateway services, on the port they listen on', () => {
    const upstream = /upstream gateway \{([^}]*)\}/.exec(nginxConf)?.[1] ?? '';
    const servers = [...upstream.matchAll(/^\s*server\s+([\w.-]+):(\d+)/gm)].map((m) => ({ host: m[1]!, port: m[2]! }));
    expect(servers.map((s) => s.host)).toEqual(gateways);
    for (const s of servers) expect(s.port).toBe(services[s.host]!.environment!.PORT);
    expect(nginxConf).toMatch(/listen 4000;/);
    expect(nginxConf.match(/proxy_pass http:\/\/gateway;/g)?.length).toBeGreaterThanOrEqual(2);
  });

  it('passes WebSocket upgrades and unbuffered SSE on /graphql, and the client address the gateway trusts', () => {
    expect(nginxConf).toMatch(/proxy_http_version 1\.1;/);
    expect(nginxConf).toMatch(/proxy_set_header Upgrade \$http_upgrade;/);
    expect(nginxConf).toMatch(/proxy_set_header Connection \$connection_upgrade;/);
    const graphql = /location \/graphql \{([^}]*)\}/.exec(nginxConf)?.[1] ?? '';
    expect(graphql).toMatch(/proxy_buffering off;/);
    expect(graphql).toMatch(/proxy_read_timeout 1h;/);
    // replaced, not appended to: TRUST_PROXY takes the first X-Forwarded-For address
    expect(nginxConf).toMatch(/proxy_set_header X-Forwarded-For \$remote_addr;/);
    expect(nginxConf).toMatch(/proxy_set_header X-Request-Id /);
    // no query strings (API keys) in the access log
    expect(nginxConf).not.toMatch(/\$request_uri|\$args|\$query_string|"\$request"/);
    // proxy_set_header at server level only: a location that set one would drop all the others
    for (const block of nginxConf.matchAll(/location [^{]*\{([^}]*)\}/g))
      expect(block[1]).not.toMatch(/proxy_set_header/);
  });
});

describe('Dockerfile', () => {
  // continuation lines joined: one instruction per line
  const dockerfile = read('Dockerfile').replace(/\\\n\s*/g, ' ');
  const stages = dockerfile.split(/^(?=FROM )/m).filter((s) => s.startsWith('FROM '));

  it('builds in one stage and runs in another, slim, as a user that is not root, in production mode', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(stages[0]).toMatch(/^FROM node:20[\w.-]* AS build$/m);
    expect(stages[0]).toMatch(/^RUN npm ci\b/m);
    const runtime = stages.at(-1)!;
    expect(runtime).toMatch(/^FROM node:20[\w.-]*slim\b/);
    expect(runtime).toMatch(/^COPY --from=build /m);
    expect(runtime).not.toMatch(/^RUN npm (ci|install)\b/m);
    const user = [...runtime.matchAll(/^USER\s+(\S+)/gm)].at(-1)?.[1];
    expect(user).toBeDefined();
    expect(['root', '0', '0:0']).not.toContain(user);
    expect(runtime).toMatch(/^ENV .*NODE_ENV=production/m);
    expect(runtime).toMatch(/^HEALTHCHECK .*\/healthz/m);
    // node itself (PID 1, so SIGTERM reaches the server), with the very command of `npm start` (its heap flags included)
    const start: string = JSON.parse(read('package.json')).scripts.start;
    expect(start).toMatch(/^node .*--import tsx src\/server\.ts$/);
    expect(runtime).toMatch(
      new RegExp(`^CMD ${JSON.stringify(start.split(' ')).replace(/[[\]]/g, '\\$&').replace(/,/g, ', ')}$`, 'm'),
    );
  });

  it('bakes in no secret and keeps .env and local data out of the build context', () => {
    expect(dockerfile).not.toMatch(/^(ENV|ARG)\s.*(SECRET|PASSWORD|TOKEN|DATABASE_URL)/im);
    const ignored = read('.dockerignore').split('\n');
    for (const entry of ['.env', 'data', 'node_modules', '.git']) expect(ignored).toContain(entry);
  });
});
