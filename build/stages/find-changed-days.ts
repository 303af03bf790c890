/**
 * Night, `prepare` only: every row of the exports hashed per file and day (build/compute/input-days.ts),
 * kept in the night folder for the next night; with a previous night (`--since`), compared with its
 * digests to decide the kind of night: incremental from the earliest day that changed (never later
 * than the previous night's last closed day + 1), or full when a file whose rows belong to no day
 * changed.
 */
import path from 'node:path';
import { literalPathSql } from '../database.ts';
import { changedInputs, computeInputDays, describeChange } from '../compute/input-days.ts';
import { dayNumber, dayText } from '../compute/days.ts';
import { INPUT_DAYS_FILE } from '../night-state.ts';
import { INPUT_VIEWS } from './read-inputs.ts';
import { defineStage, type Made } from './stage.ts';

export const findChangedDays = defineStage({
  name: 'find changed days',
  side: 'night',
  reads: INPUT_VIEWS,
  writes: ['input_days'],
  needs: ['inputFiles'],
  makes: ['nightKind', 'resume'],
  when: (context) => context.mode.kind === 'prepare',
  async run(context, { inputFiles }): Promise<Made<'nightKind' | 'resume'>> {
    if (context.mode.kind !== 'prepare') throw new Error('find changed days runs in prepare only');
    const { db } = context;
    await computeInputDays(db, inputFiles);
    await db.run(
      `COPY (SELECT * FROM input_days ORDER BY file, day) TO ${literalPathSql(path.join(context.mode.night, INPUT_DAYS_FILE))} (FORMAT parquet)`,
    );
    const previous = context.mode.previous;
    if (previous === null) return { nightKind: { kind: 'full', why: 'no --since given' }, resume: null };
    if (!previous.usable) return { nightKind: { kind: 'full', why: previous.why }, resume: null };
    const changes = await changedInputs(db, literalPathSql(path.join(previous.folder, INPUT_DAYS_FILE)));
    const undated = changes.filter((change) => change.day === null);
    if (undated.length > 0)
      return {
        nightKind: { kind: 'full', why: `${undated.map(describeChange).join(', ')}: a change that belongs to no day` },
        resume: null,
      };
    const last = dayNumber(context.config.lastClosedDay);
    const previousLast = dayNumber(previous.record.lastClosedDay);
    const earliest = Math.min(previousLast + 1, ...changes.map((change) => change.day!));
    const from = earliest;
    // Rows dated after the previous night's last closed day are the new days', not changes of its past.
    const reasons = [
      last > previousLast ? `${last - previousLast} new ${last - previousLast === 1 ? 'day' : 'days'}` : 'no new day',
      ...changes.filter((change) => change.day! <= previousLast).map(describeChange),
    ];
    return {
      nightKind: {
        kind: 'incremental',
        from: previous.record.id,
        daysRecomputed: Math.max(0, last - from + 1),
        fromDay: dayText(from),
        why: reasons.join('; '),
      },
      resume: { from, previousNight: previous.folder, nextKey: previous.record.nextHistoryKey },
    };
  },
});
