/** What the integer columns hold: Prisma's Int is 32-bit in PostgreSQL, its BigInt 64-bit everywhere. */
export const INT32 = { min: -(2 ** 31), max: 2 ** 31 - 1 } as const;
export const INT64 = { min: -(2n ** 63n), max: 2n ** 63n - 1n } as const;

export function isInt32(v: unknown): v is number {
  return Number.isInteger(v) && (v as number) >= INT32.min && (v as number) <= INT32.max;
}

/** A decimal integer that fits a signed 64-bit column, or undefined for any other text. */
export function int64(text: string): bigint | undefined {
  if (!/^-?\d{1,19}$/.test(text)) return undefined;
  const n = BigInt(text);
  return n >= INT64.min && n <= INT64.max ? n : undefined;
}
