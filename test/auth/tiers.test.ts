import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { isObjectType } from 'graphql';
import { ROOT } from '../../src/config.js';
import { ENTITLEMENTS, lowestTierWith, tierSummary, TIERS, type Resource } from '../../src/domain/entitlements.js';
import { MANIFESTS } from '../../src/resources/index.js';
import { schema } from '../../src/schema/index.js';
import { expectSessionCookies, gqlRequest } from './helpers.js';
import { graphqlHarness, type GraphQLHarness } from '../graphql/helpers.js';
import { testDatabases } from '../helpers.js';

const FREE = { 'x-api-key': 'demo-free' };
const PRO = { 'x-api-key': 'demo-pro' };
const NEEDS_PRO = (resource: string) => `${resource} needs the pro tier or higher; this caller's tier is free`;
const AUTH_REQUIRED = /^authentication required: send an API key/;

/** One coded field error at `path`. */
function fieldError(path: (string | number)[], code: string, message: string | RegExp) {
  return {
    message: typeof message === 'string' ? message : expect.stringMatching(message),
    path,
    locations: expect.any(Array),
    extensions: { code },
  };
}

describe('entitlements table (docs/security.md)', () => {
  it('docs/graphql.md’s tier table names, per tier, what it adds and every field that needs it', () => {
    const fieldsOf = new Map<Resource, string[]>();
    for (const type of Object.values(schema.getTypeMap())) {
      if (!isObjectType(type) || type.name.startsWith('__')) continue;
      for (const field of Object.values(type.getFields())) {
        const resource = (field.extensions.pothosOptions as { authScopes?: { entitled?: Resource } } | undefined)
          ?.authScopes?.entitled;
        if (resource) fieldsOf.set(resource, [...(fieldsOf.get(resource) ?? []), `${type.name}.${field.name}`]);
      }
    }
    const doc = fs.readFileSync(path.join(ROOT, 'docs/graphql.md'), 'utf8');
    for (const tier of TIERS) {
      const row = doc.split('\n').find((line) => line.startsWith(`| ${tier} |`));
      const [, , adds, fields] = row?.split('|').map((c) => c.trim()) ?? [];
      expect(adds, tier).toBe(tierSummary(tier));
      const needed = [...fieldsOf].filter(([r]) => lowestTierWith(r) === tier).flatMap(([, f]) => f);
      expect([...(fields ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1]).sort(), tier).toEqual(needed.sort());
    }
  });

  it('free < pro < enterprise: each tier has what the manifests give it and every tier below', () => {
    for (const resource of MANIFESTS) {
      for (const entitlement of resource.entitlements) {
        for (const tier of TIERS) {
          const included = TIERS.indexOf(tier) >= TIERS.indexOf(entitlement.tier);
          expect(ENTITLEMENTS[tier].has(entitlement.name as Resource), `${tier} has ${entitlement.name}`).toBe(
            included,
          );
        }
      }
    }
    expect(ENTITLEMENTS.enterprise.size).toBe(MANIFESTS.flatMap((r) => r.entitlements).length);
    expect(lowestTierWith('trades')).toBe('pro');
    expect(lowestTierWith('ocr')).toBe('enterprise');
    expect(lowestTierWith('ratings')).toBe('free');
  });
});

describe.each(testDatabases())('licensing tiers in the graph on $name', (tdb) => {
  let h: GraphQLHarness;
  let tradeId: string;
  let pressReleaseId: string;
  beforeAll(async () => {
    h = await graphqlHarness(tdb, { LOGIN_LIMIT_PER_EMAIL: '1000' });
    const ids = await gqlRequest(
      h.app,
      '{ trades(symbol: "NVLX", first: 1) { nodes { id } } pressReleases(first: 1) { nodes { id } } }',
      PRO,
    );
    tradeId = ids.body.data.trades.nodes[0].id;
    pressReleaseId = ids.body.data.pressReleases.nodes[0].id;
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  it('free: trades is FORBIDDEN naming the pro tier, while ratings in the same query still answers', async () => {
    const r = await gqlRequest(
      h.app,
      '{ trades(symbol: "NVLX") { nodes { price } } ratings(first: 1) { nodes { firm } } }',
      FREE,
    );
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      data: { trades: null, ratings: { nodes: [{ firm: expect.any(String) }] } },
      errors: [fieldError(['trades'], 'FORBIDDEN', NEEDS_PRO('trades'))],
    });
  });

  it('pro: the same query answers both', async () => {
    const r = await gqlRequest(
      h.app,
      '{ trades(symbol: "NVLX") { nodes { price } } ratings(first: 1) { nodes { firm } } }',
      PRO,
    );
    expect(r.status).toBe(200);
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.trades.nodes.length).toBeGreaterThan(0);
    expect(r.body.data.trades.nodes[0]).toEqual({ price: expect.any(Number) });
    expect(r.body.data.ratings.nodes).toEqual([{ firm: expect.any(String) }]);
  });

  it('free: security { trades latestTrade } is FORBIDDEN while the security itself answers', async () => {
    const q =
      '{ security(symbol: "NVLX") { symbol trades(first: 1) { nodes { price } } latestTrade { price } ratings(first: 1) { nodes { firm } } } }';
    const r = await gqlRequest(h.app, q, FREE);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({
      security: { symbol: 'NVLX', trades: null, latestTrade: null, ratings: { nodes: [{ firm: expect.any(String) }] } },
    });
    expect(r.body.errors).toEqual([
      fieldError(['security', 'trades'], 'FORBIDDEN', NEEDS_PRO('trades')),
      fieldError(['security', 'latestTrade'], 'FORBIDDEN', NEEDS_PRO('trades')),
    ]);
    const pro = await gqlRequest(h.app, q, PRO);
    expect(pro.body.errors).toBeUndefined();
    expect(pro.body.data.security.trades.nodes).toHaveLength(1);
    expect(pro.body.data.security.latestTrade).toEqual({ price: expect.any(Number) });
  });

  it('free: news { associatedPressReleases } is FORBIDDEN per item while the news answers', async () => {
    const q =
      '{ news(symbol: "NVLX", first: 2) { nodes { headline associatedPressReleaseIds associatedPressReleases { headline } } } }';
    const r = await gqlRequest(h.app, q, FREE);
    expect(r.status).toBe(200);
    const nodes = r.body.data.news.nodes;
    expect(nodes).toHaveLength(2);
    for (const n of nodes) {
      expect(n).toEqual({
        headline: expect.any(String),
        associatedPressReleaseIds: expect.any(Array),
        associatedPressReleases: null,
      });
    }
    expect(r.body.errors).toEqual(
      [0, 1].map((i) =>
        fieldError(['news', 'nodes', i, 'associatedPressReleases'], 'FORBIDDEN', NEEDS_PRO('pressReleases')),
      ),
    );
    const pro = await gqlRequest(h.app, q, PRO);
    expect(pro.body.errors).toBeUndefined();
    expect(pro.body.data.news.nodes[0].associatedPressReleases.length).toBeGreaterThan(0);
  });

  it('free: node(id) of a Trade or a PressRelease is FORBIDDEN; pro gets the record', async () => {
    for (const [id, type, resource] of [
      [tradeId, 'Trade', 'trades'],
      [pressReleaseId, 'PressRelease', 'pressReleases'],
    ] as const) {
      const q = `{ node(id: "${id}") { __typename id } }`;
      const r = await gqlRequest(h.app, q, FREE);
      expect(r.status).toBe(200);
      // checked on the id's type before any lookup: not even __typename says whether the record exists
      expect(r.body).toEqual({
        data: { node: null },
        errors: [fieldError(['node'], 'FORBIDDEN', NEEDS_PRO(resource))],
      });
      const nodes = await gqlRequest(h.app, `{ nodes(ids: ["${id}"]) { id } }`, FREE);
      expect(nodes.body.data).toEqual({ nodes: [null] });
      expect(nodes.body.errors).toEqual([fieldError(['nodes', 0], 'FORBIDDEN', NEEDS_PRO(resource))]);
      const fragment = await gqlRequest(
        h.app,
        `{ node(id: "${id}") { ... on ${type} { createdAtOrTime: __typename } ... on ${type} { id } } }`,
        FREE,
      );
      expect(fragment.body.data).toEqual({ node: null });
      const pro = await gqlRequest(h.app, q, PRO);
      expect(pro.body).toEqual({ data: { node: { __typename: type, id } } });
    }
  });

  it('without credentials: UNAUTHENTICATED on data fields, me is null, serviceInfo answers', async () => {
    const r = await gqlRequest(
      h.app,
      '{ trades(symbol: "NVLX") { nodes { price } } ratings(first: 1) { nodes { firm } } me { email } serviceInfo { version } }',
    );
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({
      trades: null,
      ratings: null,
      me: null,
      serviceInfo: { version: expect.any(String) },
    });
    expect(r.body.errors).toEqual([
      fieldError(['trades'], 'UNAUTHENTICATED', AUTH_REQUIRED),
      fieldError(['ratings'], 'UNAUTHENTICATED', AUTH_REQUIRED),
    ]);
    const node = await gqlRequest(h.app, `{ node(id: "${tradeId}") { id } }`);
    expect(node.body).toEqual({
      data: { node: null },
      errors: [fieldError(['node'], 'UNAUTHENTICATED', AUTH_REQUIRED)],
    });
    const keys = await gqlRequest(h.app, '{ apiKeys { keyId } }');
    expect(keys.body.errors).toEqual([fieldError(['apiKeys'], 'UNAUTHENTICATED', AUTH_REQUIRED)]);
  });

  it('the login mutation works without credentials, and its cookie then carries the tier', async () => {
    const r = await gqlRequest(
      h.app,
      'mutation { login(email: "free@example.com", password: "demo-password") { message expiresIn me { email tier } } }',
    );
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      data: {
        login: { message: 'login successful', expiresIn: 3600, me: { email: 'free@example.com', tier: 'FREE' } },
      },
    });
    const { access } = expectSessionCookies(r.res);
    const trades = await gqlRequest(h.app, '{ trades(symbol: "NVLX") { nodes { price } } }', {
      cookie: `DT_AUTH_TOKEN=${access}`,
    });
    expect(trades.body).toEqual({
      data: { trades: null },
      errors: [fieldError(['trades'], 'FORBIDDEN', NEEDS_PRO('trades'))],
    });
  });
});
