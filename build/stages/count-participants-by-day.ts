/**
 * Night: each season's participants on each of the night summary's days, per shard
 * (docs/reliability.md#the-nights-summary, build/compute/night-summary.ts): the running totals of
 * every wallet are the night's, so each shard's counts are made here, and a shard's build only
 * writes its own into its summary. An incremental night counts the days it computed and takes the
 * earlier ones from the previous night's shard folders (the same rows, so the same counts).
 */
import path from 'node:path';
import { participantsByDayOfShards, withEarlierCounts } from '../compute/night-summary.ts';
import { preparedFolderName, readPreparedFacts } from '../prepared-folder.ts';
import { defineStage } from './stage.ts';

export const countParticipantsByDay = defineStage({
  name: 'count participants by day',
  side: 'night',
  reads: ['history_totals', 'history_wallets', 'season_days'],
  writes: [],
  needs: ['resume', 'shards'],
  makes: ['participantsByDay'],
  async run(context, { resume, shards }) {
    const counted = await participantsByDayOfShards(context.db, context.config.lastClosedDay, shards);
    // An incremental night's first day (find-changed-days.ts); null for a full night and for a build from the exports.
    if (resume === null) return { participantsByDay: counted };
    const previous = new Map<number, { lastClosedDay: string; counts: Map<number, number[]> }>();
    for (let index = 1; index <= shards; index++) {
      const facts = await readPreparedFacts(path.join(resume.previousNight, preparedFolderName({ index, count: shards })));
      const counts = new Map(Object.entries(facts.participantsByDay).map(([season, byDay]) => [Number(season), byDay]));
      previous.set(index, { lastClosedDay: facts.lastClosedDay, counts });
    }
    return { participantsByDay: await withEarlierCounts(context.db, counted, previous, context.config.lastClosedDay, resume.from) };
  },
});
