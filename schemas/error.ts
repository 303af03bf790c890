import { z } from 'zod';

/** Body of every error status of the preview server. */
export const ErrorBodySchema = z
  .object({ error: z.string().min(1).meta({ description: 'one sentence saying what was wrong' }) })
  .strict()
  .meta({ id: 'Error' });
