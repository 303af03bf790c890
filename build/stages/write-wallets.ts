/** Shard: each wallet's portfolio and daily portfolio documents, on the writer pool's threads (build/write/wallets.ts). */
import { writeWallets as writeWalletFiles } from '../write/wallets.ts';
import { dayNumber } from '../compute/days.ts';
import { defineStage } from './stage.ts';

export const writeWallets = defineStage({
  name: 'write wallets',
  side: 'shard',
  reads: ['snapshots', 'addresses', 'tokens', 'chains'],
  writes: [],
  needs: ['dailyAsOf', 'prices', 'tree'],
  makes: ['wallets'],
  async run(context, { dailyAsOf, prices, tree }) {
    const wallets = await writeWalletFiles(context.db, tree.pool(), {
      shard: context.config.shard,
      dailyAsOf,
      lastDay: dayNumber(context.config.lastClosedDay),
      prices,
      progress: context.progress,
      signal: context.signal,
    });
    return { wallets };
  },
});
