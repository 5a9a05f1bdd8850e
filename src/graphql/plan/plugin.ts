// Planned execution: a query made wholly of fields the planner knows (graphql/plan/compile.ts) is
// answered from one statement that reads every level of the page at once, with each level's
// columns only (db/tree.ts), and no resolver runs. graphql-js (or graphql-jit) answers every other
// query, and any planned one the plan cannot answer as they would (graphql/plan/run.ts).
// PostgreSQL only: SQLite's statements are in-process and cheap, and it has no LATERAL/json_agg
// tree to read them with.
import { getOperationAST, type ExecutionArgs, type OperationDefinitionNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Context } from '../../context.js';
import { readsTrees } from '../../db/tree.js';
import { planDocument, type PlanTemplate } from './compile.js';
import { runPlan } from './run.js';

export function usePlannedExecution(): Plugin {
  // Yoga's parser cache hands the same document object to every run of the same text (and the
  // response cache its rewrite of it), so an operation object is met again; plans are kept by it,
  // never by a name a client sends (a name the document lacks is no operation: nothing is kept)
  const plans = new WeakMap<OperationDefinitionNode, PlanTemplate | string>();
  const planOf = ({ schema, document, operationName }: ExecutionArgs): PlanTemplate | string => {
    const operation = getOperationAST(document, operationName);
    if (!operation) return 'no such operation';
    let plan = plans.get(operation);
    if (plan === undefined) plans.set(operation, (plan = planDocument(schema, document, operationName)));
    return plan;
  };
  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      if (!readsTrees((args.contextValue as unknown as Context).db)) return;
      // the plan of the document executed, which a plugin after this one may have rewritten: the
      // response cache (graphql/cache.ts) adds the fields it finds each record's type and id in,
      // and keeps nothing of an answer without them (test/graphql/plan.test.ts)
      setExecuteFn(async (execArgs) => {
        const plan = planOf(execArgs);
        return (typeof plan === 'string' ? undefined : await runPlan(plan, execArgs)) ?? executeFn(execArgs);
      });
    },
  };
}
