/**
 * SPEC 3.1, "conversion to a decimal number happens last": a wallet's summed raw amount stays an
 * exact HUGEINT in SQL and becomes decimal text only here, on a writer thread, as the JSON is
 * written. It crosses from DuckDB as four 32-bit limbs because the stream reads numbers straight
 * out of DuckDB's vectors, while every string costs a decode (10M of them at SPEC 7's scale).
 */

const TWO_32 = 4294967296;
/** Below 2^53 = 2^21 * 2^32, a double holds the integer exactly. */
const EXACT_HIGH_LIMB = 2097152;
const CHUNK = 1_000_000;

/** SQL for the four 32-bit limbs of a non-negative HUGEINT column, most significant first. */
export function limbColumnsSql(column: string): string {
  return [96, 64, 32, 0].map((shift) => `((${column} >> ${shift}) & 4294967295)::UINTEGER AS limb${shift / 32}`).join(', ');
}

let remainder = 0;

/**
 * One step of long division by 10^6. remainder * 2^32 + limb < 10^6 * 2^32 < 2^53, so the dividend
 * is exact; its quotient is below 2^34, where half a unit in the last place (2^-20) is less than
 * 10^-6, the least distance from a non-integer quotient to the next integer: the floor is exact.
 */
function divideLimb(limb: number): number {
  const dividend = remainder * TWO_32 + limb;
  const quotient = Math.floor(dividend / CHUNK);
  remainder = dividend - quotient * CHUNK;
  return quotient;
}

/** The decimal digits of limb3 * 2^96 + limb2 * 2^64 + limb1 * 2^32 + limb0 (no leading zeros). */
export function rawDigits(limb3: number, limb2: number, limb1: number, limb0: number): string {
  let low = '';
  while (limb3 !== 0 || limb2 !== 0 || limb1 >= EXACT_HIGH_LIMB) {
    remainder = 0;
    limb3 = divideLimb(limb3);
    limb2 = divideLimb(limb2);
    limb1 = divideLimb(limb1);
    limb0 = divideLimb(limb0);
    low = String(remainder).padStart(6, '0') + low;
  }
  return String(limb1 * TWO_32 + limb0) + low;
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
