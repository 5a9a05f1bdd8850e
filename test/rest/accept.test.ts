// What the REST routes accept (docs/rest.md#what-the-routes-accept), held to every route of the
// table rather than to a list written here: a cache-buster, enum values and booleans in another
// case, every form of every date or time parameter, aliases, a cursor with its own parameters, and
// a wrong method. Each is answered as the canonical request is, and X-Ignored-Parameters names
// exactly what was set aside.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ParamSpec } from '../../src/rest/params.js';
import type { Route } from '../../src/rest/route.js';
import { routes } from '../../src/rest/routes.js';
import { graphqlHarness, type GraphQLHarness } from '../graphql/helpers.js';
import { testDatabases } from '../helpers.js';
import {
  answer,
  baseParams,
  DAY_MS,
  instantForms,
  nanos,
  type Params,
  paramsOf,
  pathOf,
  recordsOf,
  splitPoint,
  target,
  VALUES,
} from './accept-helpers.js';
import { expectBadParam, rest } from './helpers.js';

const GET_ROUTES = routes.filter((r) => r.method === 'GET');
/** The routes of a resource: they answer records (validate answers who is calling). */
const RECORD_ROUTES = GET_ROUTES.filter((r) => r.access !== 'public' && r.access !== 'authenticated');
const named = (rs: readonly Route[]) => rs.map((r) => [`GET ${r.path}`, r] as const);
const isTimed = (spec: ParamSpec) => spec.type === 'string' && spec.format !== undefined;
const TIMED_ROUTES = RECORD_ROUTES.filter((r) => paramsOf(r).some(([, s]) => isTimed(s)));
const CURSOR_ROUTES = RECORD_ROUTES.filter((r) => paramsOf(r).some(([name]) => name === 'cursor'));
const swapCase = (v: string) => (v === v.toUpperCase() ? v.toLowerCase() : v.toUpperCase());

describe.each(testDatabases())('what every REST route accepts on $name', (tdb) => {
  let h: GraphQLHarness;
  beforeAll(async () => {
    h = await graphqlHarness(tdb);
    // the sample has two splits: a few more, so that a cursor has pages to continue
    await h.db.prisma.split.createMany({
      data: ['AAA', 'BBB', 'NVLX', 'ZZZ'].map((ticker, i) => ({
        id: `T-${i}`,
        ticker,
        executionDate: `202${i}-03-02`,
        splitFrom: 1,
        splitTo: 3,
      })),
    });
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  const get = (route: Route, params: Params | [string, string][]) => rest(h, target(route, params));

  /** `params` answers exactly as `canonical` does, setting aside nothing (or exactly `ignored`). */
  async function expectSame(route: Route, params: Params | [string, string][], canonical: Params, ignored?: string) {
    const [r, want] = await Promise.all([get(route, params), get(route, canonical)]);
    const shown = target(route, params);
    expect(r.status, `${shown}: ${JSON.stringify(r.body).slice(0, 300)}`).toBe(200);
    expect(answer(r), shown).toEqual(answer(want));
    const names = r.headers.get('x-ignored-parameters');
    expect(names?.split(', ').sort().join(', ') ?? null, shown).toBe(ignored ?? null);
    if (want.body?.next_url) {
      const [after, wantAfter] = await Promise.all([rest(h, r.body.next_url), rest(h, want.body.next_url)]);
      expect(answer(after), `the page after ${shown}`).toEqual(answer(wantAfter));
    }
    return want;
  }

  it('walks every kind of parameter the table has', () => {
    const all = RECORD_ROUTES.flatMap(paramsOf);
    expect(RECORD_ROUTES.length).toBeGreaterThanOrEqual(12);
    expect(all.filter(([, s]) => s.type === 'string' && s.enum).length).toBeGreaterThanOrEqual(8);
    expect(all.filter(([, s]) => isTimed(s)).length).toBeGreaterThanOrEqual(15);
    expect(all.filter(([, s]) => s.aliases?.length).length).toBeGreaterThanOrEqual(6);
    expect(CURSOR_ROUTES.length).toBeGreaterThanOrEqual(3);
  });

  it.each(named(GET_ROUTES))('%s: a cache-buster is set aside and named; the answer is the same', async (_n, route) => {
    const base = baseParams(route);
    const want = await expectSame(route, { ...base, _: '1700000000' }, base, '_');
    if (RECORD_ROUTES.includes(route)) expect(recordsOf(want.body).length, route.path).toBeGreaterThan(0);
    // given twice, or empty, an unknown name is set aside all the same, and named once
    await expectSame(route, [...Object.entries(base), ['_', '1'], ['_', '2'], ['x-y', '']], base, '_, x-y');
  });

  it.each(named(GET_ROUTES))('%s: enum values and booleans are read in any case', async (_n, route) => {
    for (const [name, spec] of paramsOf(route)) {
      const values =
        spec.type === 'boolean'
          ? ['true', 'false']
          : spec.type === 'string' && spec.enum
            ? [...spec.enum]
            : spec.type === 'string' && spec.case && (VALUES[name] ?? spec.default)
              ? [VALUES[name] ?? spec.default!]
              : [];
      for (const value of values) {
        const base = { ...baseParams(route), [name]: value };
        await expectSame(route, { ...base, [name]: swapCase(value) }, base);
        await expectSame(route, { ...base, [name]: value[0]!.toUpperCase() + value.slice(1) }, base);
      }
    }
  });

  it.each(named(RECORD_ROUTES))('%s: a parameter answers to each of its aliases', async (_n, route) => {
    for (const [name, spec] of paramsOf(route)) {
      for (const alias of spec.aliases ?? []) {
        const value = VALUES[name];
        if (value === undefined) throw new Error(`no value for ${name}, aliased as ${alias}`);
        const { [name]: _own, ...rest } = baseParams(route);
        const want = await expectSame(route, { ...rest, [alias]: value }, { ...rest, [name]: value });
        expect(recordsOf(want.body).length, `${route.path} ${name}`).toBeGreaterThan(0);
        const both = await get(route, { ...rest, [name]: value, [alias]: value });
        expectBadParam(both, alias);
        expect(both.body.message).toContain(`parameter ${name} and its alias ${alias} are both given`);
      }
    }
  });

  it.each(named(TIMED_ROUTES))('%s: every form of every date or time parameter', async (_n, route) => {
    const base = baseParams(route);
    const all = await get(route, base);
    const { date, instant } = splitPoint(recordsOf(all.body));
    const start = Date.parse(`${date}T00:00:00Z`);
    let narrowed = 0;
    for (const [name, spec] of paramsOf(route)) {
      if (spec.type !== 'string' || !spec.format) continue;
      const at = (value: string) => ({ ...base, [name]: value });
      if (spec.format === 'date') {
        const want = at(date);
        for (const form of [
          `${date} 00:00:00`,
          `${date}T00:00:00Z`,
          `${date}T00:00:00.000+00:00`,
          `${date}T05:30:00+05:30`,
        ])
          await expectSame(route, at(form), want);
        expectBadParam(await get(route, at(`${date}T12:00:00Z`)), name, `${date}T12:00:00Z`);
        if ((await get(route, want)).text !== all.text) narrowed++;
        continue;
      }
      const nanosecond = spec.format === 'time-or-nanos';
      // a date alone: from the start of its day (UTC), or through its end
      const first = nanosecond ? nanos(start) : new Date(start).toISOString();
      const last = nanosecond
        ? (BigInt(nanos(start + DAY_MS)) - 1n).toString()
        : new Date(start + DAY_MS - 1).toISOString();
      const day: Params =
        spec.bound === 'start'
          ? at(first)
          : spec.bound === 'end'
            ? at(last)
            : { ...base, [`${name}.gte`]: first, [`${name}.lte`]: last };
      await expectSame(route, at(date), day);
      // an instant: every form of it, as the plain ISO text or its nanoseconds
      const exact = at(nanosecond ? nanos(instant.getTime()) : instant.toISOString());
      for (const form of instantForms(instant)) await expectSame(route, at(form), exact);
      if ((await get(route, exact)).text !== all.text) narrowed++;
    }
    // the forms were compared on a point that splits the records, not on empty or whole lists only
    expect(narrowed, route.path).toBeGreaterThan(0);
  });

  it.each(named(CURSOR_ROUTES))('%s: a cursor with its own parameters continues its list', async (_n, route) => {
    const specs = Object.fromEntries(paramsOf(route));
    const sizeName = Object.keys(specs).find((n) => {
      const s = specs[n]!;
      return s.type === 'integer' && s.pageSize;
    })!;
    // the first request: a small page, each enum parameter at a value other than its default
    const original: Params = { ...baseParams(route), [sizeName]: '2' };
    for (const [name, spec] of Object.entries(specs))
      if (spec.type === 'string' && spec.enum && spec.enum.length > 1)
        original[name] = spec.enum.find((v) => v !== spec.default)!;
    const first = await get(route, original);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const next: string = first.body.next_url;
    expect(next).toMatch(/\?cursor=[^&]+$/);
    const cursor = new URL(next).searchParams.get('cursor')!;
    const alone = await rest(h, next);
    expect(alone.body.results).toHaveLength(2);

    const resent = Object.keys(original).filter((n) => n !== sizeName);
    const withOriginal = await expectSame(
      route,
      { cursor, ...original },
      { cursor },
      resent.sort().join(', ') || undefined,
    );
    expect(withOriginal.body.next_url).toBe(alone.body.next_url);
    const shouted = Object.fromEntries(Object.entries(original).map(([k, v]) => [k, swapCase(v)]));
    await expectSame(route, { cursor, ...shouted, _: '1' }, { cursor }, [...resent, '_'].sort().join(', '));

    // another page size is honoured: the same list, three at a time
    const three = await get(route, { cursor, [sizeName]: '3' });
    expect(three.body.results.slice(0, 2)).toEqual(alone.body.results);
    expect(three.body.results).toHaveLength(3);
    expect(three.headers.get('x-ignored-parameters')).toBeNull();

    // what would change the answer is refused, naming the parameter
    for (const [name, spec] of Object.entries(specs)) {
      if (spec.type !== 'string' || !spec.enum || spec.enum.length < 2) continue;
      const other = spec.enum.find((v) => v !== original[name])!;
      const r = await get(route, { cursor, [name]: other });
      expectBadParam(r, name, other);
      expect(r.body.message).toContain('contradicts the cursor');
    }
    // a filter the first request did not give (a time, where the list has one)
    const [timed] = Object.entries(specs).find(([, s]) => isTimed(s)) ?? [];
    if (timed !== undefined) {
      const added = await get(route, { cursor, [timed]: '2026-01-02' });
      expectBadParam(added, timed, '2026-01-02');
      expect(added.body.message).toContain("the cursor's list has none");
    }
  });

  it("every path answers a method it does not serve with 405 and Allow listing the table's methods", async () => {
    const paths = [...new Set(routes.map((r) => r.path))];
    for (const path of paths) {
      const served = new Set(routes.filter((r) => r.path === path).map((r) => r.method as string));
      if (served.has('GET')) served.add('HEAD');
      const allow = [...served].sort().join(', ');
      for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].filter((m) => !served.has(m))) {
        const url = `http://test${pathOf(path)}`;
        const res = await h.app.fetch(url, { method, headers: { 'x-api-key': 'demo-enterprise' } });
        const body = await res.json();
        expect(res.status, `${method} ${path}`).toBe(405);
        expect(res.headers.get('allow'), `${method} ${path}`).toBe(allow);
        expect(body).toMatchObject({ status: 'ERROR', code: 'METHOD_NOT_ALLOWED' });
        expect(body.message).toBe(`${method} is not served at ${new URL(url).pathname}; it takes ${allow}`);
      }
    }
    // a path nobody serves stays a 404
    expect((await h.app.fetch('http://test/rating/api/v2/ratings', { method: 'PUT' })).status).toBe(404);
    // the probes the same way
    for (const path of ['/healthz', '/readyz']) {
      const res = await h.app.fetch(`http://test${path}`, { method: 'POST' });
      expect([res.status, res.headers.get('allow')], path).toEqual([405, 'GET, HEAD']);
      expect(await res.json(), path).toMatchObject({
        code: 'METHOD_NOT_ALLOWED',
        message: `POST is not served at ${path}; it takes GET, HEAD`,
      });
    }
    // /graphql the same way, its answer in GraphQL's shape
    for (const method of ['PUT', 'PATCH', 'DELETE']) {
      const res = await h.app.fetch('http://test/graphql', { method, headers: { 'x-api-key': 'demo-enterprise' } });
      expect([res.status, res.headers.get('allow')], method).toEqual([405, 'GET, POST']);
      expect(JSON.stringify(await res.json()), method).toContain('"code":"METHOD_NOT_ALLOWED"');
    }
  });

  it('X-Ignored-Parameters is bounded: names percent-encoded and cut, at most 20 and then how many more', async () => {
    const [ratings] = RECORD_ROUTES.filter((r) => r.path === '/rating/api/v1/ratings');
    const odd = ['a,b', 'x\ny', 'é', '+', 'L'.repeat(60), `${'😀'.repeat(39)}ab`];
    const filler = Array.from({ length: 19 }, (_, i) => `f${i}`);
    const r = await get(ratings!, [
      ...[...odd, ...filler].map((n) => [n, '1'] as [string, string]),
      ['page_size', '1'],
    ]);
    expect(r.status).toBe(200);
    expect(r.body.data).toHaveLength(1);
    const shown = [
      'a%2Cb',
      'x%0Ay',
      '%C3%A9',
      '%2B',
      `${'L'.repeat(40)}%E2%80%A6`,
      `${encodeURIComponent('😀'.repeat(39))}a%E2%80%A6`,
    ];
    expect(r.headers.get('x-ignored-parameters')).toBe([...shown, ...filler.slice(0, 14), '+5'].join(', '));
  });
});
