/** Shard: each wallet's portfolio and daily portfolio documents, on the writer pool's threads (build/write/wallets.ts). */
import { writeWallets as writeWalletFiles } from '../write/wallets.ts';
import { dayNumber } from '../compute/days.ts';
import { need, treeOf, type Stage } from './stage.ts';

export const writeWallets: Stage = {
  name: 'write wallets',
  side: 'shard',
  reads: ['snapshots', 'addresses', 'tokens', 'chains'],
  writes: [],
  async run(context) {
    context.values.wallets = await writeWalletFiles(context.db, treeOf(context).pool(), {
      shard: context.config.shard,
      dailyAsOf: context.values.dailyAsOf ?? null,
      lastDay: dayNumber(context.config.lastClosedDay),
      prices: need(context, 'prices'),
      progress: context.progress,
      signal: context.signal,
    });
  },
};
