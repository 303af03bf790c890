/**
 * client/endpoints.ts, the client's part of the endpoint table (schemas/endpoints.ts): each
 * function's path and range, and its type with its sentence and document. The client imports
 * nothing of the table at run time, so that an app's bundle carries neither zod nor the table's
 * other columns: this script writes it from the table (`npm run endpoints`), and
 * test/endpoints.test.ts and the light package's build refuse a file that is not what the table
 * makes. docs/decisions.md, "One endpoint table".
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { clientRoutes, ENDPOINTS, type EndpointTable, PARAMETERS, parametersOf } from '../schemas/endpoints.ts';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
export const CLIENT_ENDPOINTS_FILE = path.join(ROOT, 'client', 'endpoints.ts');

/** Each schema the schemas' modules declare (`export const NameSchema =`): its module and its type's name (`Name`). */
async function declaredSchemas(): Promise<Map<unknown, { module: string; type: string }>> {
  const declared = new Map<unknown, { module: string; type: string }>();
  const dir = path.join(ROOT, 'schemas');
  for (const file of fs.readdirSync(dir).sort()) {
    if (!file.endsWith('.ts')) continue;
    const source = fs.readFileSync(path.join(dir, file), 'utf8');
    const names = [...source.matchAll(/^export const (\w+)Schema\b/gm)].map(([, name]) => name!);
    if (names.length === 0) continue;
    const module = (await import(pathToFileURL(path.join(dir, file)).href)) as Record<string, unknown>;
    for (const name of names) declared.set(module[`${name}Schema`], { module: file, type: name });
  }
  return declared;
}

/** The text of client/endpoints.ts for a table (the product's, unless a test gives another). */
export async function clientEndpointsText(endpoints: EndpointTable = ENDPOINTS): Promise<string> {
  const declared = await declaredSchemas();
  const routes = clientRoutes(endpoints);
  const documents = Object.values(endpoints).map((endpoint) => {
    const found = declared.get(endpoint.schema);
    if (!found) throw new Error(`${endpoint.path}: its schema is not a schemas/ module's export const <Name>Schema`);
    return found;
  });
  const imports = [...new Map(documents.map((document) => [document.type, document])).values()]
    .sort((a, b) => (a.module < b.module ? -1 : a.module > b.module ? 1 : 0))
    .map(({ module, type }) => `import type { ${type} } from '../schemas/${module}';`);
  const functions = Object.entries(endpoints).flatMap(([name, endpoint], i) => {
    const route = routes[name]!;
    const parameters = parametersOf(endpoint.path).map((kind) => `${kind}: ${PARAMETERS[kind].type}, `);
    return [
      `  /** \`GET /${route.path}\`: ${endpoint.client} */`,
      `  ${name}(${parameters.join('')}options?: ${route.range ? 'Range' : 'Call'}): Promise<${documents[i]!.type}>;`,
    ];
  });
  const routeLines = Object.entries(routes).map(([name, route]) => `  ${name}: { path: '${route.path}', range: ${route.range} },`);
  return [
    '/**',
    " * The client's part of the endpoint table (schemas/endpoints.ts): what each function asks for, and",
    ' * its type. Written from the table by scripts/client-endpoints.ts (`npm run endpoints`), not by',
    ' * hand: test/endpoints.test.ts fails when it is not what the table makes.',
    ' */',
    ...imports,
    '',
    `export type { ${[...new Set(documents.map((document) => document.type))].join(', ')} };`,
    '',
    "/** Each function's path under the base (`{name}`: its arguments, in order), and whether it takes a range of days. */",
    'export const ROUTES = {',
    ...routeLines,
    '} as const;',
    '',
    "/** One function per endpoint, given the options of a call and of a call over a range of days (client/index.ts's `Client`). */",
    'export interface EndpointFunctions<Call, Range> {',
    ...functions,
    '}',
    '',
  ].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  fs.writeFileSync(CLIENT_ENDPOINTS_FILE, await clientEndpointsText());
  process.stdout.write(`${path.relative(process.cwd(), CLIENT_ENDPOINTS_FILE)} written from schemas/endpoints.ts\n`);
}
