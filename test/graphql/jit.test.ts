// graphql-jit executes a document from its second run (src/graphql/jit.ts), and only queries and
// mutations whose variables graphql-js accepts. The golden answers (test/app/golden.test.ts) run
// every query twice and compare the bytes; this checks that the second run is in fact jit's.
import { createSchema, createYoga, type Plugin } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import { useJitExecution } from '../../src/graphql/jit.js';

/** A Yoga over a small schema whose results say who executed them: graphql-jit marks its own with `stringify`. */
function server() {
  const executedBy: ('jit' | 'graphql-js')[] = [];
  const witness: Plugin = {
    onExecute: () => ({ onExecuteDone: ({ result }) => void executedBy.push('stringify' in result ? 'jit' : 'graphql-js') }),
  };
  const yoga = createYoga({
    schema: createSchema({
      // F holds itself, as SecurityFilter does through `or`; G holds F
      typeDefs: 'input F { a: Int, or: [F!] } input G { f: F } type Query { hello(name: String!): String! count(f: F, g: G): Int! }',
      resolvers: { Query: { hello: (_: unknown, { name }: { name: string }) => `hello ${name}`, count: (_: unknown, args: unknown) => JSON.stringify(args).length } },
    }),
    plugins: [useJitExecution(), witness],
    logging: false,
  });
  const ask = async (query: string, variables?: unknown) =>
    (await yoga.fetch('http://test/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) })).json();
  return { ask, executedBy };
}

describe('graphql-jit execution', () => {
  it('runs a document by graphql-js the first time and by graphql-jit from then on, with the same answer', async () => {
    const { ask, executedBy } = server();
    const query = 'query Q($n: String!) { hello(name: $n) }';
    const answers = [await ask(query, { n: 'a' }), await ask(query, { n: 'a' }), await ask(query, { n: 'a' })];
    expect(executedBy).toEqual(['graphql-js', 'jit', 'jit']);
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual({ data: { hello: 'hello a' } });
  });

  it('leaves variables graphql-js refuses to graphql-js, which words the error', async () => {
    const { ask, executedBy } = server();
    const query = 'query Q($n: String!) { hello(name: $n) }';
    await ask(query, { n: 'a' });
    const refused = await ask(query, { n: 5 });
    expect(executedBy).toEqual(['graphql-js', 'graphql-js']);
    expect(refused.errors[0].message).toBe('Variable "$n" got invalid value 5; String cannot represent a non string value: 5');
  });

  it('leaves a variable of an input type that holds itself to graphql-js (graphql-jit compiles it until the heap is gone)', async () => {
    const { ask, executedBy } = server();
    for (const [query, variables] of [
      ['query Q($f: F) { count(f: $f) }', { f: { a: 1, or: [{ a: 2, or: [{ a: 3 }] }] } }],
      ['query Q($g: G) { count(g: $g) }', { g: { f: { a: 1 } } }],
    ] as const) {
      const answers = [await ask(query, variables), await ask(query, variables)];
      expect(answers[1], query).toEqual(answers[0]);
      expect(answers[0].data.count).toBeGreaterThan(0);
    }
    expect(executedBy).toEqual(['graphql-js', 'graphql-js', 'graphql-js', 'graphql-js']);
    // a literal of such a type is compiled, and is fine
    await ask('{ count(f: { a: 1, or: [{ a: 2 }] }) }');
    await ask('{ count(f: { a: 1, or: [{ a: 2 }] }) }');
    expect(executedBy.slice(4)).toEqual(['graphql-js', 'jit']);
  });

  it('gives variables their defaults as graphql-js does, a required one left out included', async () => {
    const { ask } = server();
    for (const query of ['query Q($n: String! = "x") { hello(name: $n) }', 'query Q($n: String = "x") { hello(name: $n) }']) {
      const answers = [];
      for (let i = 0; i < 3; i++) answers.push(await ask(query));
      expect(answers, query).toEqual([{ data: { hello: 'hello x' } }, { data: { hello: 'hello x' } }, { data: { hello: 'hello x' } }]);
    }
  });
});
