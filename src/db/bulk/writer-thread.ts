import { Worker } from 'node:worker_threads';

/** One upsert batch for sqlite-writer.cjs: its statements and its rows' values, `width` per row. */
export interface SqliteBatch {
  file: string;
  insertSql: string;
  updateSql: string | undefined;
  width: number;
  setAt: number[];
  keyAt: number[];
  diffAt: number[];
  values: unknown[];
}

export interface SqliteReply {
  id: number;
  inserted: number;
  updated: number;
  unchanged: number;
  wasInserted: Uint8Array;
  error?: { message: string; code?: string };
}

interface Running {
  worker: Worker;
  pending: Map<number, { resolve(r: SqliteReply): void; reject(e: Error): void }>;
}

/**
 * The thread that writes a Db's SQLite upsert batches (sqlite-writer.cjs). A Db owns one
 * (Db.driver.writer()); its thread starts with the first batch, and again after it died, and stops
 * when the Db closes. It keeps the process alive only while a batch is in flight; batches queue up
 * in it and run one after the other.
 */
export class SqliteWriterThread {
  #running: Running | undefined;
  #nextId = 1;

  run(batch: SqliteBatch): Promise<SqliteReply> {
    const running = (this.#running ??= this.#start());
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      running.pending.set(id, { resolve, reject });
      running.worker.ref();
      running.worker.postMessage({ id, ...batch });
    });
  }

  /** Stops the thread; batches still in flight fail. */
  async close(): Promise<void> {
    const running = this.#running;
    if (running) await running.worker.terminate();
  }

  #start(): Running {
    const worker = new Worker(new URL('./sqlite-writer.cjs', import.meta.url));
    worker.unref();
    const running: Running = { worker, pending: new Map() };
    const failAll = (e: Error) => {
      if (this.#running === running) this.#running = undefined;
      for (const p of running.pending.values()) p.reject(e);
      running.pending.clear();
    };
    worker.on('message', (reply: SqliteReply) => {
      const p = running.pending.get(reply.id);
      running.pending.delete(reply.id);
      if (running.pending.size === 0) worker.unref();
      if (!p) return;
      if (reply.error) p.reject(Object.assign(new Error(reply.error.message), { code: reply.error.code }));
      else p.resolve(reply);
    });
    worker.on('error', failAll);
    worker.on('exit', (code) => failAll(new Error(`the SQLite writer thread exited (code ${code})`)));
    return running;
  }
}
