/**
 * Shard: the figures of the night's summary for the build's own wallets (docs/reliability.md#the-nights-summary,
 * build/compute/night-summary.ts): wallets, the last days' USD totals, the last day's positions
 * and those without a price; the participants by day come from the night's side.
 */
import { computeNightFigures } from '../compute/night-summary.ts';
import { defineStage } from './stage.ts';

export const summariseNight = defineStage({
  name: 'summarise the night',
  side: 'shard',
  reads: ['snapshots', 'addresses', 'chains', 'tokens', 'prices'],
  writes: [],
  needs: ['participantsByDay'],
  makes: ['nightFigures'],
  async run(context, { participantsByDay }) {
    const figures = await computeNightFigures(context.db, context.config.lastClosedDay, context.config.shard);
    const participants = participantsByDay.get(context.config.shard?.index ?? 1) ?? new Map<number, number[]>();
    return { nightFigures: { ...figures, participantsByDay: participants } };
  },
});
