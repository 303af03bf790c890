/**
 * verifyPointsHistory: one wallet's points history against its points standing, as a pure
 * function over the two parsed documents. A document as the build writes it passes; each kind of
 * damage is reported.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isRunningSum, verifyPointsHistory } from '../tree/verify-points-history.ts';
import type { PointsHistory } from '../schemas/points-history.ts';
import type { PointsStanding } from '../schemas/points.ts';

const FILE = 'v1/address/0xaa/points/history.json';

const standing = (): PointsStanding => ({
  seasons: [
    { season: 1, asOf: '2025-11-05', rank: 1, totalPoints: 10, dailyRate: 3, totalParticipants: 2 },
    { season: 2, asOf: '2025-11-19', rank: 2, totalPoints: 0.30000000000000004, dailyRate: 0.2, totalParticipants: 7 },
  ],
});

const good = (): PointsHistory => ({
  seasons: [
    {
      season: 1,
      asOf: '2025-11-05',
      days: [
        { date: '2025-11-03', points: 7, totalPoints: 7, rank: 2 },
        { date: '2025-11-04', points: 0, totalPoints: 7, rank: 2 },
        { date: '2025-11-05', points: 3, totalPoints: 10, rank: 1 },
      ],
    },
    {
      season: 2,
      asOf: '2025-11-19',
      days: [
        { date: '2025-11-16', points: -1, totalPoints: -1, rank: null },
        { date: '2025-11-17', points: 1, totalPoints: 0, rank: null },
        { date: '2025-11-18', points: 0.1, totalPoints: 0.1, rank: 5 },
        // 0.1 + 0.2 as an exact sum rounded once; its day rounded apart.
        { date: '2025-11-19', points: 0.2, totalPoints: 0.30000000000000004, rank: 2 },
      ],
    },
  ],
});

function failures(change: (history: PointsHistory, points: PointsStanding) => void): string[] {
  const history = good();
  const points = standing();
  change(history, points);
  const found: string[] = [];
  verifyPointsHistory(FILE, history, points, (message) => found.push(message));
  return found;
}

test('a history as the build writes it passes', () => {
  assert.equal(
    failures(() => {}),
    [],
  );
});

test("the seasons must be the standing's, in order, with its asOf", () => {
  assert.equal(
    failures((history) => history.seasons.reverse()),
    [`${FILE}: lists seasons [2, 1], the points standing [1, 2]`],
  );
  assert.equal(
    failures((history) => history.seasons.pop()),
    [`${FILE}: lists seasons [1], the points standing [1, 2]`],
  );
  assert.equal(
    failures((_, points) => (points.seasons[0]!.asOf = '2025-11-06')),
    [
      `${FILE}: season 1: asOf 2025-11-05, the points standing 2025-11-06`,
      `${FILE}: season 1: the last day is 2025-11-05, not asOf 2025-11-06`,
    ],
  );
  assert.equal(
    failures((history) => (history.seasons[1]!.days = [])),
    [`${FILE}: season 2: no days, for a participant of the season`],
  );
});

test('the row of asOf must equal the standing', () => {
  assert.equal(
    failures((_, points) => (points.seasons[0]!.rank = 2)),
    [`${FILE}: season 1: the last day has totalPoints 10, rank 1, points 3; the points standing has 10, 2, dailyRate 3`],
  );
  assert.equal(
    failures((_, points) => (points.seasons[1]!.dailyRate = 0.3)),
    [
      `${FILE}: season 2: the last day has totalPoints 0.30000000000000004, rank 2, points 0.2; the points standing has 0.30000000000000004, 2, dailyRate 0.3`,
    ],
  );
});

test('days follow one another up to asOf, with no gap and no repeat', () => {
  assert.equal(
    failures((history) => history.seasons[0]!.days.splice(1, 1)),
    [`${FILE}: season 1: 2025-11-05 follows 2025-11-03: the days must follow one another, one a day`],
  );
  assert.equal(
    failures((history) => history.seasons[0]!.days.splice(2, 1)),
    [
      `${FILE}: season 1: the last day is 2025-11-04, not asOf 2025-11-05`,
      `${FILE}: season 1: the last day has totalPoints 7, rank 2, points 0; the points standing has 10, 1, dailyRate 3`,
    ],
  );
  assert.equal(
    failures((history) => (history.seasons[0]!.days[1]!.date = '2025-11-03')),
    [
      `${FILE}: season 1: 2025-11-03 follows 2025-11-03: the days must follow one another, one a day`,
      `${FILE}: season 1: 2025-11-05 follows 2025-11-03: the days must follow one another, one a day`,
    ],
  );
});

test('rank is null exactly when totalPoints <= 0', () => {
  assert.equal(
    failures((history) => (history.seasons[1]!.days[1]!.rank = 3)),
    [`${FILE}: season 2: 2025-11-17: rank 3 with totalPoints 0 (null exactly when totalPoints <= 0)`],
  );
  assert.equal(
    failures((history) => (history.seasons[0]!.days[0]!.rank = null)),
    [`${FILE}: season 1: 2025-11-03: rank null with totalPoints 7 (null exactly when totalPoints <= 0)`],
  );
});

test("totalPoints is the running sum of the days' points, checked exactly", () => {
  assert.equal(
    failures((history) => (history.seasons[0]!.days[1]!.points = 1)),
    [`${FILE}: season 1: 2025-11-04: totalPoints 7 is not the previous day's 7 plus the day's points 1`],
  );
  // Two ulps off: the day and the next are reported.
  assert.equal(
    failures((history) => (history.seasons[0]!.days[0]!.totalPoints = 7.000000000000002)),
    [
      `${FILE}: season 1: 2025-11-03: totalPoints 7.000000000000002 is not the previous day's 0 plus the day's points 7`,
      `${FILE}: season 1: 2025-11-04: totalPoints 7 is not the previous day's 7.000000000000002 plus the day's points 0`,
    ],
  );
  // Half an ulp of each of the three numbers is allowed, no more.
  assert.ok(isRunningSum(0.1, 0.2, 0.30000000000000004));
  assert.ok(isRunningSum(0.1, 0.2, 0.3));
  assert.not.ok(isRunningSum(0.1, 0.2, 0.3000000000000001));
  assert.ok(isRunningSum(1e16, 2, 10000000000000002));
  assert.ok(isRunningSum(7e22, 2 ** -60, 7e22));
  assert.not.ok(isRunningSum(10, 0, 11));
});

test('at most three problems per season are reported', () => {
  const found = failures((history) => history.seasons[1]!.days.forEach((day) => (day.rank = 1)));
  assert.is(found.length, 3);
});

test.run();
