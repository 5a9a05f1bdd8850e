// Creates a new migration from the current Prisma schema:
//   npm run migrate:create -- <name>
// The Prisma CLI cannot do this offline (it downloads a native schema engine), so this drives
// Prisma's own schema engine compiled to WebAssembly (@prisma/schema-engine-wasm, pinned exactly:
// its API is internal) through the driver adapters. Output is what `prisma migrate dev` writes:
// prisma/migrations/<timestamp>_<name>/migration.sql. It needs a server on which it creates and
// drops two scratch databases: MIGRATE_PG_URL (a maintenance database's URL), else the embedded
// cluster of the data directory (db/embedded.ts), started for the while.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import * as runtime from '@prisma/schema-engine-wasm/schema_engine_bg';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { openCluster } from '../src/db/embedded.js';

const require = createRequire(import.meta.url);
const name = process.argv[2];
if (!name || !/^[a-z0-9_]+$/.test(name)) {
  console.error('usage: npm run migrate:create -- <name>   (name: lower-case letters, digits, _)');
  process.exit(2);
}
const timestamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);

let wasmLoaded = false;
function loadWasm() {
  if (wasmLoaded) return;
  const wasmPath = path.join(
    path.dirname(require.resolve('@prisma/schema-engine-wasm/schema_engine_bg')),
    'schema_engine_bg.wasm',
  );
  const instance = new WebAssembly.Instance(new WebAssembly.Module(fs.readFileSync(wasmPath)), {
    './schema_engine_bg.js': runtime as unknown as WebAssembly.ModuleImports,
  });
  (runtime as any).__wbg_set_wasm(instance.exports);
  (instance.exports as any).__wbindgen_start?.();
  wasmLoaded = true;
}

function migrationsList(dir: string) {
  const dirs = fs.existsSync(dir)
    ? fs
        .readdirSync(dir, { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => d.name)
        .sort()
    : [];
  const lockPath = path.join(dir, 'migration_lock.toml');
  return {
    baseDir: dir,
    lockfile: {
      path: 'migration_lock.toml',
      content: fs.existsSync(lockPath) ? fs.readFileSync(lockPath, 'utf8') : null,
    },
    shadowDbInitScript: '',
    migrationDirectories: dirs.map((d) => ({
      path: d,
      migrationFile: {
        path: 'migration.sql',
        content: { tag: 'ok' as const, value: fs.readFileSync(path.join(dir, d, 'migration.sql'), 'utf8') },
      },
    })),
  };
}

// Workaround: the engine replays whole multi-statement migration scripts on the shadow database
// through executeRaw, which runs only one statement; route argument-less calls to executeScript.
function scriptAwareShadow(factory: any) {
  return {
    provider: factory.provider,
    adapterName: factory.adapterName,
    connect: () => factory.connect(),
    connectToShadowDb: async () => {
      const a = await factory.connectToShadowDb();
      const orig = a.executeRaw.bind(a);
      a.executeRaw = async (q: any) => (q.args?.length ? orig(q) : (await a.executeScript(q.sql), 0));
      return a;
    },
  };
}

// Workaround: adapter-pg's executeScript splits a script at every ";", comments and quoted text
// included (prisma/migrations/20261127154456_search_engine has both); the simple query protocol
// runs a whole script of many statements as it is.
function wholeScripts(adapter: any) {
  adapter.executeScript = async (script: string) => {
    try {
      await adapter.client.query(script);
    } catch (error) {
      adapter.onError(error);
    }
  };
  return adapter;
}

// Workaround: adapter-pg cannot read pg_catalog "char" columns (OID 18); report them as text.
function patchPgCharColumns(adapter: any) {
  let proto = Object.getPrototypeOf(adapter);
  while (proto && !Object.hasOwn(proto, 'performIO')) proto = Object.getPrototypeOf(proto);
  if (!proto || proto.__charPatched) return adapter;
  const orig = proto.performIO;
  proto.performIO = async function (q: unknown, ...rest: unknown[]) {
    const r = await orig.call(this, q, ...rest);
    for (const f of r?.fields ?? []) if (f.dataTypeID === 18) f.dataTypeID = 25;
    return r;
  };
  proto.__charPatched = true;
  return adapter;
}

async function createFor(provider: 'postgresql', schemaPath: string, migrationsDir: string, factory: any) {
  loadWasm();
  const schemaContent = fs.readFileSync(schemaPath, 'utf8');
  const bound = bindMigrationAwareSqlAdapterFactory(scriptAwareShadow(factory) as any);
  const engine = await (runtime as any).SchemaEngine.new(
    { datamodels: [[schemaPath, schemaContent]] },
    (msg: string) => {
      if (process.env.DEBUG_SE) console.error('[schema-engine]', msg);
    },
    bound,
  );
  const filters = { externalTables: [], externalEnums: [] };
  const schema = { files: [{ path: schemaPath, content: schemaContent }] };
  try {
    await engine.applyMigrations({ migrationsList: migrationsList(migrationsDir), filters });
    // createMigration fails ("shadow DB must be provided through an external factory") unless
    // devDiagnostic has run first and set up the shadow database connection.
    await engine.devDiagnostic({ migrationsList: migrationsList(migrationsDir), filters });
    const out = await engine.createMigration({
      draft: false,
      migrationName: name,
      migrationsList: migrationsList(migrationsDir),
      schema,
      filters,
    });
    if (!out.migrationScript) {
      console.log(`${provider}: no changes`);
      return;
    }
    const dir = path.join(migrationsDir, `${timestamp}_${name}`);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'migration.sql'), out.migrationScript);
    const lock = path.join(migrationsDir, 'migration_lock.toml');
    if (!fs.existsSync(lock)) {
      fs.writeFileSync(
        lock,
        `# Please do not edit this file manually\n# It should be added in your version-control system (e.g., Git)\nprovider = "${provider}"\n`,
      );
    }
    await engine.applyMigrations({ migrationsList: migrationsList(migrationsDir), filters });
    console.log(`${provider}: wrote ${path.relative(process.cwd(), dir)}/migration.sql`);
  } catch (e: any) {
    const m = /External error id#(\d+)/.exec(String(e?.message));
    console.error(`${provider}: ${String(e?.message ?? e).split('\n')[0]}`);
    if (m) console.error('adapter error:', (bound as any).errorRegistry.consumeError(Number(m[1])));
    process.exitCode = 1;
  }
}

const root = process.cwd();
const cluster = process.env.MIGRATE_PG_URL
  ? undefined
  : await openCluster({ embedded: loadConfig().dataDir }, console.error);
const admin = new URL(process.env.MIGRATE_PG_URL ?? cluster!.database.url);
admin.pathname = process.env.MIGRATE_PG_URL ? admin.pathname : '/postgres';
const cfg = {
  host: admin.hostname,
  port: Number(admin.port || 5432),
  user: decodeURIComponent(admin.username),
  password: decodeURIComponent(admin.password) || undefined,
};
const adminClient = new pg.Client({ ...cfg, database: admin.pathname.slice(1) || 'postgres' });
await adminClient.connect();
const mainDb = `migrate_main_${timestamp}`;
const shadowDb = `migrate_shadow_${timestamp}`;
await adminClient.query(`CREATE DATABASE "${mainDb}"`);
try {
  const main = new PrismaPg({ ...cfg, database: mainDb });
  await createFor('postgresql', path.join(root, 'prisma/schema.prisma'), path.join(root, 'prisma/migrations'), {
    provider: main.provider,
    adapterName: main.adapterName,
    connect: async () => wholeScripts(patchPgCharColumns(await main.connect())),
    // our own shadow database: adapter-pg drops its own while its pool is still connected
    connectToShadowDb: async () => {
      await adminClient.query(`DROP DATABASE IF EXISTS "${shadowDb}"`);
      await adminClient.query(`CREATE DATABASE "${shadowDb}"`);
      const a: any = wholeScripts(patchPgCharColumns(await new PrismaPg({ ...cfg, database: shadowDb }).connect()));
      const dispose = a.dispose.bind(a);
      a.dispose = async () => {
        await dispose();
        await adminClient.query(`DROP DATABASE IF EXISTS "${shadowDb}"`);
      };
      return a;
    },
  });
} finally {
  await adminClient.query(`DROP DATABASE IF EXISTS "${mainDb}" WITH (FORCE)`);
  await adminClient.query(`DROP DATABASE IF EXISTS "${shadowDb}" WITH (FORCE)`);
  await adminClient.end();
  await cluster?.release();
}
process.exit(process.exitCode ?? 0); // the pg pool inside the engine would keep the process alive
