/**
 * The code's layout: folders import one way (core/ from nobody, build/ from nobody but cli/),
 * no import cycle among the product's modules, type-only imports included (a cycle of types is
 * still two modules that cannot be read one before the other), and the build's worker threads and
 * WebAssembly module found where the code says they are.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const FOLDERS = ['core', 'build', 'server', 'publish', 'preview', 'tree', 'schemas', 'cli', 'client', 'init'];

/** Each module (path from the repository root) with the modules of the repository it imports. */
function importGraph(folders = FOLDERS): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const folder of folders) {
    for (const entry of fs.readdirSync(path.join(ROOT, folder), { recursive: true })) {
      const file = path.join(folder, String(entry));
      if (!/\.(ts|js|mjs)$/.test(file)) continue;
      const { importedFiles } = ts.preProcessFile(fs.readFileSync(path.join(ROOT, file), 'utf8'), true, true);
      graph.set(
        file,
        importedFiles
          .map((imported) => imported.fileName)
          .filter((name) => name.startsWith('.'))
          .map((name) => path.normalize(path.join(path.dirname(file), name))),
      );
    }
  }
  return graph;
}

/** The cycles of the graph, one per strongly connected component of more than one module (Tarjan). */
export function importCycles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (module: string): void => {
    order.set(module, counter);
    low.set(module, counter++);
    stack.push(module);
    onStack.add(module);
    for (const next of graph.get(module) ?? []) {
      if (!graph.has(next)) continue;
      if (!order.has(next)) {
        visit(next);
        low.set(module, Math.min(low.get(module)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(module, Math.min(low.get(module)!, order.get(next)!));
      }
    }
    if (low.get(module) !== order.get(module)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== module);
    if (component.length > 1 || graph.get(module)!.includes(module)) cycles.push(component.sort());
  };
  for (const module of graph.keys()) if (!order.has(module)) visit(module);
  return cycles;
}

test('no import cycle in core/, build/, server/, publish/, preview/, tree/, schemas/, cli/, client/, init/', () => {
  const graph = importGraph();
  assert.ok(graph.size > 80, `only ${graph.size} modules found`);
  assert.equal(importCycles(graph), []);
});

/** The imports of modules in `from` that reach a module in one of `folders`. */
function importsInto(from: string, folders: string[]): string[] {
  return [...importGraph()]
    .filter(([module]) => module.startsWith(`${from}/`))
    .flatMap(([module, imports]) =>
      imports.filter((target) => folders.some((folder) => target.startsWith(`${folder}/`))).map((target) => `${module} -> ${target}`),
    );
}

test('core/ (errors, exit codes, progress, formatting, signals, shards) imports no other folder of the product', () => {
  assert.equal(
    importsInto(
      'core',
      FOLDERS.filter((folder) => folder !== 'core'),
    ),
    [],
  );
});

test('only cli/ imports build/: the tree, the server and publishing never reach into the pipeline', () => {
  for (const folder of ['server', 'publish', 'tree', 'schemas', 'core']) assert.equal(importsInto(folder, ['build']), [], folder);
});

test('server/ (the handler and its adapters) never imports build/, publish/ or preview/: the bucket format it reads is tree/bucket.ts', () => {
  assert.equal(importsInto('server', ['build', 'publish', 'preview']), []);
});

test('publish/ never imports server/ or preview/; tree/ and schemas/ import none of the programs', () => {
  assert.equal(importsInto('publish', ['server', 'preview']), []);
  for (const folder of ['tree', 'schemas']) assert.equal(importsInto(folder, ['server', 'publish', 'preview', 'cli']), [], folder);
});

test("init/ (the files of a programme's repository) imports core/ alone, and only cli/ imports init/", () => {
  assert.equal(
    importsInto(
      'init',
      FOLDERS.filter((folder) => folder !== 'core' && folder !== 'init'),
    ),
    [],
  );
  for (const folder of FOLDERS.filter((folder) => folder !== 'cli' && folder !== 'init'))
    assert.equal(importsInto(folder, ['init']), [], folder);
});

test('nothing imports cli/ (it declares the commands and nothing else)', () => {
  for (const folder of FOLDERS.filter((folder) => folder !== 'cli')) assert.equal(importsInto(folder, ['cli']), [], folder);
});

test('inside build/, compute/ (the rows) never imports write/ (the bytes)', () => {
  assert.equal(importsInto('build/compute', ['build/write']), []);
});

test('inside build/, the stages use input/, compute/ and write/, and none of these uses the stages', () => {
  for (const folder of ['build/input', 'build/compute', 'build/write']) assert.equal(importsInto(folder, ['build/stages']), [], folder);
});

/** The repository modules `file` imports for their values: every import but `import type` (and `export type ... from`). */
function valueImports(file: string): string[] {
  const source = ts.createSourceFile(file, fs.readFileSync(path.join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest);
  const imported: string[] = [];
  for (const statement of source.statements) {
    let specifier: ts.Expression | undefined;
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      const bindings = clause?.namedBindings;
      const onlyTypeNames =
        clause?.name === undefined &&
        bindings !== undefined &&
        ts.isNamedImports(bindings) &&
        bindings.elements.length > 0 &&
        bindings.elements.every((element) => element.isTypeOnly);
      const typesOnly = clause !== undefined && (clause.isTypeOnly || onlyTypeNames);
      if (!typesOnly) specifier = statement.moduleSpecifier;
    } else if (ts.isExportDeclaration(statement) && !statement.isTypeOnly) {
      specifier = statement.moduleSpecifier;
    }
    if (specifier && ts.isStringLiteral(specifier) && specifier.text.startsWith('.')) {
      imported.push(path.normalize(path.join(path.dirname(file), specifier.text)));
    }
  }
  return imported;
}

/** `module -> target` for each import of `imports` outside `folder`. */
const leaving = (folder: string, module: string, imports: string[]) =>
  imports.filter((target) => !target.startsWith(`${folder}/`)).map((target) => `${module} -> ${target}`);

test('client/ (what apps import) reaches outside itself only for the types of schemas/; the schemas only in its validation.ts, loaded on demand', () => {
  const graph = importGraph(['client']);
  assert.ok(graph.has('client/index.ts') && graph.has('client/validation.ts'));
  const outside = [...graph].flatMap(([module, imports]) => leaving('client', module, imports));
  assert.equal(
    outside.filter((line) => !line.split(' -> ')[1]!.startsWith('schemas/')),
    [],
    'only schemas/',
  );
  const values = [...graph.keys()]
    .filter((module) => module !== 'client/validation.ts')
    .flatMap((module) => leaving('client', module, valueImports(module)));
  assert.equal(values, [], 'types only');
  // Nothing of the client imports the validation module: it is loaded at run time (client/index.ts, validateOnDemand).
  assert.equal(
    [...graph].filter(([, imports]) => imports.includes('client/validation.ts')).map(([module]) => module),
    [],
  );
});

test("no program imports client/; the explorer page reads the API through it and imports only it, schemas/ and core/'s rules it shows besides itself", () => {
  assert.equal(importsInto('client', ['core', 'build', 'server', 'publish', 'preview', 'tree', 'cli']), []);
  for (const folder of FOLDERS.filter((folder) => folder !== 'client')) assert.equal(importsInto(folder, ['client']), [], folder);
  const explorer = [...importGraph(['explorer'])].flatMap(([module, imports]) => leaving('explorer', module, imports));
  assert.ok(explorer.includes('explorer/api.ts -> client/index.ts'), explorer.join('\n'));
  assert.equal(
    explorer.filter((line) => !/ -> (client\/index\.ts|schemas\/[\w-]+\.ts|core\/(?:new-york-day|position-value)\.ts)$/.test(line)),
    [],
  );
  const fetches = (name: string) => /\bfetch\(/.test(fs.readFileSync(path.join(ROOT, 'explorer', name), 'utf8'));
  const fetching = fs.readdirSync(path.join(ROOT, 'explorer')).filter((name) => name.endsWith('.ts') && name !== 'api.ts' && fetches(name));
  assert.equal(fetching, [], 'only explorer/api.ts fetches, through the client');
});

test('the cycle finder finds a cycle of type-only imports', () => {
  const graph = new Map([
    ['a.ts', ['b.ts']],
    ['b.ts', ['c.ts', 'd.ts']],
    ['c.ts', ['a.ts']],
    ['d.ts', []],
  ]);
  assert.equal(importCycles(graph), [['a.ts', 'b.ts', 'c.ts']]);
  const imported = ts.preProcessFile("import type { A } from './a.ts';\nimport { b, type B } from '../b.ts';\n", true, true);
  assert.equal(
    imported.importedFiles.map((file) => file.fileName),
    ['./a.ts', '../b.ts'],
  );
});

test("every module every import names exists (the worker threads' and the WebAssembly's too)", () => {
  const missing: string[] = [];
  for (const [module, imports] of importGraph()) {
    for (const target of imports) if (!fs.existsSync(path.join(ROOT, target))) missing.push(`${module} -> ${target}`);
  }
  assert.equal(missing, []);
  const write = path.join(ROOT, 'build', 'write');
  for (const file of ['thread-entry.js', 'document-thread.ts', 'file-thread.ts', 'document-bytes.wasm']) {
    assert.ok(fs.existsSync(path.join(write, file)), `build/write/${file}`);
  }
  assert.ok(fs.existsSync(path.join(ROOT, 'tree', 'number-texts.wasm')), 'tree/number-texts.wasm');
  for (const file of ['tree-file-thread.js', 'tree-file-task.ts'])
    assert.ok(fs.existsSync(path.join(ROOT, 'publish', file)), `publish/${file}`);
});

/**
 * The files docs/architecture.md names: every path in backticks, and every file its module map
 * lists under a folder (a name alone is looked up in the folder of its line, or of the line above).
 */
function filesNamedByArchitectureDoc(): string[] {
  const doc = fs.readFileSync(path.join(ROOT, 'docs', 'architecture.md'), 'utf8');
  const named = new Set<string>();
  for (const [, file] of doc.matchAll(/`([\w./-]+\/[\w.-]+\.(?:ts|js|mjs|wasm|md|json|toml))`/g)) named.add(file!);
  const map = doc.split('## Module map')[1]!.split('```')[1]!;
  let top = '';
  let folder = '';
  for (const line of map.split('\n')) {
    const topFolder = /^([\w.-]+)\/(?=\s|$)/.exec(line);
    const subFolder = /^ {2}([\w.-]+)\/(?=\s|$)/.exec(line);
    if (topFolder) folder = top = topFolder[1]!;
    else if (subFolder) folder = `${top}/${subFolder[1]}`;
    else if (/^ {2}\S/.test(line)) folder = top;
    // The text after the folder's column (a description may name files of other folders by path).
    const listing = topFolder || subFolder ? line.slice(27) : line;
    for (const [name] of listing.matchAll(/[\w./*-]+\.(?:ts|js|mjs|wasm|md)\b/g)) {
      if (name.includes('*')) continue;
      named.add(name.includes('/') ? name : `${folder}/${name}`);
    }
  }
  return [...named];
}

test('every file docs/architecture.md names exists where it says', () => {
  const files = filesNamedByArchitectureDoc();
  assert.ok(files.includes('build/write/writer-pool.ts') && files.includes('build/index.ts'), files.join(' '));
  assert.equal(
    files.filter((file) => !fs.existsSync(path.join(ROOT, file))),
    [],
  );
});

/** The modules `entry` reaches through the repository's imports, itself included. */
function reachedFrom(entry: string): string[] {
  const graph = importGraph();
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const next of graph.get(file) ?? []) visit(next);
  };
  visit(entry);
  return [...seen].sort();
}

test("the modules the Worker and the apps' client reach import no node: module (tree/'s Node-only modules among them are verify's and the report's)", () => {
  for (const entry of ['server/worker.ts', 'client/index.ts', 'client/validation.ts']) {
    const reached = reachedFrom(entry);
    assert.ok(reached.length > 3, `${entry}: ${reached.length} modules`);
    const usingNode = reached.filter((file) =>
      ts
        .preProcessFile(fs.readFileSync(path.join(ROOT, file), 'utf8'), true, true)
        .importedFiles.some((imported) => imported.fileName.startsWith('node:')),
    );
    assert.equal(usingNode, [], entry);
  }
  // The tree/ modules that do use Node are reached by neither: verify, the night's report, and the
  // packed folder's reading, writing and compression (verify, publish, serve and the build read it).
  const nodeOnly = fs
    .readdirSync(path.join(ROOT, 'tree'))
    .filter((name) => name.endsWith('.ts') && /from 'node:/.test(fs.readFileSync(path.join(ROOT, 'tree', name), 'utf8')));
  const packedFolder = ['pack-compress.ts', 'packed-files.ts', 'packed-folder.ts', 'tree-files.ts', 'tree-meta.ts'];
  assert.ok(
    nodeOnly.every((name) => name.startsWith('verify') || name === 'night-report.ts' || packedFolder.includes(name)),
    nodeOnly.join(', '),
  );
});

test.run();
