/**
 * Which kind of night `prepare` made (docs/incremental-nights.md): `full` (the whole history
 * computed), or `incremental` (the days from `fromDay` on computed, the earlier ones reused from
 * the night `from`), with the reason in a sentence.
 */
import { z } from 'zod';
import { DateStringSchema } from './common.ts';

export const NightKindSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('full'), why: z.string() }).strict(),
  z
    .object({
      kind: z.literal('incremental'),
      /** The previous night, as its own record names it (build instant / inputs' fingerprint). */
      from: z.string(),
      daysRecomputed: z.number().int().min(0),
      fromDay: DateStringSchema,
      why: z.string(),
    })
    .strict(),
]);

export type NightKind = z.infer<typeof NightKindSchema>;

/** The closing summary's line: `incremental from NIGHT: N days recomputed from DAY (why)` or `full (why)`. */
export function describeNightKind(kind: NightKind): string {
  return kind.kind === 'full'
    ? `full (${kind.why})`
    : `incremental from ${kind.from}: ${kind.daysRecomputed} ${kind.daysRecomputed === 1 ? 'day' : 'days'} recomputed from ${kind.fromDay} (${kind.why})`;
}
