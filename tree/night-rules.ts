/**
 * The guard's rules (docs/reliability.md#the-rules): a new night's summary judged
 * against the live version's. Pure: the two summaries, the thresholds and the accepted rules in,
 * one `Judgement` out (one row per rule: both figures, the change, the threshold, the verdict), from
 * which `publish` makes its refusal, its exit code and its report, and `build` its report.
 *
 * One change upstream often moves several figures (wallets cut from an export take their value out
 * of every past day's total). A rule whose figures follow from another rule that fired is
 * "explained" by it rather than a refusal of its own, so that a refusal names the cause and
 * `--accept` of that cause publishes the night; the report still shows the explained rule's
 * figures (docs/reliability.md lists which rule explains which).
 */
import { formatChange, formatCount, formatPercent, formatPercentagePoints, formatPoints, formatShare, formatUsd } from '../core/format.ts';
import type { NightSummary } from '../schemas/night-summary.ts';

export const RULES = ['frozen-season', 'wallets', 'participants', 'restated', 'day-change', 'unpriced', 'backwards'] as const;
export type RuleName = (typeof RULES)[number];

/** Each threshold as a fraction (0.05 for 5%, 0.01 for 1 percentage point), with the option that sets it. */
export interface Thresholds {
  walletDrop: number;
  participantDrop: number;
  restatement: number;
  dayChange: number;
  /** `unpriced`: the share of the last day's positions without a price that a night may not rise to from below it. */
  unpriced: number;
  /** `unpriced`: where the live night is at `unpriced` or above already, the rise of that share (in points) that refuses. */
  unpricedRise: number;
}

export const DEFAULT_THRESHOLDS: Thresholds = {
  walletDrop: 0.05,
  participantDrop: 0.05,
  restatement: 0.01,
  dayChange: 0.5,
  unpriced: 0.05,
  unpricedRise: 0.01,
};

const THRESHOLD_FLAGS: Record<keyof Thresholds, string> = {
  walletDrop: '--max-wallet-drop',
  participantDrop: '--max-participant-drop',
  restatement: '--max-restatement',
  dayChange: '--max-day-change',
  unpriced: '--max-unpriced',
  unpricedRise: '--max-unpriced-rise',
};

/** The rules whose figures another rule's firing explains (see the module's comment). */
const EXPLAINED_BY: Partial<Record<RuleName, RuleName[]>> = {
  wallets: ['backwards'],
  participants: ['wallets', 'backwards'],
  restated: ['wallets', 'unpriced', 'backwards'],
  unpriced: ['backwards'],
  'frozen-season': ['wallets', 'backwards'],
};

type Verdict = 'ok' | 'refused' | 'accepted' | 'explained' | 'not judged';

export interface RuleRow {
  rule: RuleName;
  /** The live version's figure (or, for day-change, the day before's). */
  was: string;
  /** This night's figure. */
  is: string;
  change: string;
  /** In words, with its option: "falls by more than 5% (--max-wallet-drop)". */
  threshold: string;
  verdict: Verdict;
  /** Why a rule was not judged, or which rule explains it. */
  note: string | null;
}

/**
 * The guard's verdict on a night, the one value the refusal's message, its exit code and the
 * report are made from. `reason` is set when nothing was judged (no live night to compare with,
 * a shard's stage, a rollback): every row is then `not judged`, and nothing refuses.
 */
export interface Judgement {
  reason: string | null;
  rows: RuleRow[];
  /** The rows whose verdict is `refused`: the night must not go live. */
  refusals: RuleRow[];
}

/** What one rule finds before explanations and `--accept` are applied. */
interface Finding {
  fired: boolean;
  was: string;
  is: string;
  change: string;
  /** frozen-season: the seasons that differ (a participants drop of the same season explains it). */
  seasons?: number[];
  note?: string;
}

type Rule = (live: NightSummary, night: NightSummary, thresholds: Thresholds) => Finding;

/** Every rule's finding on the night against the live one; `judgeNight` applies explanations and `--accept`. */
const CHECKS: Record<RuleName, Rule> = {
  'frozen-season': frozenSeason,
  wallets,
  participants,
  restated,
  'day-change': dayChange,
  unpriced,
  backwards,
};

/** The night judged against the live one: pure, the same summaries and settings give the same value. */
export function judgeNight(live: NightSummary, night: NightSummary, thresholds: Thresholds, accepted: ReadonlySet<RuleName>): Judgement {
  const findings = new Map(RULES.map((rule) => [rule, CHECKS[rule](live, night, thresholds)]));
  const fired = (rule: RuleName) => findings.get(rule)?.fired === true;
  const participantDrops = participantDropSeasons(live, night, thresholds);
  const rows = RULES.map((rule): RuleRow => {
    const finding = findings.get(rule) as Finding;
    const row: RuleRow = {
      rule,
      was: finding.was,
      is: finding.is,
      change: finding.change,
      threshold: thresholdText(rule, thresholds),
      verdict: 'ok',
      note: finding.note ?? null,
    };
    if (!finding.fired) return row;
    const explainers = (EXPLAINED_BY[rule] ?? []).filter(fired);
    // A frozen season's leaderboard moves with its own participants: a drop there explains it.
    if (rule === 'frozen-season' && (finding.seasons ?? []).every((season) => participantDrops.has(season)))
      explainers.push('participants');
    if (explainers.length > 0) return { ...row, verdict: 'explained', note: `explained by ${explainers.join(', ')}` };
    return { ...row, verdict: accepted.has(rule) ? 'accepted' : 'refused' };
  });
  return { reason: null, rows, refusals: rows.filter((row) => row.verdict === 'refused') };
}

/** Nothing judged (`reason` says why): each rule shows this night's figure alone. */
export function notJudged(night: NightSummary, thresholds: Thresholds, reason: string): Judgement {
  const rows = RULES.map(
    (rule): RuleRow => ({
      rule,
      was: '-',
      is: figureWithoutLive(rule, night),
      change: '-',
      threshold: thresholdText(rule, thresholds),
      verdict: 'not judged',
      note: reason,
    }),
  );
  return { reason, rows, refusals: [] };
}

function frozenSeason(live: NightSummary, night: NightSummary): Finding {
  const frozen = [...new Set([...night.seasons, ...live.seasons].filter((season) => season.frozen).map((season) => season.season))].sort(
    (a, b) => a - b,
  );
  if (frozen.length === 0) return { fired: false, was: 'no frozen season', is: 'no frozen season', change: '-' };
  const describe = (summary: NightSummary, season: number) => {
    const found = summary.seasons.find((one) => one.season === season);
    if (!found) return `s${season} absent`;
    return `s${season} ${found.leaderboardSha256.slice(0, 12)} (${formatCount(found.participants)} participants${found.frozen ? '' : ', not frozen'})`;
  };
  const differ = frozen.filter((season) => {
    const [a, b] = [night, live].map((summary) => summary.seasons.find((one) => one.season === season));
    return !a || !b || a.leaderboardSha256 !== b.leaderboardSha256 || a.frozen !== b.frozen;
  });
  const shown = differ.length > 0 ? differ : frozen;
  return {
    fired: differ.length > 0,
    was: shown.map((season) => describe(live, season)).join('; '),
    is: shown.map((season) => describe(night, season)).join('; '),
    change: differ.length > 0 ? `leaderboard of ${differ.map((season) => `s${season}`).join(', ')} differs` : 'identical',
    seasons: differ,
  };
}

function wallets(live: NightSummary, night: NightSummary, thresholds: Thresholds): Finding {
  return {
    fired: dropOf(live.wallets, night.wallets) > thresholds.walletDrop,
    was: `${formatCount(live.wallets)} wallets`,
    is: `${formatCount(night.wallets)} wallets`,
    change: formatChange(live.wallets, night.wallets),
  };
}

/** The seasons whose participants fell beyond the threshold (a season gone counts as all of them). */
function participantDropSeasons(live: NightSummary, night: NightSummary, thresholds: Thresholds): Set<number> {
  const seasons = new Set<number>();
  for (const before of live.seasons) {
    const after = night.seasons.find((season) => season.season === before.season)?.participants ?? 0;
    if (dropOf(before.participants, after) > thresholds.participantDrop) seasons.add(before.season);
  }
  return seasons;
}

function participants(live: NightSummary, night: NightSummary, thresholds: Thresholds): Finding {
  let worst: { season: number; was: number; is: number; drop: number } | null = null;
  for (const before of live.seasons) {
    const after = night.seasons.find((season) => season.season === before.season)?.participants ?? 0;
    const drop = dropOf(before.participants, after);
    if (worst === null || drop > worst.drop) worst = { season: before.season, was: before.participants, is: after, drop };
  }
  if (worst === null) return { fired: false, was: 'no season', is: `${night.seasons.length} seasons`, change: '-' };
  return {
    fired: worst.drop > thresholds.participantDrop,
    was: `s${worst.season}: ${formatCount(worst.was)} participants`,
    is: `s${worst.season}: ${formatCount(worst.is)} participants`,
    change: `${formatChange(worst.was, worst.is)}${live.seasons.length > 1 ? ', the season that fell most' : ''}`,
  };
}

function restated(live: NightSummary, night: NightSummary, thresholds: Thresholds): Finding {
  // The new night's last day is judged by day-change (against its own day before), not here.
  const liveDays = new Map(live.days.map((day) => [day.date, day.totalValueUsd]));
  let worst: { date: string; was: number; is: number; change: number } | null = null;
  let beyond = 0;
  for (const day of night.days) {
    const was = liveDays.get(day.date);
    if (was === undefined || day.date >= night.lastClosedDay) continue;
    const change = relativeChange(was, day.totalValueUsd);
    if (change > thresholds.restatement) beyond++;
    if (worst === null || change > worst.change) worst = { date: day.date, was, is: day.totalValueUsd, change };
  }
  if (worst === null) return { fired: false, was: 'no past day in both nights', is: '-', change: '-' };
  return {
    fired: worst.change > thresholds.restatement,
    was: `${worst.date}: ${formatUsd(worst.was)}`,
    is: `${worst.date}: ${formatUsd(worst.is)}`,
    change: `${formatChange(worst.was, worst.is, 2)}${beyond > 1 ? `, the largest of ${beyond} days beyond the threshold` : ', the day that moved most'}`,
  };
}

/** The night's own last day against its day before: the live night is not needed. */
function dayChange(_live: NightSummary, night: NightSummary, thresholds: Thresholds): Finding {
  const [before, last] = lastTwoDays(night);
  const figures = { was: `${before.date}: ${formatUsd(before.totalValueUsd)}`, is: `${last.date}: ${formatUsd(last.totalValueUsd)}` };
  if (before.totalValueUsd === 0) return { fired: false, ...figures, change: '-', note: 'no value the day before to compare with' };
  return {
    fired: relativeChange(before.totalValueUsd, last.totalValueUsd) > thresholds.dayChange,
    ...figures,
    change: formatChange(before.totalValueUsd, last.totalValueUsd),
  };
}

/**
 * Two differences of shares that are equal on paper differ in their last bits as doubles
 * (0.149 - 0.139 is 0.010000000000000009): a rise is beyond the threshold only by more than this.
 */
const SHARE_ROUNDING = 1e-12;

/**
 * A rise, not a level: a programme whose steady share of unpriced positions is above the level is
 * not refused every night (which would teach `--accept unpriced` every night), while a feed that
 * stops still is, from any share below 100%.
 */
function unpriced(live: NightSummary, night: NightSummary, thresholds: Thresholds): Finding {
  const was = unpricedShare(live);
  const is = unpricedShare(night);
  const fromBelow = was < thresholds.unpriced;
  const shares = `${formatShare(unpricedOnLastDay(live), live.positions)} → ${formatShare(unpricedOnLastDay(night), night.positions)}`;
  return {
    fired: fromBelow ? is >= thresholds.unpriced : is - was - thresholds.unpricedRise > SHARE_ROUNDING,
    was: unpricedText(live),
    is: unpricedText(night),
    change: fromBelow ? shares : `${shares}, ${formatPoints(is - was)}`,
  };
}

function backwards(live: NightSummary, night: NightSummary): Finding {
  const pairs: [string, string | null, string | null][] = [
    ['last closed day', live.lastClosedDay, night.lastClosedDay],
    ['daily asOf', live.asOf, night.asOf],
    ...live.seasons.map((season): [string, string | null, string | null] => [
      `s${season.season} asOf`,
      season.asOf,
      night.seasons.find((one) => one.season === season.season)?.asOf ?? null,
    ]),
  ];
  // A date goes backwards when it is earlier, or gone (null) where the live night had one.
  const back = pairs.find(([, was, is]) => was !== null && (is === null || is < was));
  const [name, was, is] = back ?? (pairs[0] as [string, string | null, string | null]);
  return {
    fired: back !== undefined,
    was: `${name} ${was ?? 'null'}`,
    is: `${name} ${is ?? 'null'}`,
    change: back ? 'earlier' : 'not earlier',
  };
}

function figureWithoutLive(rule: RuleName, night: NightSummary): string {
  const [before, last] = lastTwoDays(night);
  switch (rule) {
    case 'wallets':
      return `${formatCount(night.wallets)} wallets`;
    case 'participants':
      return night.seasons.map((season) => `s${season.season}: ${formatCount(season.participants)}`).join(', ') || 'no season';
    case 'frozen-season':
      return (
        night.seasons
          .filter((season) => season.frozen)
          .map((season) => `s${season.season} ${season.leaderboardSha256.slice(0, 12)}`)
          .join(', ') || 'no frozen season'
      );
    case 'restated':
      return `${last.date}: ${formatUsd(last.totalValueUsd)}`;
    case 'day-change': {
      const change = before.totalValueUsd === 0 ? '-' : formatChange(before.totalValueUsd, last.totalValueUsd);
      return `${before.date}: ${formatUsd(before.totalValueUsd)} → ${last.date}: ${formatUsd(last.totalValueUsd)} (${change})`;
    }
    case 'unpriced':
      return unpricedText(night);
    case 'backwards':
      return `last closed day ${night.lastClosedDay}, asOf ${night.asOf ?? 'null'}`;
  }
}

/** The rule's condition in words, with the option that sets its threshold. */
function thresholdText(rule: RuleName, thresholds: Thresholds): string {
  switch (rule) {
    case 'frozen-season':
      return "a frozen season's leaderboard differs in any byte";
    case 'wallets':
      return `the number of wallets falls by more than ${formatPercent(thresholds.walletDrop)} (${THRESHOLD_FLAGS.walletDrop})`;
    case 'participants':
      return `a season's participants fall by more than ${formatPercent(thresholds.participantDrop)} (${THRESHOLD_FLAGS.participantDrop})`;
    case 'restated':
      return `a past day's total USD value differs from the live night's by more than ${formatPercent(thresholds.restatement)} (${THRESHOLD_FLAGS.restatement})`;
    case 'day-change':
      return `the last day's total USD value differs from the day before's by more than ${formatPercent(thresholds.dayChange)} (${THRESHOLD_FLAGS.dayChange})`;
    case 'unpriced': {
      const level = formatPercent(thresholds.unpriced);
      return (
        `positions without a price rise to ${level} of the last day's positions or more from a live night below ${level} (${THRESHOLD_FLAGS.unpriced}), ` +
        `or by more than ${formatPercentagePoints(thresholds.unpricedRise)} from one at ${level} or more (${THRESHOLD_FLAGS.unpricedRise})`
      );
    }
    case 'backwards':
      return "the last closed day or an asOf is earlier than the live night's";
  }
}

function lastTwoDays(night: NightSummary): [NightSummary['days'][number], NightSummary['days'][number]] {
  return night.days.slice(-2) as [NightSummary['days'][number], NightSummary['days'][number]];
}

/** The fall from `was` to `is` as a fraction of `was` (0 when it rose, or when there was nothing). */
function dropOf(was: number, is: number): number {
  return was > 0 ? Math.max(0, (was - is) / was) : 0;
}

/** |is - was| / |was|; from 0, any change is infinite. */
function relativeChange(was: number, is: number): number {
  if (was === 0) return is === 0 ? 0 : Infinity;
  return Math.abs(is - was) / Math.abs(was);
}

/**
 * The last closed day's positions without a price. The summary's key, `positionsWithoutPrice`,
 * is kept for the trees already written; it means the last day's, not every day's.
 */
function unpricedOnLastDay(summary: NightSummary): number {
  return summary.positionsWithoutPrice;
}

/** The share of the last day's positions without a price (0 when there are none). */
function unpricedShare(summary: NightSummary): number {
  return summary.positions > 0 ? unpricedOnLastDay(summary) / summary.positions : 0;
}

function unpricedText(summary: NightSummary): string {
  return `${formatCount(unpricedOnLastDay(summary))} of ${formatCount(summary.positions)} positions on ${summary.lastClosedDay} without a price`;
}

/** `5%` or `5` (percent), `0.5%`: a threshold option's value as a fraction; throws a sentence for the option's error. */
export function parsePercent(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*%?\s*$/.exec(text);
  if (!match) throw new Error(`expected a percentage such as 5% (got "${text}")`);
  return Number(match[1]) / 100;
}

/** `--accept wallets,restated`: each name checked against the rules. */
export function parseRuleNames(text: string): RuleName[] {
  const names = text
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const unknown = names.filter((name) => !(RULES as readonly string[]).includes(name));
  if (unknown.length > 0 || names.length === 0)
    throw new Error(`expected rule names separated by commas, among ${RULES.join(', ')} (got "${text}")`);
  return names as RuleName[];
}
