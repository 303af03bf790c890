/**
 * The guard's rules (docs/reliability.md#the-rules): a new night's summary judged against the live version's. Pure: the
 * summaries in, one row per rule out (both figures, the change, the threshold, the verdict), so
 * that `publish` refuses on it, `build` reports what it can without a live version, and the
 * report shows every rule the same way.
 *
 * One change upstream often moves several figures (wallets cut from an export take their value out
 * of every past day's total). A rule whose figures follow from another rule that fired is
 * "explained" by it rather than a refusal of its own, so that a refusal names the cause and
 * `--accept` of that cause publishes the night; the report still shows the explained rule's
 * figures (docs/reliability.md lists which rule explains which).
 */
import type { NightSummary } from '../schemas/night-summary.ts';

export const RULES = ['frozen-season', 'wallets', 'participants', 'restated', 'day-change', 'unpriced', 'backwards'] as const;
export type RuleName = (typeof RULES)[number];

/** Each threshold as a fraction (0.05 for 5%), with the option that sets it. */
export interface Thresholds {
  walletDrop: number;
  participantDrop: number;
  restatement: number;
  dayChange: number;
  unpriced: number;
}

export const DEFAULT_THRESHOLDS: Thresholds = { walletDrop: 0.05, participantDrop: 0.05, restatement: 0.01, dayChange: 0.5, unpriced: 0.05 };

export const THRESHOLD_FLAGS: Record<keyof Thresholds, string> = {
  walletDrop: '--max-wallet-drop',
  participantDrop: '--max-participant-drop',
  restatement: '--max-restatement',
  dayChange: '--max-day-change',
  unpriced: '--max-unpriced',
};

/** The rules whose figures another rule's firing explains (see the module's comment). */
const EXPLAINED_BY: Partial<Record<RuleName, RuleName[]>> = {
  wallets: ['backwards'],
  participants: ['wallets', 'backwards'],
  restated: ['wallets', 'unpriced', 'backwards'],
  unpriced: ['backwards'],
  'frozen-season': ['wallets', 'backwards'],
};

export type Verdict = 'ok' | 'refused' | 'accepted' | 'explained' | 'not judged';

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

export interface Judgement {
  /** null: nothing to compare (a first publish, a build), said in `reason`. */
  live: NightSummary | null;
  reason: string | null;
  rows: RuleRow[];
  /** The rows whose verdict is `refused`: the night must not go live. */
  refusals: RuleRow[];
}

/** What one rule finds before explanations and `--accept` are applied. */
interface Finding {
  rule: RuleName;
  fired: boolean;
  was: string;
  is: string;
  change: string;
  threshold: string;
  /** frozen-season: the seasons that differ (a participants drop of the same season explains it). */
  seasons?: number[];
  note?: string;
}

export function judgeNight(night: NightSummary, live: NightSummary | null, thresholds: Thresholds, accepted: ReadonlySet<RuleName>, reason: string): Judgement {
  if (live === null) {
    const rows = RULES.map((rule): RuleRow => ({ rule, was: '-', is: figureWithoutLive(rule, night), change: '-', threshold: thresholdText(rule, thresholds), verdict: 'not judged', note: reason }));
    return { live: null, reason, rows, refusals: [] };
  }
  const findings = new Map<RuleName, Finding>(
    [frozenSeason(night, live), wallets(night, live, thresholds), participants(night, live, thresholds), restated(night, live, thresholds), dayChange(night, thresholds), unpriced(night, live, thresholds), backwards(night, live)].map(
      (finding) => [finding.rule, finding],
    ),
  );
  const participantDrops = participantDropSeasons(night, live, thresholds);
  const rows = RULES.map((rule): RuleRow => {
    const finding = findings.get(rule)!;
    const row: RuleRow = { rule, was: finding.was, is: finding.is, change: finding.change, threshold: finding.threshold, verdict: 'ok', note: finding.note ?? null };
    if (!finding.fired) return row;
    const explainers = (EXPLAINED_BY[rule] ?? []).filter((other) => findings.get(other)!.fired);
    // A frozen season's leaderboard moves with its own participants: a drop there explains it.
    if (rule === 'frozen-season' && finding.seasons!.every((season) => participantDrops.has(season))) explainers.push('participants');
    if (explainers.length > 0) return { ...row, verdict: 'explained', note: `explained by ${explainers.join(', ')}` };
    return { ...row, verdict: accepted.has(rule) ? 'accepted' : 'refused' };
  });
  return { live, reason: null, rows, refusals: rows.filter((row) => row.verdict === 'refused') };
}

function frozenSeason(night: NightSummary, live: NightSummary): Finding {
  const threshold = thresholdText('frozen-season', DEFAULT_THRESHOLDS);
  const frozen = [...new Set([...night.seasons, ...live.seasons].filter((season) => season.frozen).map((season) => season.season))].sort((a, b) => a - b);
  if (frozen.length === 0) return { rule: 'frozen-season', fired: false, was: 'no frozen season', is: 'no frozen season', change: '-', threshold };
  const describe = (summary: NightSummary, season: number) => {
    const found = summary.seasons.find((one) => one.season === season);
    return found ? `s${season} ${found.leaderboardSha256.slice(0, 12)} (${count(found.participants)} participants${found.frozen ? '' : ', not frozen'})` : `s${season} absent`;
  };
  const differ = frozen.filter((season) => {
    const [a, b] = [night, live].map((summary) => summary.seasons.find((one) => one.season === season));
    return !a || !b || a.leaderboardSha256 !== b.leaderboardSha256 || a.frozen !== b.frozen;
  });
  const shown = differ.length > 0 ? differ : frozen;
  return {
    rule: 'frozen-season',
    fired: differ.length > 0,
    was: shown.map((season) => describe(live, season)).join('; '),
    is: shown.map((season) => describe(night, season)).join('; '),
    change: differ.length > 0 ? `leaderboard of ${differ.map((season) => `s${season}`).join(', ')} differs` : 'identical',
    threshold,
    seasons: differ,
  };
}

function wallets(night: NightSummary, live: NightSummary, thresholds: Thresholds): Finding {
  const drop = dropOf(live.wallets, night.wallets);
  return {
    rule: 'wallets',
    fired: drop > thresholds.walletDrop,
    was: `${count(live.wallets)} wallets`,
    is: `${count(night.wallets)} wallets`,
    change: percentChange(live.wallets, night.wallets),
    threshold: thresholdText('wallets', thresholds),
  };
}

/** The seasons whose participants fell beyond the threshold (a season gone counts as all of them). */
function participantDropSeasons(night: NightSummary, live: NightSummary, thresholds: Thresholds): Set<number> {
  const seasons = new Set<number>();
  for (const before of live.seasons) {
    const after = night.seasons.find((season) => season.season === before.season)?.participants ?? 0;
    if (dropOf(before.participants, after) > thresholds.participantDrop) seasons.add(before.season);
  }
  return seasons;
}

function participants(night: NightSummary, live: NightSummary, thresholds: Thresholds): Finding {
  const threshold = thresholdText('participants', thresholds);
  let worst: { season: number; was: number; is: number; drop: number } | null = null;
  for (const before of live.seasons) {
    const after = night.seasons.find((season) => season.season === before.season)?.participants ?? 0;
    const drop = dropOf(before.participants, after);
    if (worst === null || drop > worst.drop) worst = { season: before.season, was: before.participants, is: after, drop };
  }
  if (worst === null) return { rule: 'participants', fired: false, was: 'no season', is: `${night.seasons.length} seasons`, change: '-', threshold };
  return {
    rule: 'participants',
    fired: worst.drop > thresholds.participantDrop,
    was: `s${worst.season}: ${count(worst.was)} participants`,
    is: `s${worst.season}: ${count(worst.is)} participants`,
    change: `${percentChange(worst.was, worst.is)}${live.seasons.length > 1 ? ', the season that fell most' : ''}`,
    threshold,
  };
}

function restated(night: NightSummary, live: NightSummary, thresholds: Thresholds): Finding {
  const threshold = thresholdText('restated', thresholds);
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
  if (worst === null) return { rule: 'restated', fired: false, was: 'no past day in both nights', is: '-', change: '-', threshold };
  return {
    rule: 'restated',
    fired: worst.change > thresholds.restatement,
    was: `${worst.date}: ${usd(worst.was)}`,
    is: `${worst.date}: ${usd(worst.is)}`,
    change: `${percentChange(worst.was, worst.is, 2)}${beyond > 1 ? `, the largest of ${beyond} days beyond the threshold` : ', the day that moved most'}`,
    threshold,
  };
}

function dayChange(night: NightSummary, thresholds: Thresholds): Finding {
  const threshold = thresholdText('day-change', thresholds);
  const [before, last] = night.days.slice(-2) as [NightSummary['days'][number], NightSummary['days'][number]];
  const figures = { was: `${before.date}: ${usd(before.totalValueUsd)}`, is: `${last.date}: ${usd(last.totalValueUsd)}` };
  if (before.totalValueUsd === 0) return { rule: 'day-change', fired: false, ...figures, change: '-', threshold, note: 'no value the day before to compare with' };
  return { rule: 'day-change', fired: relativeChange(before.totalValueUsd, last.totalValueUsd) > thresholds.dayChange, ...figures, change: percentChange(before.totalValueUsd, last.totalValueUsd), threshold };
}

function unpriced(night: NightSummary, live: NightSummary, thresholds: Thresholds): Finding {
  return {
    rule: 'unpriced',
    fired: night.positions > 0 && night.positionsWithoutPrice / night.positions >= thresholds.unpriced,
    was: unpricedText(live),
    is: unpricedText(night),
    change: `${shareText(live)} → ${shareText(night)}`,
    threshold: thresholdText('unpriced', thresholds),
  };
}

function backwards(night: NightSummary, live: NightSummary): Finding {
  const pairs: [string, string | null, string | null][] = [
    ['last closed day', live.lastClosedDay, night.lastClosedDay],
    ['daily asOf', live.asOf, night.asOf],
    ...live.seasons.map((season): [string, string | null, string | null] => [`s${season.season} asOf`, season.asOf, night.seasons.find((one) => one.season === season.season)?.asOf ?? null]),
  ];
  // A date goes backwards when it is earlier, or gone (null) where the live night had one.
  const back = pairs.find(([, was, is]) => was !== null && (is === null || is < was));
  const [name, was, is] = back ?? pairs[0]!;
  return { rule: 'backwards', fired: back !== undefined, was: `${name} ${was ?? 'null'}`, is: `${name} ${is ?? 'null'}`, change: back ? 'earlier' : 'not earlier', threshold: thresholdText('backwards', DEFAULT_THRESHOLDS) };
}

function figureWithoutLive(rule: RuleName, night: NightSummary): string {
  const [before, last] = night.days.slice(-2) as [NightSummary['days'][number], NightSummary['days'][number]];
  switch (rule) {
    case 'wallets':
      return `${count(night.wallets)} wallets`;
    case 'participants':
      return night.seasons.map((season) => `s${season.season}: ${count(season.participants)}`).join(', ') || 'no season';
    case 'frozen-season':
      return night.seasons.filter((season) => season.frozen).map((season) => `s${season.season} ${season.leaderboardSha256.slice(0, 12)}`).join(', ') || 'no frozen season';
    case 'restated':
      return `${last.date}: ${usd(last.totalValueUsd)}`;
    case 'day-change':
      return `${before.date}: ${usd(before.totalValueUsd)} → ${last.date}: ${usd(last.totalValueUsd)} (${before.totalValueUsd === 0 ? '-' : percentChange(before.totalValueUsd, last.totalValueUsd)})`;
    case 'unpriced':
      return unpricedText(night);
    case 'backwards':
      return `last closed day ${night.lastClosedDay}, asOf ${night.asOf ?? 'null'}`;
  }
}

/** The rule's condition in words, with the option that sets its threshold. */
export function thresholdText(rule: RuleName, thresholds: Thresholds): string {
  switch (rule) {
    case 'frozen-season':
      return "a frozen season's leaderboard differs in any byte";
    case 'wallets':
      return `the number of wallets falls by more than ${percent(thresholds.walletDrop)} (${THRESHOLD_FLAGS.walletDrop})`;
    case 'participants':
      return `a season's participants fall by more than ${percent(thresholds.participantDrop)} (${THRESHOLD_FLAGS.participantDrop})`;
    case 'restated':
      return `a past day's total USD value differs from the live night's by more than ${percent(thresholds.restatement)} (${THRESHOLD_FLAGS.restatement})`;
    case 'day-change':
      return `the last day's total USD value differs from the day before's by more than ${percent(thresholds.dayChange)} (${THRESHOLD_FLAGS.dayChange})`;
    case 'unpriced':
      return `positions without a price reach ${percent(thresholds.unpriced)} of the last day's positions (${THRESHOLD_FLAGS.unpriced})`;
    case 'backwards':
      return "the last closed day or an asOf is earlier than the live night's";
  }
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

function percentChange(was: number, is: number, digits = 1): string {
  if (was === 0) return is === 0 ? '0%' : 'from 0';
  const change = ((is - was) / Math.abs(was)) * 100;
  const text = change.toFixed(digits);
  // Sums of doubles in another order differ in their last bits: that is no change.
  if (Number(text) === 0) return `${(0).toFixed(digits)}%`;
  return `${change > 0 ? '+' : ''}${text}%`;
}

function unpricedText(summary: NightSummary): string {
  return `${count(summary.positionsWithoutPrice)} of ${count(summary.positions)} positions on ${summary.lastClosedDay} without a price`;
}

function shareText(summary: NightSummary): string {
  return summary.positions > 0 ? `${((summary.positionsWithoutPrice / summary.positions) * 100).toFixed(1)}%` : '-';
}

export function percent(fraction: number): string {
  return `${Number((fraction * 100).toPrecision(6))}%`;
}

export function count(value: number): string {
  return value.toLocaleString('en-US');
}

export function usd(value: number): string {
  return `$${value.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}

/** `5%` or `5` (percent), `0.5%`: a threshold option's value as a fraction; throws a sentence for the option's error. */
export function parsePercent(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*%?\s*$/.exec(text);
  if (!match) throw new Error(`expected a percentage such as 5% (got "${text}")`);
  return Number(match[1]) / 100;
}

/** `--accept wallets,restated`: each name checked against the rules. */
export function parseRuleNames(text: string): RuleName[] {
  const names = text.split(',').map((name) => name.trim()).filter((name) => name !== '');
  const unknown = names.filter((name) => !(RULES as readonly string[]).includes(name));
  if (unknown.length > 0 || names.length === 0) throw new Error(`expected rule names separated by commas, among ${RULES.join(', ')} (got "${text}")`);
  return names as RuleName[];
}
