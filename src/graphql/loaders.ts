import DataLoader from 'dataloader';

/**
 * Per-request DataLoaders, made on first use. A loader's name carries the arguments of the field
 * that uses it (for example `ratingsBySymbol:{"first":5}`), so parents asking with the same
 * arguments share one batch, and one statement.
 */
export class Loaders {
  readonly #loaders = new Map<string, DataLoader<unknown, unknown>>();

  get<K, V>(name: string, batch: (keys: readonly K[]) => Promise<readonly (V | Error)[]>, options?: DataLoader.Options<K, V, unknown>): DataLoader<K, V> {
    let loader = this.#loaders.get(name) as DataLoader<K, V> | undefined;
    if (!loader) {
      loader = new DataLoader<K, V, unknown>(batch, { maxBatchSize: 200, ...options });
      this.#loaders.set(name, loader as DataLoader<unknown, unknown>);
    }
    return loader;
  }
}

/** A batch function from one that returns a map: keys missing from the map load as `fallback`. */
export function fromMap<K, V>(load: (keys: readonly K[]) => Promise<Map<K, V>>, fallback: V) {
  return async (keys: readonly K[]): Promise<V[]> => {
    const map = await load(keys);
    return keys.map((k) => (map.has(k) ? map.get(k)! : fallback));
  };
}

/** A loader name for a field and its arguments (bigints and dates included). */
export function loaderName(field: string, args: unknown): string {
  return `${field}:${JSON.stringify(args, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v))}`;
}

/**
 * A row whose child list `key` is loaded only if a field reads it. The per-security loaders of
 * the company page return parents without their children (logo security info, balance-sheet
 * symbols, news securities: three statements no field of the page asks for); their GraphQL
 * object types are typed with the children, as Prisma's `include` returns them elsewhere, so the
 * child fields resolve `childrenOf(row, key, load)`: the list the row came with, or one batched load.
 */
export function withoutChildren<Full, K extends keyof Full>(row: Omit<Full, K>): Full {
  return row as Full;
}

export function childrenOf<Row, K extends keyof Row>(row: Row, key: K, load: () => Promise<Row[K]>): Row[K] | Promise<Row[K]> {
  return row[key] ?? load();
}
