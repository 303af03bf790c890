/**
 * Shard: the files every shard writes alike (leaderboards, seasons, fallbacks, meta, host files,
 * the explorer; build/write/shared.ts), the night's summary, then the tree's own record of every
 * file it holds.
 */
import { TreeWriter } from '../write/tree-writer.ts';
import { writeSharedFiles as writeShared } from '../write/shared.ts';
import { writeNightSummary } from '../write/night-summary.ts';
import { need, treeOf, type Stage } from './stage.ts';

export const writeSharedFiles: Stage = {
  name: 'write shared files',
  side: 'shard',
  reads: [],
  writes: [],
  async run(context) {
    const tree = treeOf(context);
    const leaderboards = need(context, 'leaderboards');
    const writer = new TreeWriter(tree.root, (file, text) => tree.record.add(file, text));
    await writeShared(writer, leaderboards, need(context, 'seasonsIndex'), {
      format: 1,
      lastClosedDay: context.config.lastClosedDay,
      dailyAsOf: context.values.dailyAsOf ?? null,
      seasons: leaderboards.map((board) => board.season),
      exampleWallet: context.values.exampleWallet ?? null,
    });
    // The night's summary (docs/reliability.md#the-nights-summary), recorded in the manifest like every file.
    context.values.night = await writeNightSummary(
      writer,
      { shard: context.config.shard, lastClosedDay: context.config.lastClosedDay, dailyAsOf: context.values.dailyAsOf ?? null, leaderboards, seasonsIndex: need(context, 'seasonsIndex') },
      need(context, 'nightFigures'),
    );
    context.values.sharedFiles = writer;
    await tree.record.close({ now: context.config.nowIso, inputs: await context.inputsDigest });
  },
};
