// The indicators have no GraphQL types of their own: their fields belong beside the bars'
// (schema/bar.ts), calling services/indicator.ts. schema/index.ts imports a module for every
// resource by its noun, so this one exists.
export {};
