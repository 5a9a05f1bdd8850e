// Execution of queries and mutations by graphql-jit: a document compiled once runs without the
// per-field argument maps, resolve infos and promise chains of graphql-js, which halves what a list
// page allocates (bench/exec-profile.ts --alloc). graphql-js still parses, validates and words
// every error in the variables; subscriptions stay with graphql-js (graphql/live.ts groups them).
import { useGraphQlJit, type JITCache } from '@envelop/graphql-jit';
import {
  getNamedType, getOperationAST, getVariableValues, GraphQLError, isInputObjectType, Kind, typeFromAST,
  type DocumentNode, type ExecutionArgs, type FieldNode, type FragmentDefinitionNode, type GraphQLInputObjectType, type GraphQLSchema, type GraphQLType, type SelectionSetNode,
} from 'graphql';
import { createLRUCache, type Plugin } from 'graphql-yoga';

/** How many compiled documents an instance keeps by their text; the least recently run go first. */
export const JIT_DOCUMENTS = 500;

export function useJitExecution(maxDocuments = JIT_DOCUMENTS): Plugin {
  // Yoga's parser cache hands the same document object to every run of the same text, so a
  // document object seen before is a document run before. Compiling costs about one run of a small
  // page, which a document run once never earns back: it is compiled on its second run.
  const seen = new WeakSet<DocumentNode>();
  let jitted = false;
  const jit = useGraphQlJit(
    {},
    {
      cache: createLRUCache<object>({ max: maxDocuments, ttl: 0 }) as JITCache,
      enableIf: (args: ExecutionArgs) => (jitted = runsJitted(args, seen)),
    },
  );
  return {
    onExecute(payload) {
      jitted = false;
      // enableIf answers synchronously, so the plugin sets the execution before it returns
      void jit.onExecute!(payload as never);
      if (!jitted) return;
      const { document, operationName } = payload.args;
      return {
        onExecuteDone({ result, setResult }) {
          if (!('errors' in result) || !result.errors?.length) return;
          // errors first, as graphql-js writes an answer (test/app/golden.test.ts compares bytes)
          const { errors, data, ...rest } = result;
          setResult({ errors: errors.map((e) => withNodes(e, document, operationName)), data, ...rest });
        },
      };
    },
  };
}

function runsJitted(args: ExecutionArgs, seen: WeakSet<DocumentNode>): boolean {
  const operation = getOperationAST(args.document, args.operationName);
  if (!operation || operation.operation === 'subscription') return false;
  // variables graphql-js refuses go to graphql-js, which answers in its own words
  if (operation.variableDefinitions?.length && getVariableValues(args.schema, operation.variableDefinitions, args.variableValues ?? {}).errors) return false;
  // graphql-jit refuses a required variable left out even when it has a default (graphql-js gives it
  // the default): such a run goes to graphql-js (test/graphql/jit.test.ts)
  if (operation.variableDefinitions?.some((v) => v.defaultValue && v.type.kind === Kind.NON_NULL_TYPE && !Object.hasOwn(args.variableValues ?? {}, v.variable.name.value))) return false;
  // graphql-jit (0.8.7) compiles a variable of an input type that contains itself (SecurityFilter's
  // `or`) without end, until the heap is gone: such documents stay with graphql-js
  if (operation.variableDefinitions?.some((v) => isRecursiveInput(args.schema, typeFromAST(args.schema, v.type)))) return false;
  if (seen.has(args.document)) return true;
  seen.add(args.document);
  return false;
}

const recursiveInputs = new WeakMap<GraphQLSchema, Map<string, boolean>>();

/** Whether a variable's type is, or holds, an input object type that can contain itself. */
function isRecursiveInput(schema: GraphQLSchema, type: GraphQLType | undefined): boolean {
  const named = type && getNamedType(type);
  if (!named || !isInputObjectType(named)) return false;
  let known = recursiveInputs.get(schema);
  if (!known) recursiveInputs.set(schema, (known = new Map()));
  let answer = known.get(named.name);
  if (answer === undefined) {
    answer = reachesItself(named);
    known.set(named.name, answer);
  }
  return answer;
}

/** Whether an input object type reaches an input type already on its path (itself or one it holds). */
function reachesItself(start: GraphQLInputObjectType): boolean {
  const visit = (type: GraphQLInputObjectType, path: ReadonlySet<string>): boolean =>
    Object.values(type.getFields()).some((field) => {
      const inner = getNamedType(field.type);
      return isInputObjectType(inner) && (path.has(inner.name) || visit(inner, new Set([...path, inner.name])));
    });
  return visit(start, new Set([start.name]));
}

/**
 * graphql-jit's field errors carry the field's locations but not its nodes, and Yoga rebuilds
 * every error from its nodes when it writes the answer: the field nodes at the error's path, as
 * graphql-js gives them, keep `locations` in the answer.
 */
function withNodes(error: GraphQLError, document: DocumentNode, operationName: string | null | undefined): GraphQLError {
  if (error.nodes || !error.path) return error;
  const nodes = fieldNodesAt(document, operationName, error.path);
  if (!nodes) return error;
  return new GraphQLError(error.message, { nodes, path: error.path, originalError: error.originalError, extensions: error.extensions });
}

function fieldNodesAt(document: DocumentNode, operationName: string | null | undefined, path: readonly (string | number)[]): FieldNode[] | undefined {
  const operation = getOperationAST(document, operationName);
  if (!operation) return undefined;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  let sets: SelectionSetNode[] = [operation.selectionSet];
  let nodes: FieldNode[] = [];
  for (const key of path) {
    if (typeof key === 'number') continue;
    nodes = [];
    const collect = (set: SelectionSetNode): void => {
      for (const s of set.selections) {
        if (s.kind === Kind.FIELD) {
          if ((s.alias ?? s.name).value === key) nodes.push(s);
        } else if (s.kind === Kind.INLINE_FRAGMENT) collect(s.selectionSet);
        else {
          const fragment = fragments.get(s.name.value);
          if (fragment) collect(fragment.selectionSet);
        }
      }
    };
    sets.forEach(collect);
    sets = nodes.flatMap((n) => (n.selectionSet ? [n.selectionSet] : []));
  }
  return nodes.length ? nodes : undefined;
}
