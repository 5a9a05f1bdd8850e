// Rejects counted by the rule they broke, so that an input whose every record fails the same way
// (a one-symbol listing without --symbol) reads as one line with a count, not one line per record.
import { placeOf, type Reject } from './import-stream.js';
import { grouped } from './progress.js';

/** Rules kept apart; the rest are counted together (reasons quoting free text could be all different). */
const MAX_RULES = 50;
const OTHER = 'other reasons';

/**
 * The rule a reason states, without the value received: reasons read `field: must be RULE, got
 * VALUE` (record-fields.ts), so `price: must be a non-negative number, got -1` and `..., got "x"`
 * are one rule. Positions in field names (`Securities[2].figi`) and JSON syntax errors are one rule too.
 */
export function ruleOf(reason: string): string {
  if (reason.startsWith('invalid JSON')) return 'invalid JSON';
  const got = reason.indexOf(', got ');
  return (got >= 0 ? reason.slice(0, got) : reason).replace(/\[\d+\]/g, '[…]');
}

interface Rule {
  rule: string;
  count: number;
  /** Where its first record is (shown in full as it came). */
  first: string;
}

export class RejectTally {
  readonly #rules = new Map<string, Rule>();

  /** Counts a reject found at `place`; true when it is the first of its rule (the one to show in full as it comes). */
  add(r: Reject, place = placeOf(r)): boolean {
    let rule = ruleOf(r.reason);
    if (!this.#rules.has(rule) && this.#rules.size >= MAX_RULES) rule = OTHER;
    let entry = this.#rules.get(rule);
    if (!entry) this.#rules.set(rule, (entry = { rule, count: 0, first: place }));
    return ++entry.count === 1;
  }

  /**
   * One line per rule more than one record broke, most records first: `3,334 of 3,334 records
   * rejected: RULE (the first at PLACE)`; `hint` is appended (how to see each).
   */
  lines(read: number, hint = ''): string[] {
    return [...this.#rules.values()]
      .filter((r) => r.count > 1)
      .sort((a, b) => b.count - a.count)
      .map(
        (r) => `${grouped(r.count)} of ${grouped(read)} records rejected: ${r.rule} (the first at ${r.first}${hint})`,
      );
  }
}
