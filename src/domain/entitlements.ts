import { AppError } from '../errors.js';
import type { Tier } from '../../generated/prisma/enums.js';
import { RESOURCES as RESOURCE_MANIFESTS, type AccessResource } from '../resources/index.js';

/** Every licensing tier, from the least to the most entitled. */
export const TIERS: readonly Tier[] = ['free', 'pro', 'enterprise'];

/**
 * What a tier may be entitled to, each declared by its resource's manifest (resources/<noun>.ts),
 * in the order the price list names them (docs/security.md#authentication).
 */
const LISTED = RESOURCE_MANIFESTS.flatMap((r) => r.entitlements).sort((a, b) => a.listed - b.listed);
export type Resource = AccessResource;
export const RESOURCES = LISTED.map((e) => e.name as Resource);

/**
 * What each licensing tier may use (docs/security.md#authentication): each resource's own tier and
 * every tier above it. The one place to change entitlements is a resource's manifest: GraphQL
 * fields and REST routes both ask `checkEntitled`.
 */
export const ENTITLEMENTS: Readonly<Record<Tier, ReadonlySet<Resource>>> = Object.fromEntries(
  TIERS.map((tier, i) => [
    tier,
    new Set(LISTED.filter((e) => TIERS.indexOf(e.tier) <= i).map((e) => e.name as Resource)),
  ]),
) as unknown as Record<Tier, ReadonlySet<Resource>>;

/** How the docs and the schema name each resource. */
const RESOURCE_NAMES: Readonly<Record<string, string>> = Object.fromEntries(LISTED.map((e) => [e.name, e.words]));

/**
 * Record types whose resource not every tier has, by GraphQL type name: node(id) checks them by
 * the id's type name.
 */
export const GUARDED_TYPES: ReadonlyMap<string, Resource> = new Map(
  LISTED.filter((e) => e.tier !== TIERS[0]).flatMap((e) => e.types.map((t) => [t, e.name as Resource] as const)),
);

/** What a tier adds to the one below it, in words ("Pro, plus OCR."): read from ENTITLEMENTS, never written twice. */
export function tierSummary(tier: Tier): string {
  const below = TIERS[TIERS.indexOf(tier) - 1];
  const added = RESOURCES.filter((r) => ENTITLEMENTS[tier].has(r) && !(below && ENTITLEMENTS[below].has(r))).map(
    (r) => RESOURCE_NAMES[r],
  );
  const list = added.length > 1 ? `${added.slice(0, -1).join(', ')} and ${added.at(-1)}` : added.join('');
  if (!below) return `${list[0]!.toUpperCase()}${list.slice(1)}.`;
  return `${below[0]!.toUpperCase()}${below.slice(1)}, plus ${list}.`;
}

export function lowestTierWith(resource: Resource): Tier {
  return TIERS.find((t) => ENTITLEMENTS[t].has(resource))!;
}

export function isEntitled(tier: Tier, resource: Resource): boolean {
  return ENTITLEMENTS[tier].has(resource);
}

export const AUTHENTICATION_REQUIRED =
  'authentication required: send an API key (apikey or apiKey query parameter, X-API-Key header, or Authorization: Bearer), an Authorization: Bearer access token, or the DT_AUTH_TOKEN cookie';

export function checkAuthenticated<C>(caller: C | null): asserts caller is C {
  if (!caller) throw new AppError('UNAUTHENTICATED', AUTHENTICATION_REQUIRED);
}

/**
 * Key management (listing, creating, revoking API keys) is for a person logged in: an access token
 * (Bearer or the cookie). A key cannot mint keys that outlive its own revocation, nor revoke others.
 */
export function checkSession(caller: { via: 'apikey' | 'bearer' | 'cookie' } | null): void {
  checkAuthenticated(caller);
  if (caller.via === 'apikey') {
    throw new AppError(
      'FORBIDDEN',
      'managing API keys needs a logged-in session, not an API key: log in (POST /kms/api/v1/auth/token or the login mutation) and send the access token (Authorization: Bearer) or the DT_AUTH_TOKEN cookie',
    );
  }
}

/** Throws UNAUTHENTICATED without a caller, FORBIDDEN (naming the tier needed) without the entitlement. */
export function checkEntitled(caller: { tier: Tier } | null, resource: Resource): void {
  checkAuthenticated(caller);
  if (!isEntitled(caller.tier, resource)) {
    throw new AppError(
      'FORBIDDEN',
      `${resource} needs the ${lowestTierWith(resource)} tier or higher; this caller's tier is ${caller.tier}`,
    );
  }
}
