/**
 * "Conversion to a decimal number happens last" (docs/api.md): a wallet's summed raw amount stays
 * an exact HUGEINT in SQL and becomes decimal text only here, on a document thread, as the JSON is
 * written. It crosses from DuckDB as four 32-bit limbs because the stream reads numbers straight
 * out of DuckDB's vectors, while every string costs a decode (10M of them at 100k wallets).
 */

const TWO_32 = 4294967296;
/** Below 2^53 = 2^21 * 2^32, a double holds the integer exactly. */
const EXACT_HIGH_LIMB = 2097152;

/** SQL for the four 32-bit limbs of a non-negative HUGEINT column, most significant first. */
export function limbColumnsSql(column: string): string {
  return [96, 64, 32, 0].map((shift) => `((${column} >> ${shift}) & 4294967295)::UINTEGER AS limb${shift / 32}`).join(', ');
}

/** The decimal digits of limb3 * 2^96 + limb2 * 2^64 + limb1 * 2^32 + limb0 (no leading zeros). */
export function rawDigits(limb3: number, limb2: number, limb1: number, limb0: number): string {
  if (limb3 === 0 && limb2 === 0 && limb1 < EXACT_HIGH_LIMB) return String(limb1 * TWO_32 + limb0);
  // BigInt's own text is faster than long division in doubles here (bench/LOG.md).
  return ((BigInt(limb3) << 96n) | (BigInt(limb2) << 64n) | (BigInt(limb1) << 32n) | BigInt(limb0)).toString();
}

/** Exact decimal text of digits / 10^decimals: no exponent, no trailing fraction zeros. */
export function scaledText(digits: string, decimals: number): string {
  if (decimals === 0) return digits;
  if (digits.length <= decimals) digits = '0'.repeat(decimals + 1 - digits.length) + digits;
  const point = digits.length - decimals;
  let end = digits.length;
  while (end > point && digits.charCodeAt(end - 1) === 48) end--;
  return end === point ? digits.slice(0, point) : `${digits.slice(0, point)}.${digits.slice(point, end)}`;
}
