/**
 * The sums of points, exact (the points histories', which the leaderboards read on day A):
 * `totalPoints` and `dailyRate` are the double nearest to the true sum of a wallet's points (ties
 * to even), the value Python's `math.fsum` gives. Such a sum does not depend on the order of the
 * rows, so wallets with the same points tie exactly, and every build and every shard of the same
 * exports writes the same bytes. (DuckDB's `fsum` is compensated, not exact, and its result moves
 * with the order its threads combine rows in.)
 *
 * In SQL, every double x is split exactly into m * 2^q with an integer m < 2^55, and m * 2^(q - 8b)
 * (an integer below 2^62) is summed per bin b = floor(q / 8) as an exact HUGEINT. Here, the few
 * bins of a wallet whose values span too many bins for one HUGEINT are combined into one BigInt
 * and rounded once (points-history.ts sums every other wallet in one HUGEINT, in SQL).
 */

export const BIN_BITS = 8;

/**
 * SQL giving each row's bin and its exact integer part in that bin, for a DOUBLE column. The
 * exponent q may come out up to two below the value's own (log2 is not exact): m is then the
 * mantissa times 2 or 4, still an exact integer. 2^-q is split in two factors where it would not
 * be a finite double (values below 2^-948).
 */
export function binnedPartsSql(column: string): { bin: string; part: string } {
  const q = `(greatest(floor(log2(abs(${column})))::INTEGER - 1, -1022) - 52)`;
  const m = `(CASE WHEN ${q} >= -1000 THEN ${column} * pow(2, -${q}) ELSE ${column} * pow(2, 537) * pow(2, -${q} - 537) END)::BIGINT`;
  const bin = `floor(${q} / ${BIN_BITS})::INTEGER`;
  return { bin, part: `(${m} * (1::BIGINT << (${q} - ${BIN_BITS} * ${bin})))` };
}

/**
 * SQL: the double nearest to h * 2^exponent (ties to even), for an exact HUGEINT h, while the
 * result stays a normal double. |h| is cut to at most 62 bits (k low bits dropped, none below
 * 2^61), with a last bit set when any dropped bit was (a sticky bit, below the rounding position
 * of a 53-bit mantissa, so it decides only a tie); that integer fits a BIGINT, whose cast to
 * DOUBLE rounds correctly, and scaling by 2^(k + exponent) is exact. DuckDB's own cast of a
 * HUGEINT to DOUBLE is only close (it rounds twice); reading h's decimal text rounds correctly
 * too, but cost nearly four times as much (bench/LOG.md). k comes from |h| as a double: that cast
 * never rounds below |h|'s top power of two, and log2 is exact on a power of two, so the floor of
 * its log2 is |h|'s bit length less one, or the bit length itself.
 */
export function nearestDoubleSql(h: string, exponent: string): string {
  const magnitude = `abs(${h})`;
  const dropped = `greatest(floor(log2(greatest(${magnitude}::DOUBLE, 1))) - 61, 0)::INTEGER`;
  const top = `(${magnitude} >> ${dropped})`;
  const sticky = `((${top} << ${dropped}) <> ${magnitude})::INTEGER`;
  return `(CASE WHEN ${h} < 0 THEN -1 ELSE 1 END * (${top} | ${sticky})::BIGINT::DOUBLE * pow(2::DOUBLE, ${dropped} + ${exponent}))`;
}

/** The double nearest to the sum over bins of `sums[i] * 2^(BIN_BITS * bins[i])`; bins ascending. */
export function roundBinnedSum(bins: number[], sums: bigint[]): number {
  if (bins.length === 0) return 0;
  const lowest = bins[0]!;
  let total = 0n;
  for (let i = 0; i < bins.length; i++) total += sums[i]! << BigInt(BIN_BITS * (bins[i]! - lowest));
  return nearestDouble(total, BIN_BITS * lowest);
}

/** The double nearest to integer * 2^exponent, ties to even (Infinity beyond the largest double). */
export function nearestDouble(integer: bigint, exponent: number): number {
  if (integer === 0n) return 0;
  // Number(bigint) rounds once to nearest; scaling by a power of two is then exact unless the
  // result leaves the normal range.
  const rounded = Number(integer);
  if (exponent >= -1022 && exponent <= 1023 && Number.isFinite(rounded)) {
    const scaled = rounded * 2 ** exponent;
    if (Number.isFinite(scaled) && Math.abs(scaled) >= 2 ** -1022) return scaled;
  }
  // Otherwise as exact decimal text, which Number() also rounds once to nearest.
  if (exponent >= 0) return Number((integer << BigInt(exponent)).toString());
  return Number(`${(integer * 5n ** BigInt(-exponent)).toString()}e${exponent}`);
}
