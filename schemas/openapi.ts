/**
 * The machine-readable description of the interface (OpenAPI 3.1, `info.version` API_VERSION of
 * the endpoint table), its paths made from the endpoint table (schemas/endpoints.ts) and its
 * components from the same zod schemas that check every file of the tree.
 */
import { z } from 'zod';
import { ErrorBodySchema } from './error.ts';
import { DATE_PATTERN } from './patterns.ts';
import { API_VERSION, ENDPOINTS, type Endpoint, type EndpointTable, PARAMETERS, parametersOf } from './endpoints.ts';

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });
const json = (id: string, description: string) => ({ description, content: { 'application/json': { schema: ref(id) } } });
const errors = {
  '400': json('Error', 'malformed request (see the message)'),
  '404': json('Error', 'no such path'),
  '405': json('Error', 'a method other than GET or HEAD'),
};
const dayParameter = (name: string, description: string) => ({
  name,
  in: 'query',
  required: false,
  description,
  schema: { type: 'string', pattern: DATE_PATTERN.source },
});

/** An endpoint's `get`: its path parameters by kind, `from`/`to` when it takes them, its 200 and its errors (a 400 when it takes any parameter). */
function operation(endpoint: Endpoint): Record<string, unknown> {
  const kinds = parametersOf(endpoint.path);
  const parameters = [
    ...kinds.map((kind) => ({
      name: kind,
      in: 'path',
      required: true,
      description: PARAMETERS[kind].description,
      schema: { type: 'string', pattern: PARAMETERS[kind].pattern.source },
    })),
    ...(endpoint.range ? [dayParameter('from', endpoint.range.from), dayParameter('to', endpoint.range.to)] : []),
  ];
  const id = z.globalRegistry.get(endpoint.schema)?.id;
  if (id === undefined) throw new Error(`${endpoint.path}: its schema has no id (.meta({ id })), which names its OpenAPI component`);
  const unknown = kinds.map((kind) => PARAMETERS[kind].unknown).find((found) => found !== null);
  const badRequest = unknown ? { '400': json('Error', unknown.openApi) } : {};
  const { '400': _malformed, ...others } = errors;
  return {
    operationId: endpoint.openApi.operationId,
    summary: endpoint.openApi.summary,
    ...(parameters.length > 0 ? { parameters } : {}),
    responses: { '200': json(id, endpoint.openApi.answer), ...(parameters.length > 0 ? { ...errors, ...badRequest } : others) },
  };
}

export function openApiDocument(endpoints: EndpointTable = ENDPOINTS): Record<string, unknown> {
  // Every schema given an id with .meta({ id }) becomes a component; the documents' schemas are
  // registered by the endpoint table's imports, the error's by this module's.
  void ErrorBodySchema;
  const generated = z.toJSONSchema(z.globalRegistry, { target: 'draft-2020-12', uri: (id) => `#/components/schemas/${id}` }) as {
    schemas: Record<string, Record<string, unknown>>;
  };
  // The registry lists schemas in the order their modules were first imported, which depends on
  // what else the program loaded: sorted, the document's bytes depend on the schemas alone.
  const schemas = Object.fromEntries(Object.entries(generated.schemas).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  // Each component is embedded in the document, so its own $schema/$id are noise there.
  for (const schema of Object.values(schemas)) {
    delete schema.$schema;
    delete schema.$id;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Wallet portfolio and points leaderboard',
      version: API_VERSION,
      description: 'Read-only JSON. Day boundaries are New York calendar days; the current New York day is never reported as closed.',
    },
    paths: Object.fromEntries(Object.values(endpoints).map((endpoint) => [endpoint.path, { get: operation(endpoint) }])),
    components: { schemas },
  };
}
