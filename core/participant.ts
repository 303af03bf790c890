/**
 * Who counts as a participant of a season (docs/api.md, the leaderboard): a wallet whose points
 * dated on or before the day add up to more than 0. The leaderboard and the points standing
 * count participants on the season's day A, the points history ranks a wallet on each day only
 * while it is one, the night's summary counts them per day, and `verify` checks the tree by the
 * same rule: every one of them takes it from here, in SQL or in JavaScript.
 */

/** Whether a wallet whose points up to a day add up to `totalPoints` is a participant that day. */
export function isParticipant(totalPoints: number): boolean {
  return totalPoints > 0;
}

/** `isParticipant` in SQL, over the column or expression `totalPoints`. */
export function isParticipantSql(totalPoints: string): string {
  return `(${totalPoints} > 0)`;
}
