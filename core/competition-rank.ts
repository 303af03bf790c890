/**
 * Competition rank (docs/semantics.md#leaderboard, #points-history): a wallet's rank among others
 * is 1 + how many of them have strictly more points, so that ties share a rank and the next rank
 * skips as many places ("1, 2, 2, 4"). The leaderboard and the points standing rank a season's
 * participants on day A, the points history every wallet on every day, and `verify` checks both
 * by the same rule: each takes it from here, in SQL or in JavaScript; test/rules.test.ts holds
 * the two to the same ranks.
 */

/** The competition rank of each row by `points` (descending) among the rows of its `partition`, in SQL (a window). */
export function competitionRankSql(points: string, partition: string): string {
  return `rank() OVER (PARTITION BY ${partition} ORDER BY ${points} DESC)`;
}

/** The competition rank of each of `points` among all of them, in their order. */
export function competitionRanks(points: readonly number[]): number[] {
  const order = points.map((_, i) => i).sort((a, b) => points[b]! - points[a]!);
  const ranks = new Array<number>(points.length);
  for (let k = 0; k < order.length; k++) {
    const i = order[k]!;
    // Equal points share the rank of the first of them in the order; any other is 1 + those before it.
    ranks[i] = k > 0 && points[order[k - 1]!] === points[i] ? ranks[order[k - 1]!]! : k + 1;
  }
  return ranks;
}
