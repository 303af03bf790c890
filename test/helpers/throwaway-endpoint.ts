/**
 * The endpoint table with one more endpoint, as a change would add it: a season's throwaway
 * document (its count of participants), one shared file per season at its own path
 * (`/v1/seasons/{season}/throwaway.json`). test/endpoints.test.ts serves it from every runtime;
 * throwaway-worker.ts is the Worker made with it.
 */
import { z } from 'zod';
import { ENDPOINTS, type Endpoint, type EndpointTable } from '../../schemas/endpoints.ts';

export const THROWAWAY_PATH = '/v1/seasons/{season}/throwaway.json';

/**
 * A copy of the product's table plus the throwaway endpoint. Its schema is registered under an
 * id (its OpenAPI component) when the table is made: `unregister` takes it out again, so that the
 * OpenAPI document of later builds in the same process is the product's.
 */
export function throwawayTable(): { endpoints: EndpointTable; unregister(): void } {
  const schema = z
    .object({ season: z.number().int().min(1), participants: z.number().int().nonnegative() })
    .strict()
    .meta({ id: 'Throwaway' });
  const throwaway: Endpoint = {
    path: THROWAWAY_PATH,
    schema,
    noHistory: null,
    range: null,
    client: "a season's throwaway document.",
    openApi: { operationId: 'getThrowaway', summary: "A season's throwaway document", answer: 'the document' },
  };
  return { endpoints: { ...ENDPOINTS, throwaway }, unregister: () => z.globalRegistry.remove(schema) };
}
