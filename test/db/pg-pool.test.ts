// What the pipelined connections write for a request's statement_timeout (db/pg-pool.ts): nothing
// more on the hot path, where a request's reads come early in its life; one SET, in pipeline order,
// for a read late in a slow request, and one back for the next read. A fake client records what is sent.
import type { Client, QueryConfig } from 'pg';
import { describe, expect, it } from 'vitest';
import { PipelinedConnections } from '../../src/db/pg-pool.js';
import { Deadline } from '../../src/runtime/deadline.js';

function fakeClient(sent: string[]): Client {
  return {
    connect: async () => {},
    on: () => {},
    end: async () => {},
    query: async (q: string | QueryConfig) => {
      sent.push(typeof q === 'string' ? q : q.text);
      return { rows: [], fields: [] };
    },
  } as unknown as Client;
}

describe('a request statement_timeout on pipelined connections', () => {
  it('sends no SET while a statement runs under the connection’s own timeout, and one SET each way otherwise', async () => {
    const sent: string[] = [];
    const reads = new PipelinedConnections(() => fakeClient(sent), 1, 10_000);
    await reads.query({ text: 'SELECT 1' });
    await reads.query({ text: 'SELECT 2' }, 10_000);
    expect(sent).toEqual(['SELECT 1', 'SELECT 2']);
    await reads.query({ text: 'SELECT 3' }, 3_000);
    await reads.query({ text: 'SELECT 4' }, 3_000);
    await reads.query({ text: 'SELECT 5' });
    expect(sent.slice(2)).toEqual([
      'SET statement_timeout = 3000',
      'SELECT 3',
      'SELECT 4',
      'SET statement_timeout = 10000',
      'SELECT 5',
    ]);
    await reads.end();
  });

  it('a fresh request’s statements ask for the whole budget, the connections’ own value; work of no request for theirs', () => {
    expect(new Deadline(10_000).statementTimeoutMs()).toBe(10_000);
    expect(new Deadline(1).statementTimeoutMs()).toBe(1);
    expect(new Deadline(Infinity).statementTimeoutMs()).toBeUndefined();
  });
});
