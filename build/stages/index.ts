/**
 * The build as one list of stages (stage.ts), cut in two: the night's side reads and checks the
 * exports once and computes what depends on every wallet; the shard's side computes and writes
 * the documents of its wallets. `prepare` ends the night's side by writing one folder per shard
 * (split-into-shards.ts), which `build --prepared` starts from (load-prepared.ts): every table a
 * stage reads is made by an earlier stage on its own side (test/stages.test.ts).
 */
import type { AnyStage } from './stage.ts';
import { readInputs } from './read-inputs.ts';
import { checkValues } from './check-values.ts';
import { loadInputs } from './load-inputs.ts';
import { checkRelations } from './check-relations.ts';
import { numberChains } from './number-chains.ts';
import { checkSummedBalances } from './check-summed-balances.ts';
import { checkValueReach } from './check-value-reach.ts';
import { probeExportFacts } from './probe-export-facts.ts';
import { findChangedDays } from './find-changed-days.ts';
import { findSeasonDays } from './find-season-days.ts';
import { computeLeaderboards } from './compute-leaderboards.ts';
import { computePointsHistory } from './compute-points-history.ts';
import { rankPointsHistory } from './rank-points-history.ts';
import { countParticipantsByDay } from './count-participants-by-day.ts';
import { splitIntoShards } from './split-into-shards.ts';
import { loadPrepared } from './load-prepared.ts';
import { computeSnapshots } from './compute-snapshots.ts';
import { loadPrices } from './load-prices.ts';
import { writeWallets } from './write-wallets.ts';
import { writePoints } from './write-points.ts';
import { writePointsHistory } from './write-points-history.ts';
import { findUnpriced } from './find-unpriced.ts';
import { summariseNight } from './summarise-night.ts';
import { writeSharedFiles } from './write-shared-files.ts';

export const STAGES: readonly AnyStage[] = [
  readInputs,
  findChangedDays,
  checkValues,
  loadInputs,
  checkRelations,
  numberChains,
  checkValueReach,
  checkSummedBalances,
  probeExportFacts,
  findSeasonDays,
  computePointsHistory,
  computeLeaderboards,
  rankPointsHistory,
  countParticipantsByDay,
  splitIntoShards,
  // The cut: `prepare` stops above, `build --prepared` starts below.
  loadPrepared,
  computeSnapshots,
  loadPrices,
  writeWallets,
  writePoints,
  writePointsHistory,
  findUnpriced,
  summariseNight,
  writeSharedFiles,
];

export const NIGHT_STAGES = STAGES.filter((stage) => stage.side === 'night');
export const SHARD_STAGES = STAGES.filter((stage) => stage.side === 'shard');
