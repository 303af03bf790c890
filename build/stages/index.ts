/**
 * The commands' lists of stages (stage.ts). Each list is the command: a stage never asks which
 * command runs it. The lists share two runs of stages: the night's, which reads and checks the
 * exports once and computes what depends on every wallet, and the shard's, which computes and
 * writes the documents of its wallets.
 *
 *   build --input     read inputs, the night's, the shard's: one process, one database
 *   prepare           read inputs, find changed days, the night's, split into shards (one folder
 *                     per shard, build/prepared-folder.ts)
 *   build --prepared  load prepared (one such folder), the shard's
 *
 * What differs between them reaches the stages as the values each command gives (`gives`): the
 * exports or the folder, the tree, the shards, where the night goes, the previous night; and as the
 * values find changed days makes in `prepare` (which rows the night reads), which `build --input`
 * gives (every row). Every table a stage reads is made by an earlier stage of its list, and every
 * value it needs is given or made before it (test/stages.test.ts).
 */
import { defineList } from './stage.ts';
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

/** The night's run: the exports checked and loaded, and what depends on every wallet computed. */
const NIGHT = [
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
];

/** The shard's run: its wallets' documents computed and written, then the files every shard writes alike. */
const SHARD = [computeSnapshots, loadPrices, writeWallets, writePoints, writePointsHistory, findUnpriced, summariseNight, writeSharedFiles];

/** `build --input`: both runs in one process, every row of the exports read and nothing kept for a next night. */
export const BUILD_STAGES = defineList({
  stages: [readInputs, ...NIGHT, ...SHARD],
  gives: ['inputs', 'tree', 'shards', 'resume', 'forNextNight'],
});

/**
 * `prepare`: the night's run, after find changed days has decided the kind of night (with
 * `--since`), then one folder per shard and the files the next night carries over.
 */
export const PREPARE_STAGES = defineList({
  stages: [readInputs, findChangedDays, ...NIGHT, splitIntoShards],
  gives: ['inputs', 'shards', 'nightFolder', 'previous', 'forNextNight'],
});

/** `build --prepared`: the shard's run, from a folder `prepare` wrote. */
export const PREPARED_BUILD_STAGES = defineList({
  stages: [loadPrepared, ...SHARD],
  gives: ['preparedFolder', 'tree'],
});
