// The SQLite side of bulkUpsert (db/bulk/sqlite.ts), on a thread of its own: SQLite runs a batch
// synchronously, so on the main thread an import could not parse its next batch meanwhile; here
// it can, and a load runs about as fast as the slower of the two. Plain CommonJS: a worker thread
// does not get the TypeScript loader. One message is one batch in one transaction.
'use strict';
const { parentPort } = require('node:worker_threads');
const Database = require('libsql');

/** Connections by database file, closed after a while unused (tests make many files). */
const connections = new Map();
const IDLE_MS = 5_000;

function connection(file) {
  let c = connections.get(file);
  if (!c) {
    // timeout: wait for another writer's lock (a second import, a seed) as the app's connections do
    const conn = new Database(file, { timeout: 10_000 });
    // In WAL mode (migrate sets it) a commit without fsync survives a killed process, and only a
    // power loss can take back the last batches, never leaving the file inconsistent; a rerun of
    // the import restores them. Saves a sync per batch.
    const mode = conn.prepare('PRAGMA journal_mode').get();
    if (String(mode && mode.journal_mode).toLowerCase() === 'wal') conn.exec('PRAGMA synchronous = NORMAL');
    c = { conn, timer: undefined };
    connections.set(file, c);
  }
  clearTimeout(c.timer);
  c.timer = setTimeout(() => {
    connections.delete(file);
    c.conn.close();
  }, IDLE_MS);
  c.timer.unref();
  return c.conn;
}

/**
 * Per row, `INSERT ... ON CONFLICT DO NOTHING`; when it changed nothing the key exists, and
 * `UPDATE ... WHERE <key> AND <a value differs>` changes one row or none: exact counts.
 * `values` holds the rows one after the other, `width` values each, in the INSERT's column order;
 * the UPDATE takes the values at `setAt`, then `keyAt`, then `diffAt`.
 */
function upsert({ file, insertSql, updateSql, width, setAt, keyAt, diffAt, values }) {
  const conn = connection(file);
  const insert = conn.prepare(insertSql);
  const update = updateSql ? conn.prepare(updateSql) : undefined;
  const rows = values.length / width;
  const wasInserted = new Uint8Array(rows);
  const row = new Array(width);
  const changed = new Array(setAt.length + keyAt.length + diffAt.length);
  let inserted = 0;
  let updated = 0;
  let unchanged = 0;
  conn
    .transaction(() => {
      for (let r = 0; r < rows; r++) {
        const base = r * width;
        for (let i = 0; i < width; i++) row[i] = values[base + i];
        // one array argument: libsql binds it as is (a spread would be copied and flattened)
        if (insert.run(row).changes > 0) {
          wasInserted[r] = 1;
          inserted++;
          continue;
        }
        let j = 0;
        for (const i of setAt) changed[j++] = row[i];
        for (const i of keyAt) changed[j++] = row[i];
        for (const i of diffAt) changed[j++] = row[i];
        if (update && update.run(changed).changes > 0) updated++;
        else unchanged++;
      }
    })
    .immediate();
  return { inserted, updated, unchanged, wasInserted };
}

parentPort.on('message', (message) => {
  try {
    const result = upsert(message);
    parentPort.postMessage({ id: message.id, ...result }, [result.wasInserted.buffer]);
  } catch (e) {
    parentPort.postMessage({ id: message.id, error: { message: String((e && e.message) || e), code: e && e.code } });
  }
});
