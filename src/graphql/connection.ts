// A keyset page as the Relay connection types of schema/ resolve it; graphql/plan/run.ts makes the
// same object from a row tree's level, so planned answers and resolved ones agree.
import { lastCursor, type Page } from '../db/keyset.js';

/**
 * A service page in the shape the Relay connection types resolve. `nodes` reads the page's rows
 * (see connectionType); edges, cursors and page info are made only for a query that selects them.
 */
export function connection<Row>(page: Page<Row>) {
  return new PageConnection(page);
}

export class PageConnection<Row> {
  readonly nodes: Row[];
  readonly totalCount: Page<Row>['totalCount'];
  readonly totalCountIsEstimate: Page<Row>['totalCountIsEstimate'];
  readonly #page: Page<Row>;

  constructor(page: Page<Row>) {
    this.nodes = page.nodes;
    this.totalCount = page.totalCount;
    this.totalCountIsEstimate = page.totalCountIsEstimate;
    this.#page = page;
  }

  get edges() {
    const page = this.#page;
    return page.nodes.map((node, i) => ({
      node,
      get cursor() {
        return page.cursorAt(i);
      },
    }));
  }

  get pageInfo() {
    const page = this.#page;
    return {
      hasNextPage: page.hasNextPage,
      hasPreviousPage: page.hasPreviousPage,
      get startCursor() {
        return page.nodes.length ? page.cursorAt(0) : null;
      },
      get endCursor() {
        return lastCursor(page) ?? null;
      },
    };
  }
}
