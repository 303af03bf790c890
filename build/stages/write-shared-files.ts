/**
 * Shard: the files every shard writes alike (leaderboards, seasons, fallbacks, meta, host files,
 * the explorer; build/write/shared.ts), the night's summary, then the tree's own record of every
 * file it holds.
 */
import { writeSharedFiles as writeShared } from '../write/shared.ts';
import { writeNightSummary } from '../write/night-summary.ts';
import { defineStage } from './stage.ts';

export const writeSharedFiles = defineStage({
  name: 'write shared files',
  side: 'shard',
  reads: [],
  writes: [],
  needs: ['leaderboards', 'seasonsIndex', 'dailyAsOf', 'exampleWallet', 'nightFigures', 'tree'],
  makes: ['night', 'sharedFiles'],
  async run(context, { leaderboards, seasonsIndex, dailyAsOf, exampleWallet, nightFigures, tree }) {
    const writer = tree.sharedWriter((file, text) => tree.record.add(file, text));
    await writeShared(writer, leaderboards, seasonsIndex, {
      format: 1,
      lastClosedDay: context.config.lastClosedDay,
      dailyAsOf,
      seasons: leaderboards.map((board) => board.season),
      exampleWallet,
    });
    // The night's summary (docs/reliability.md#the-nights-summary), recorded in the manifest like every file.
    const night = await writeNightSummary(
      writer,
      { shard: context.config.shard, lastClosedDay: context.config.lastClosedDay, dailyAsOf, leaderboards, seasonsIndex },
      nightFigures,
    );
    await tree.record.close({ now: context.config.nowIso, inputs: await context.inputsDigest });
    return { night, sharedFiles: writer };
  },
});
