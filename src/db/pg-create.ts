import type { Client, ClientConfig } from 'pg';
import type { DatabaseConfig } from '../config.js';
import { AppError } from '../errors.js';

type PgDatabase = DatabaseConfig;
type PgModule = { Client: new (config: ClientConfig) => Client };

/** SQLSTATE invalid_catalog_name: the database a connection asks for does not exist. */
export const DATABASE_DOES_NOT_EXIST = '3D000';

/**
 * The collations a created database gets, best first. Both compare text by code point, so that the
 * securities starting with a prefix are one range of the index (Db.codepointTextOrder in
 * db/client.ts, prefixMatch in services/security.ts); C.UTF-8 also classifies non-ASCII letters
 * (upper() and lower() of accented names). Not every server has C.UTF-8 (macOS builds do not).
 */
const LOCALES = [
  { name: 'C.UTF-8', clause: `LC_COLLATE 'C.UTF-8' LC_CTYPE 'C.UTF-8'` },
  { name: 'C', clause: `LOCALE 'C'` },
] as const;

/** Where a URL points, as the pg driver reads it (its database name is decodeURI of the path). */
function target(pg: PgModule, url: string): { name: string; host: string; port: number; user: string } {
  const c = new pg.Client({ connectionString: url }) as Client & {
    database: string;
    host: string;
    port: number;
    user: string;
  };
  return { name: c.database, host: c.host, port: c.port, user: c.user };
}

const shellWord = (w: string) => (/^[A-Za-z0-9_.,:/@%+=-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`);

/**
 * The command an operator runs to make the database the way the gateway would: as the URL's user,
 * or, when that user may not create databases, as `postgres` on its behalf (`--owner`).
 */
export function createdbCommand(pg: PgModule, url: string, onBehalf = false): string {
  const t = target(pg, url);
  const port = t.port === 5432 ? [] : ['-p', String(t.port)];
  const user = onBehalf ? ['-U', 'postgres', `--owner=${t.user}`] : ['-U', t.user];
  return ['createdb', '-h', t.host, ...port, ...user, '--locale=C.UTF-8', '--template=template0', t.name]
    .map(shellWord)
    .join(' ');
}

function missing(pg: PgModule, database: PgDatabase, why: string, onBehalf = false): AppError {
  const how = onBehalf ? 'create it as a user with the CREATEDB right' : 'create it with';
  return new AppError(
    'DATABASE_MISSING',
    `database ${JSON.stringify(target(pg, database.url).name)} does not exist${why}; ${how}: ${createdbCommand(pg, database.url, onBehalf)}`,
  );
}

/**
 * Creates the database `database.url` names, which the server said does not exist: connected to
 * the server's `postgres` database with the same credentials, as `CREATE DATABASE` from template0
 * in UTF8 with a code-point collation (createDatabase). Resolves to the line to log, or undefined when another
 * process created it at the same moment. Refused (DATABASE_MISSING, naming the createdb
 * command to run) when `database.create` is off (production's default, docs/operations.md) or
 * when the server does not let this user create it.
 */
export async function createMissingDatabase(pg: PgModule, database: PgDatabase): Promise<string | undefined> {
  if (!database.create) throw missing(pg, database, ' (DATABASE_CREATE=true lets the gateway create it)');
  const { name } = target(pg, database.url);
  // PostgreSQL would cut a longer name to 63 bytes and create a database nobody asked for
  if (name.includes('\0') || Buffer.byteLength(name) > 63)
    throw missing(pg, database, ': a database name is at most 63 bytes, without NUL');
  const maintenance = new URL(database.url);
  maintenance.pathname = name === 'postgres' ? '/template1' : '/postgres';
  const client = new pg.Client({ connectionString: maintenance.toString(), connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
    const locale = await createDatabase(client, name);
    return (
      locale && `created database ${JSON.stringify(name)} (UTF8, collation ${locale}: text compares by code point)`
    );
  } catch (e) {
    // 42501 insufficient_privilege: this user lacks CREATEDB
    throw missing(
      pg,
      database,
      ` and creating it failed (${(e as Error).message})`,
      (e as { code?: string }).code === '42501',
    );
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * CREATE DATABASE with the first of LOCALES the server has: the collation it got, or undefined if
 * another process created the database first. LOCALE_PROVIDER libc, because a cluster whose
 * template0 uses ICU would otherwise give the new database ICU's linguistic order under a C.UTF-8
 * name; PostgreSQL before 15 has libc alone and no such option.
 */
async function createDatabase(client: Client, name: string): Promise<string | undefined> {
  let provider = 'LOCALE_PROVIDER libc ';
  for (let i = 0; i < LOCALES.length; ) {
    try {
      // the name is one quoted identifier (escapeIdentifier doubles its quotes): never SQL of its own
      await client.query(
        `CREATE DATABASE ${client.escapeIdentifier(name)} TEMPLATE template0 ENCODING 'UTF8' ${provider}${LOCALES[i]!.clause}`,
      );
      return LOCALES[i]!.name;
    } catch (e) {
      const { code, message } = e as { code?: string; message: string };
      if (code === '42P04') return undefined; // duplicate_database
      if (provider && /"locale_provider" not recognized/i.test(message)) provider = '';
      else if (i < LOCALES.length - 1 && /locale/i.test(message)) i++;
      else throw e;
    }
  }
  return undefined;
}
