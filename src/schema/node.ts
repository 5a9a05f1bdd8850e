// Query.node and Query.nodes: any record by its global id. Every id is decoded and checked here
// (a record type of this schema, a key of the form that type issues) before anything is loaded,
// so a malformed one is the client's BAD_USER_INPUT naming the argument, never an internal error.
import { resolveNodes } from '@pothos/plugin-relay';
import { isInterfaceType, type GraphQLResolveInfo, type GraphQLSchema } from 'graphql';
import { checkEntitled, GUARDED_TYPES } from '../domain/entitlements.js';
import { builder } from '../builder.js';
import type { Context } from '../context.js';
import { AppError } from '../errors.js';
import { listOf, NodeIdError } from './common.js';

/** Ids one nodes(ids:) may ask for: each is a lookup of its own. */
export const MAX_NODE_IDS = 100;
/** Longer than any id a record issues (a trade's: ~70 characters). */
const MAX_ID_CHARS = 512;
/** Padded standard base64, as the `id` fields write it. */
const BASE64 = /^(?:[\d+/A-Za-z]{4})*(?:[\d+/A-Za-z]{2}==|[\d+/A-Za-z]{3}=)?$/;
/** No key holds control characters (PostgreSQL refuses U+0000 in text) or bytes that are not UTF-8. */
const UNFIT = /[\u0000-\u001f\u007f\ufffd]/;
const FORM = 'the base64 of "<type>:<key>", as the `id` field of a record gives it';

interface NodeId {
  typename: string;
  id: string;
}

const nodeTypeNames = new WeakMap<GraphQLSchema, ReadonlySet<string>>();

/** The names of the types that implement Node: the only ones a global id may name. */
function nodeTypes(schema: GraphQLSchema): ReadonlySet<string> {
  let names = nodeTypeNames.get(schema);
  if (!names) {
    const node = schema.getType('Node');
    names = new Set(isInterfaceType(node) ? schema.getPossibleTypes(node).map((t) => t.name) : []);
    nodeTypeNames.set(schema, names);
  }
  return names;
}

const preview = (text: string) => JSON.stringify(text.length > 100 ? `${text.slice(0, 100)}…` : text);

function decodeNodeId(schema: GraphQLSchema, raw: string | number, argument: string): NodeId {
  const text = String(raw);
  const bad = (why: string) =>
    new AppError('BAD_REQUEST', `argument ${argument}: ${preview(text)} is not a global id: ${why}`);
  if (text === '' || text.length > MAX_ID_CHARS || !BASE64.test(text))
    throw bad(`a global id is ${FORM}, at most ${MAX_ID_CHARS} characters`);
  const decoded = Buffer.from(text, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 1 || colon === decoded.length - 1 || UNFIT.test(decoded))
    throw bad(`it decodes to ${preview(decoded)}; a global id is ${FORM}`);
  const typename = decoded.slice(0, colon);
  if (!nodeTypes(schema).has(typename))
    throw bad(`it names the type ${preview(typename)}, which is not a record type of this schema`);
  return { typename, id: decoded.slice(colon + 1) };
}

/** The record `raw` names, or null; the caller's tier must include its resource. */
async function loadNode(
  ctx: Context,
  info: GraphQLResolveInfo,
  raw: string | number,
  argument: string,
): Promise<unknown> {
  const id = decodeNodeId(info.schema, raw, argument);
  const resource = GUARDED_TYPES.get(id.typename);
  // checked before the lookup, so not even `__typename` tells a caller which records exist
  if (resource) checkEntitled(ctx.caller, resource);
  try {
    const [node] = await resolveNodes(builder, ctx, info, [id]);
    return node ?? null;
  } catch (e) {
    // the type's findUnique read the key (schema/common.ts)
    if (e instanceof NodeIdError) throw new AppError('BAD_REQUEST', `argument ${argument}: ${e.message}`);
    throw e;
  }
}

builder.queryFields((t) => ({
  node: t.field({
    type: builder.nodeInterfaceRef(),
    nullable: true,
    description: 'Any record by its global id (the `id` of every record type); null if there is none.',
    authScopes: { authenticated: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx, info) => loadNode(ctx, info, id, '"id"'),
  }),
  nodes: t.field({
    type: [builder.nodeInterfaceRef()],
    nullable: { list: false, items: true },
    description: `Records by their global ids (at most ${MAX_NODE_IDS}), in the same order; null for each id with no record.`,
    authScopes: { authenticated: true },
    // the cost analysis counts the list at the ids sent
    extensions: listOf(MAX_NODE_IDS, 'ids'),
    args: { ids: t.arg.idList({ required: true }) },
    resolve: (_root, { ids }, ctx, info) => {
      if (ids.length > MAX_NODE_IDS)
        throw new AppError('BAD_REQUEST', `argument "ids": at most ${MAX_NODE_IDS} ids; got ${ids.length}`);
      // an id that is malformed or forbidden fails alone: an Error in a list is that item's error in GraphQL
      return Promise.all(ids.map((id, i) => loadNode(ctx, info, id, `"ids"[${i}]`).catch((e: unknown) => e as Error)));
    },
  }),
}));
