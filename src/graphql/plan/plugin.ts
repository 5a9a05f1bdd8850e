// Planned execution: a query made wholly of fields the planner knows (graphql/plan/compile.ts) is
// answered from one statement that reads every level of the page at once, with each level's
// columns only (db/tree.ts), and no resolver runs. graphql-js answers every other query, and any
// planned one the plan cannot answer as it would (graphql/plan/run.ts).
import { getOperationAST, type ExecutionArgs, type ExecutionResult, type OperationDefinitionNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Context } from '../../context.js';
import { AppError, toGraphQLError } from '../../errors.js';
import type { Fallbacks } from '../../observability/fallbacks.js';
import { planDocument, type PlanTemplate } from './compile.js';
import { runPlan, type NotAnswered } from './run.js';

/**
 * Each query graphql-js answers instead of the plan is counted on `mdg_fallback_total{path="planner"}`
 * by why; one that fell back on something thrown is logged at error level with its request id.
 */
export function usePlannedExecution(fallbacks: Fallbacks): Plugin {
  // Yoga's parser cache hands the same document object to every run of the same text (and the
  // response cache its rewrite of it), so an operation object is met again; plans are kept by it,
  // never by a name a client sends (a name the document lacks is no operation: nothing is kept)
  const plans = new WeakMap<OperationDefinitionNode, PlanTemplate | string>();
  const planOf = (
    operation: OperationDefinitionNode,
    { schema, document, operationName }: ExecutionArgs,
  ): PlanTemplate | string => {
    let plan = plans.get(operation);
    if (plan === undefined) plans.set(operation, (plan = planDocument(schema, document, operationName)));
    return plan;
  };
  const answer = async (
    operation: OperationDefinitionNode,
    args: ExecutionArgs,
  ): Promise<ExecutionResult | NotAnswered> => {
    try {
      const plan = planOf(operation, args);
      return typeof plan === 'string' ? { fallback: 'not_plannable' } : await runPlan(plan, args);
    } catch (err) {
      // out of time: graphql-js would only run out of it again
      if (err instanceof AppError && err.code === 'TIMEOUT') return { errors: [toGraphQLError(err, { http: true })] };
      return { fallback: 'error', err };
    }
  };
  return {
    onExecute({ executeFn, setExecuteFn }) {
      // the plan of the document executed, which a plugin after this one may have rewritten: the
      // response cache (graphql/cache.ts) adds the fields it finds each record's type and id in,
      // and keeps nothing of an answer without them (test/graphql/plan.test.ts)
      setExecuteFn(async (execArgs) => {
        const operation = getOperationAST(execArgs.document, execArgs.operationName);
        // a mutation is never planned: no fallback
        if (operation?.operation !== 'query') return executeFn(execArgs);
        const out = await answer(operation, execArgs);
        if (!('fallback' in out)) return out;
        const ctx = execArgs.contextValue as Context;
        fallbacks.record(
          'planner',
          out.fallback,
          'err' in out ? { err: out.err, requestId: ctx.requestId } : undefined,
        );
        return executeFn(execArgs);
      });
    },
  };
}
