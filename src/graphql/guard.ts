import { EnvelopArmor } from '@escape.tech/graphql-armor';
import {
  getNamedType,
  GraphQLError,
  isInterfaceType,
  isObjectType,
  Kind,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLNamedType,
  type GraphQLSchema,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { boundedParts, type Part } from './incremental.js';
import type { Caller } from '../auth/caller.js';
import type { Context } from '../context.js';
import { isEntitled } from '../domain/entitlements.js';
import { LARGEST_BODY_BYTES, type Config, type GraphQLConfig } from '../config.js';
import { AppError, type ErrorCode } from '../errors.js';
import { requestError } from './errors.js';
import { operationCost, type CostOptions } from './cost.js';
import { FIELD_LIST_KINDS, FIELD_TEXT_KINDS, LIST_DEFAULTS, LIST_LIMITS, TEXT_LIMITS } from '../domain/limits.js';
import type { InFlightBudget } from '../runtime/in-flight.js';

/**
 * What graphql-armor reports, as a coded error of errors.ts. Its messages ("Syntax Error: Query
 * depth limit of 6 exceeded, found 7.") name the limit and the value found; the prefix is not true.
 */
function reject(code: ErrorCode) {
  return (ctx: ValidationContext | null, error: GraphQLError) => {
    const coded = requestError(code, error.message.replace(/^Syntax Error: /, ''));
    if (!ctx) throw coded; // the token limit counts while parsing: no validation context to report to
    ctx.reportError(coded);
  };
}

const limit = (code: ErrorCode, n: number) => ({ n, propagateOnRejection: false, onReject: [reject(code)] });

/** A connection's plumbing: its `edges`, `nodes` and `pageInfo`, an edge's `node`. They add no level of data. */
function isConnectionWrapper(parent: GraphQLNamedType | undefined, field: string): boolean {
  if (!parent) return false;
  return (
    (parent.name.endsWith('Connection') && (field === 'edges' || field === 'nodes' || field === 'pageInfo')) ||
    (parent.name.endsWith('Edge') && field === 'node')
  );
}

/**
 * The depth limit, counted in relations: a level is a field whose value is an object (a record, a
 * part of one, a connection), not a connection's wrappers, not a leaf (a value of the level that
 * holds it), not a fragment. `security { news { edges { node { headline } } } }` is 2 deep.
 * graphql-armor counted every field and fragment, so a company's news' press releases' securities'
 * ratings, six relations, were 7 deep with the rating's `firm` and refused (docs/graphql.md#limits-persisted-operations-cache).
 */
function maxDepthRule(maxDepth: number): ValidationRule {
  return (context) => {
    const schema = context.getSchema();
    const fragmentDepths = new Map<string, number>(); // each fragment is counted once: spreads may repeat
    const typeNamed = (name: string | undefined, fallback: GraphQLNamedType | undefined) =>
      name ? (schema.getType(name) ?? undefined) : fallback;
    function depthOf(set: SelectionSetNode, parent: GraphQLNamedType | undefined, depth: number): number {
      let max = depth;
      for (const selection of set.selections) {
        if (selection.kind === Kind.FIELD) {
          const name = selection.name.value;
          if (name === '__schema' || name === '__type' || !selection.selectionSet) continue; // introspection; a leaf
          const field = isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[name] : undefined;
          const level = isConnectionWrapper(parent, name) ? depth : depth + 1;
          max = Math.max(max, depthOf(selection.selectionSet, field && getNamedType(field.type), level));
        } else if (selection.kind === Kind.INLINE_FRAGMENT) {
          max = Math.max(
            max,
            depthOf(selection.selectionSet, typeNamed(selection.typeCondition?.name.value, parent), depth),
          );
        } else {
          const name = selection.name.value;
          if (!fragmentDepths.has(name)) {
            fragmentDepths.set(name, 0); // a cycle (refused by validation anyway) ends here
            const fragment = context.getFragment(name);
            if (fragment)
              fragmentDepths.set(
                name,
                depthOf(fragment.selectionSet, typeNamed(fragment.typeCondition.name.value, undefined), 0),
              );
          }
          max = Math.max(max, depth + fragmentDepths.get(name)!);
        }
      }
      return max;
    }
    return {
      OperationDefinition(operation) {
        const depth = depthOf(operation.selectionSet, schema.getRootType(operation.operation) ?? undefined, 0);
        if (depth > maxDepth) {
          context.reportError(
            requestError(
              'QUERY_TOO_DEEP',
              `Query depth limit of ${maxDepth} exceeded, found ${depth}: depth counts the relations of a path, the fields whose value is an object (a connection's edges, node, nodes and pageInfo, leaves and fragments are no levels).`,
              [operation],
            ),
          );
        }
      },
    };
  };
}

/** Refuses `__schema` and `__type` (`__typename` stays: clients need it). */
const noIntrospection: ValidationRule = (context) => ({
  Field(node) {
    if (node.name.value === '__schema' || node.name.value === '__type') {
      context.reportError(
        requestError(
          'INTROSPECTION_DISABLED',
          `introspection is disabled on this server; the document asks for ${node.name.value}`,
          [node],
        ),
      );
    }
  },
});

const SUGGESTION = /\s*Did you mean [^?]*\?/g;

/** The error without graphql-js's "Did you mean ...?", which would tell a stranger the schema's names. */
function withoutSuggestion<E extends Error>(error: E): E | GraphQLError {
  if (!(error instanceof GraphQLError)) return error;
  const message = error.message.replace(SUGGESTION, '');
  if (message === error.message) return error;
  return new GraphQLError(message, {
    ...(error.nodes ? { nodes: error.nodes } : {}),
    ...(error.path ? { path: error.path } : {}),
    ...(error.originalError ? { originalError: error.originalError } : {}),
    extensions: error.extensions,
  });
}

function useHiddenSuggestions(): Plugin {
  return {
    onValidate() {
      return ({ result, setResult }) => {
        if (result.length) setResult(result.map(withoutSuggestion));
      };
    },
    onExecute() {
      return {
        onExecuteDone({ result, setResult }) {
          // variables that do not coerce (an unknown enum value) fail before execution: no data
          if ('errors' in result && result.errors && !('data' in result))
            setResult({ ...result, errors: result.errors.map(withoutSuggestion) });
        },
      };
    },
  };
}

/**
 * Limits on what one GraphQL document may ask (graphql-armor: depth, aliases, tokens,
 * directives, cost), introspection as configured, and no field suggestions in production. Each
 * refusal is a coded error of errors.ts with HTTP 400, before any resolver runs.
 */
export function guardPlugins(config: Readonly<Config>, budget?: InFlightBudget): Plugin[] {
  const g = config.graphql;
  const armor = new EnvelopArmor({
    blockFieldSuggestion: { enabled: false }, // useHiddenSuggestions covers enum and argument suggestions too
    maxDepth: { enabled: false }, // maxDepthRule: counted in relations
    maxAliases: limit('TOO_MANY_ALIASES', g.maxAliases),
    maxTokens: limit('TOO_MANY_TOKENS', g.maxTokens),
    maxDirectives: limit('TOO_MANY_DIRECTIVES', g.maxDirectives),
    costLimit: { enabled: false }, // useCost: type-aware, page sizes from variables and defaults, for every transport
  });
  return [
    ...(armor.protect().plugins as Plugin[]),
    { onValidate: ({ addValidationRule }) => addValidationRule(maxDepthRule(g.maxDepth)) } satisfies Plugin,
    useCost(g.maxCost, budget, costOptions),
    ...(g.introspection
      ? []
      : [{ onValidate: ({ addValidationRule }) => addValidationRule(noIntrospection) } satisfies Plugin]),
    ...(config.nodeEnv === 'production' ? [useHiddenSuggestions()] : []),
  ];
}

/**
 * How the cost analysis reads the schema: stored text at the import's limits, child lists at their
 * kind's default size (the import's limit beside it), all from the manifests' kinds (src/domain/limits.ts).
 */
export const costOptions: CostOptions = {
  textChars: (coordinate) =>
    Object.hasOwn(FIELD_TEXT_KINDS, coordinate) ? TEXT_LIMITS[FIELD_TEXT_KINDS[coordinate]!] : undefined,
  listItems: (coordinate) => {
    if (!Object.hasOwn(FIELD_LIST_KINDS, coordinate)) return undefined;
    const kind = FIELD_LIST_KINDS[coordinate]!;
    return { default: LIST_DEFAULTS[kind], max: LIST_LIMITS[kind] };
  },
};

/** Per document and operation name, a cost no variable decided (Yoga's parse cache hands every request with the same text the same document). */
const documentCosts = new WeakMap<DocumentNode, Map<string, number>>();

function costOf(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Readonly<Record<string, unknown>>,
  options: CostOptions,
): number {
  const known = documentCosts.get(document)?.get(operationName ?? '');
  if (known !== undefined) return known;
  const { cost, byVariables } = operationCost(schema, document, operationName, variables, options);
  if (!byVariables) {
    let costs = documentCosts.get(document);
    if (!costs) documentCosts.set(document, (costs = new Map()));
    costs.set(operationName ?? '', cost);
  }
  return cost;
}

/** What an answer says of its cost (`extensions.cost`): the units its document asks for, and the most one may. */
export interface CostExtension {
  requested: number;
  limit: number;
}

/** The result with `extensions.cost` beside whatever extensions it has. */
const withCost = (result: ExecutionResult, cost: CostExtension): ExecutionResult => ({
  ...result,
  extensions: { ...result.extensions, cost },
});

/**
 * The cost limit (src/graphql/cost.ts), checked once the variables are known, for queries and
 * mutations (onExecute) and subscriptions (onSubscribe) alike, over HTTP, SSE and WebSocket, before
 * any resolver runs. The answer of a query or mutation says what it cost in `extensions.cost`, a
 * refusal too; whoever answers (graphql-js, the planner, the response cache: each comes after
 * this plugin). With a budget, a query or mutation also holds its cost in the instance's budget
 * of work in flight while it executes (src/runtime/in-flight.ts), released however the execution
 * ends (an answer, a throw, the request's TIMEOUT).
 */
function useCost(maxCost: number, budget: InFlightBudget | undefined, options: CostOptions): Plugin {
  const refusal = (cost: number) =>
    requestError(
      'QUERY_TOO_COMPLEX',
      `Query cost limit of ${maxCost} exceeded, found ${cost}: every list counts at its page size (\`first\`, or its default), a record's child lists at their default size; ask for fewer items or fewer fields (docs/security.md).`,
    );
  return {
    onExecute({ args, executeFn, setExecuteFn, setResultAndStopExecution }) {
      const requested = costOf(args.schema, args.document, args.operationName, args.variableValues ?? {}, options);
      const cost: CostExtension = { requested, limit: maxCost };
      if (requested > maxCost) return setResultAndStopExecution(withCost({ errors: [refusal(requested)] }, cost));
      // an answer in parts (@defer, @stream) holds its cost until its last part: released then
      let releaseLater: (() => void) | undefined;
      if (budget) {
        // around the execution itself: a later plugin that answers without executing holds nothing
        setExecuteFn(async (execArgs) => {
          let release: () => void;
          try {
            release = await budget.acquire(requested, (execArgs.contextValue as Context).deadline);
          } catch (e) {
            if (!(e instanceof AppError)) throw e;
            return { errors: [requestError(e.code, e.message, undefined, e.headers)] };
          }
          let parts = false;
          try {
            const result = await executeFn(execArgs);
            if (isAsyncIterable(result)) [parts, releaseLater] = [true, release];
            return result;
          } finally {
            if (!parts) release();
          }
        });
      }
      return {
        onExecuteDone({ result, setResult }) {
          if (!isAsyncIterable(result)) return setResult(withCost(result, cost));
          const deadline = (args.contextValue as unknown as Context).deadline;
          const costed = (first: Part): Part => ({ ...first, extensions: { ...first.extensions, cost } });
          setResult(boundedParts(result, deadline, () => releaseLater?.(), costed));
        },
      };
    },
    onSubscribe({ args, setResultAndStopExecution }) {
      const requested = costOf(args.schema, args.document, args.operationName, args.variableValues ?? {}, options);
      if (requested > maxCost)
        setResultAndStopExecution(withCost({ errors: [refusal(requested)] }, { requested, limit: maxCost }));
    },
  };
}

/**
 * The largest /graphql body `caller` may send: GRAPHQL_MAX_BODY_BYTES, except for callers
 * entitled to OCR, whose `extractText` frames may be as large as the REST route's (10 MiB).
 */
export function graphqlBodyLimit(
  config: Pick<GraphQLConfig, 'maxBodyBytes'>,
  caller: Pick<Caller, 'tier'> | null,
): number {
  return caller && isEntitled(caller.tier, 'ocr')
    ? Math.max(config.maxBodyBytes, LARGEST_BODY_BYTES)
    : config.maxBodyBytes;
}
