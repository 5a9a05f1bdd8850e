// Planned execution: a query made wholly of fields the planner knows (graphql/plan/compile.ts) is
// answered from one statement that reads every level of the page at once, with each level's
// columns only (db/tree.ts), and no resolver runs. graphql-js (or graphql-jit) answers every other
// query, and any planned one the plan cannot answer as they would (graphql/plan/run.ts).
// PostgreSQL only: SQLite's statements are in-process and cheap, and it has no LATERAL/json_agg
// tree to read them with.
import type { DocumentNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Context } from '../../context.js';
import { readsTrees } from '../../db/tree.js';
import { planDocument, type PlanTemplate } from './compile.js';
import { runPlan } from './run.js';

export function usePlannedExecution(): Plugin {
  // Yoga's parser cache hands the same document object to every run of the same text
  const plans = new WeakMap<DocumentNode, Map<string, PlanTemplate | string>>();
  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      if (!readsTrees((args.contextValue as unknown as Context).db)) return;
      // planned for the document it is handed: a plugin after this one may run another (the
      // response cache adds fields for its bookkeeping)
      setExecuteFn(async (execArgs) => {
        const byName = plans.get(execArgs.document) ?? plans.set(execArgs.document, new Map()).get(execArgs.document)!;
        const name = execArgs.operationName ?? '';
        let plan = byName.get(name);
        if (plan === undefined) byName.set(name, (plan = planDocument(execArgs.schema, execArgs.document, execArgs.operationName)));
        return (typeof plan !== 'string' && (await runPlan(plan, execArgs))) || executeFn(execArgs);
      });
    },
  };
}
