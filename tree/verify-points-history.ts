/**
 * `verify` for one wallet's points history (`v1/address/{a}/points/history.json`) against its
 * points standing (`points.json`, already checked against the leaderboards): the same seasons in
 * the same order with the same asOf; every day from the first to asOf, no gaps; the row of asOf
 * has the standing's totalPoints, rank and dailyRate; each totalPoints is the running sum of the
 * days' points; rank is null exactly when the wallet is not a participant that day
 * (core/participant.ts: totalPoints <= 0).
 *
 * The running sum is checked exactly, not as a double: each number the build writes is the double
 * nearest its exact sum, so from one day to the next the exact difference between the two totals
 * and the day's points is at most half an ulp of each of the three (in BigInt units of 2^-1074).
 * A pure function of the two parsed documents: the caller reads and schema-checks them.
 */
import type { PointsHistory } from '../schemas/points-history.ts';
import type { PointsStanding } from '../schemas/points.ts';
import { isParticipant } from '../core/participant.ts';

type Fail = (message: string) => void;

const MS_PER_DAY = 86_400_000;
/** At most this many problems are reported per season (a shifted series breaks every row). */
const MAX_FAILURES_PER_SEASON = 3;

export function verifyPointsHistory(file: string, history: PointsHistory, standing: PointsStanding, fail: Fail): void {
  const listed = history.seasons.map((one) => one.season);
  const expected = standing.seasons.map((one) => one.season);
  if (listed.join() !== expected.join()) {
    fail(`${file}: lists seasons [${listed.join(', ')}], the points standing [${expected.join(', ')}]`);
    return;
  }
  history.seasons.forEach((season, i) => {
    const row = standing.seasons[i]!;
    let failures = 0;
    const seasonFail = (message: string) => {
      if (failures++ < MAX_FAILURES_PER_SEASON) fail(`${file}: season ${season.season}: ${message}`);
    };
    if (season.asOf !== row.asOf) seasonFail(`asOf ${season.asOf}, the points standing ${row.asOf}`);
    const days = season.days;
    const last = days.at(-1);
    if (!last) {
      seasonFail('no days, for a participant of the season');
      return;
    }
    if (last.date !== row.asOf) seasonFail(`the last day is ${last.date}, not asOf ${row.asOf}`);
    if (last.totalPoints !== row.totalPoints || last.rank !== row.rank || last.points !== row.dailyRate) {
      seasonFail(
        `the last day has totalPoints ${last.totalPoints}, rank ${last.rank}, points ${last.points}; ` +
          `the points standing has ${row.totalPoints}, ${row.rank}, dailyRate ${row.dailyRate}`,
      );
    }
    for (let d = 0; d < days.length; d++) {
      const day = days[d]!;
      if (d > 0 && dayNumber(day.date) !== dayNumber(days[d - 1]!.date) + 1) {
        seasonFail(`${day.date} follows ${days[d - 1]!.date}: the days must follow one another, one a day`);
      }
      if ((day.rank === null) === isParticipant(day.totalPoints)) {
        seasonFail(`${day.date}: rank ${day.rank} with totalPoints ${day.totalPoints} (null exactly when totalPoints <= 0)`);
      }
      const previous = d === 0 ? 0 : days[d - 1]!.totalPoints;
      if (!isRunningSum(previous, day.points, day.totalPoints)) {
        seasonFail(`${day.date}: totalPoints ${day.totalPoints} is not the previous day's ${previous} plus the day's points ${day.points}`);
      }
    }
  });
}

/**
 * Whether `total` can be the nearest double of an exact sum whose previous value rounds to
 * `previous` and whose day's part rounds to `points`: |total - previous - points| exactly, at most
 * half an ulp of each.
 */
export function isRunningSum(previous: number, points: number, total: number): boolean {
  // The nearest double of the exact previous + points is within half an ulp of total when it is
  // total: the usual case, decided without BigInt (which costs `verify` seconds per 10k wallets).
  if (previous + points === total) return true;
  const difference = exactUnits(total) - exactUnits(previous) - exactUnits(points);
  const magnitude = difference < 0n ? -difference : difference;
  // 2 * |difference| <= ulp(total) + ulp(previous) + ulp(points); an exact 0 has no rounding.
  return 2n * magnitude <= ulpUnits(total) + ulpUnits(previous) + ulpUnits(points);
}

/** A double's exact value, as an integer count of 2^-1074. */
function exactUnits(value: number): bigint {
  const { exponent, mantissa, negative } = parts(value);
  const units = exponent === 0 ? mantissa : (mantissa | (1n << 52n)) << BigInt(exponent - 1);
  return negative ? -units : units;
}

/** The spacing of doubles at `value`, in units of 2^-1074 (0 for an exact 0). */
function ulpUnits(value: number): bigint {
  if (value === 0) return 0n;
  const { exponent } = parts(value);
  return 1n << BigInt(Math.max(exponent - 1, 0));
}

/** One double and its bits, shared by every call (no buffer made per number). */
const DOUBLE = new Float64Array(1);
const DOUBLE_BITS = new BigUint64Array(DOUBLE.buffer);

function parts(value: number): { exponent: number; mantissa: bigint; negative: boolean } {
  DOUBLE[0] = value;
  const bits = DOUBLE_BITS[0]!;
  return { exponent: Number((bits >> 52n) & 0x7ffn), mantissa: bits & ((1n << 52n) - 1n), negative: bits >> 63n === 1n };
}

/** Day numbers by date: a tree's histories share a few hundred dates, parsed once each. */
const DAY_NUMBERS = new Map<string, number>();

function dayNumber(date: string): number {
  let day = DAY_NUMBERS.get(date);
  if (day === undefined) {
    day = Math.round(Date.parse(`${date}T00:00:00Z`) / MS_PER_DAY);
    if (DAY_NUMBERS.size >= 100_000) DAY_NUMBERS.clear();
    DAY_NUMBERS.set(date, day);
  }
  return day;
}
