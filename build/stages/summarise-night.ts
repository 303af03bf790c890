/**
 * Shard: the figures of the night's summary for the build's own wallets (docs/reliability.md#the-nights-summary,
 * build/compute/night-summary.ts): wallets, the last days' USD totals, the last day's positions
 * and those without a price; the participants by day come from the night's side.
 */
import { computeNightFigures } from '../compute/night-summary.ts';
import { need, type Stage } from './stage.ts';

export const summariseNight: Stage = {
  name: 'summarise the night',
  side: 'shard',
  reads: ['snapshots', 'addresses', 'chains', 'tokens', 'prices'],
  writes: [],
  async run(context) {
    const figures = await computeNightFigures(context.db, context.config.lastClosedDay, context.config.shard);
    const participants = need(context, 'participantsByDay').get(context.config.shard?.index ?? 1) ?? new Map<number, number[]>();
    context.values.nightFigures = { ...figures, participantsByDay: participants };
  },
};
