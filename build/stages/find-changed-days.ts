/**
 * Night, `prepare` only, first of the night's work: with a previous night (`--since`), every row of
 * the exports hashed per file and day in one scan (build/compute/input-days.ts) and compared with
 * that night's digests, to decide the kind of night before any row is checked or loaded:
 * incremental from the earliest day that changed (never later than the previous night's last
 * closed day + 1), whose later stages then check and load only the days from there; or full when
 * a file whose rows belong to no day changed (or a row has no day: a bad value, which the full
 * night refuses in build's words). A full night digests its rows as it checks and loads them.
 */
import path from 'node:path';
import { literalPathSql } from '../database.ts';
import { changedInputs, describeChange, scanInputDays } from '../compute/input-days.ts';
import { dayNumber, dayText } from '../compute/days.ts';
import { INPUT_DAYS_FILE, POINTS_TOTALS_FILE, type NightRecord } from '../night-state.ts';
import { INPUT_VIEWS } from './read-inputs.ts';
import { defineStage, type Made } from './stage.ts';
import type { Database } from '../database.ts';

export const findChangedDays = defineStage({
  name: 'find changed days',
  side: 'night',
  reads: [...INPUT_VIEWS, 'input_days'],
  writes: ['input_days'],
  needs: ['inputFiles', 'previous'],
  makes: ['nightKind', 'resume'],
  async run(context, { inputFiles, previous }): Promise<Made<'nightKind' | 'resume'>> {
    const { db } = context;
    if (previous === null) return { nightKind: { kind: 'full', why: 'no --since given' }, resume: null };
    if (!previous.usable) return { nightKind: { kind: 'full', why: previous.why }, resume: null };
    await scanInputDays(db, inputFiles);
    const changes = await changedInputs(db, literalPathSql(path.join(previous.folder, INPUT_DAYS_FILE)));
    const undated = changes.filter((change) => change.day === null);
    if (undated.length > 0) {
      // The full night digests the rows again as it reads them (check values, load inputs).
      await db.run('DELETE FROM input_days');
      return {
        nightKind: { kind: 'full', why: `${undated.map(describeChange).join(', ')}: a change that belongs to no day` },
        resume: null,
      };
    }
    const last = dayNumber(context.config.lastClosedDay);
    const previousLast = dayNumber(previous.record.lastClosedDay);
    const from = Math.min(previousLast + 1, ...changes.map((change) => change.day!));
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
      resume: {
        from,
        previousNight: previous.folder,
        record: previous.record,
        carriedTotals: await totalsCarry(db, previous.folder, previous.record, from),
      },
    };
  },
});

/**
 * Whether the previous night's running totals can start tonight's sums: each season's day A of
 * that night is before `from` (its totals then hold rows of unchanged days only), and every one
 * of them was summed exactly in SQL (a wallet-season summed in JS, rare, carries none).
 */
async function totalsCarry(db: Database, previousNight: string, record: NightRecord, from: number): Promise<boolean> {
  if (Object.values(record.seasonDays).some((day) => day !== null && day >= from)) return false;
  const [{ uncarried } = { uncarried: 1 }] = await db.rows<{ uncarried: number }>(
    `SELECT count(*)::INTEGER AS uncarried FROM read_parquet(${literalPathSql(path.join(previousNight, POINTS_TOTALS_FILE))}) WHERE exact_total IS NULL`,
  );
  return uncarried === 0;
}
