/** Invented people and brokerages that the text resources name. */
import type { Company } from './catalog.js';
import { rngFor, type Rng } from './random.js';

const FIRST_NAMES = [
  'Avery',
  'Blake',
  'Carmen',
  'Dana',
  'Elliot',
  'Farah',
  'Gideon',
  'Harper',
  'Imani',
  'Jonah',
  'Keiko',
  'Lionel',
  'Marisol',
  'Nikhil',
  'Odette',
  'Priya',
  'Quentin',
  'Rosalind',
  'Soren',
  'Talia',
  'Umar',
  'Vera',
  'Wesley',
  'Yasmin',
];
const LAST_NAMES = [
  'Abernathy',
  'Bellweather',
  'Castellano',
  'Drummond',
  'Eastwick',
  'Fairbanks',
  'Galloway',
  'Holloway',
  'Iverson',
  'Kinsley',
  'Lindqvist',
  'Marchetti',
  'Nakamura',
  'Okafor',
  'Pemberton',
  'Quarles',
  'Ravenscroft',
  'Sandoval',
  'Thackeray',
  'Underhill',
  'Vasquez',
  'Whitcombe',
  'Yardley',
  'Zielinski',
];
export const person = (rng: Rng): string => `${rng.pick(FIRST_NAMES)} ${rng.pick(LAST_NAMES)}`;

/** Fictional brokerages; the last one quotes targets in Canadian dollars (src/sample/ratings.ts). */
export const FIRMS = [
  'Crestline Securities',
  'Harrowgate Capital Markets',
  'Northmoor Equity Research',
  'Bluewater & Company',
  'Summit Ledger Partners',
  'Larkspur Research',
  'Pinecrest Markets',
  'Ironbridge Advisors',
  'Kestrel Point Capital',
  'Maple Ridge Securities',
];

export function executives(seed: number, c: Company) {
  const rng = rngFor(seed, 'people', c.index);
  return { ceo: person(rng), cfo: person(rng), ir: person(rng) };
}
