/**
 * Builds `wallet-snapshot-client`, the client as a package of its own (packages/client/, run by
 * its `prepack`): the JavaScript of client/ compiled by the same compiler with the same options as
 * `wallet-snapshot/client` (scripts/pack-dist.ts), so the same code; its declarations with the
 * document types written out as plain TypeScript, because the whole package's come from zod
 * schemas and this package has no dependency. The types are checked equal to the schemas' before
 * anything is written, and the package's version must be the whole package's.
 * docs/decisions.md, "The light package".
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { CLIENT_ENDPOINTS_FILE, clientEndpointsText } from './client-endpoints.ts';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const PACKAGE = path.join(ROOT, 'packages', 'client');
const DIST = path.join(PACKAGE, 'dist');
const ENTRY = path.join(ROOT, 'client', 'index.ts');
/** The module the declarations import the document types from, in place of the schemas. */
const DOCUMENTS = 'documents';

const manifest = JSON.parse(fs.readFileSync(path.join(PACKAGE, 'package.json'), 'utf8')) as { version: string };
const whole = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
if (manifest.version !== whole.version) {
  throw new Error(
    `packages/client/package.json has version ${manifest.version}, wallet-snapshot ${whole.version}: the two ship the same client, give them one version`,
  );
}

// The client's functions are the endpoint table's: a client/endpoints.ts the table would not write is not shipped.
if (fs.readFileSync(CLIENT_ENDPOINTS_FILE, 'utf8') !== (await clientEndpointsText())) {
  throw new Error('client/endpoints.ts is not what the endpoint table (schemas/endpoints.ts) makes: run npm run endpoints');
}

/** The compiler options of the whole package's build (tsconfig.build.json). */
function buildOptions(): ts.CompilerOptions {
  const file = path.join(ROOT, 'tsconfig.build.json');
  const config = ts.getParsedCommandLineOfConfigFile(file, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  if (!config) throw new Error(`${file} cannot be read`);
  return config.options;
}

const program = ts.createProgram([ENTRY], buildOptions());
const problems = ts.getPreEmitDiagnostics(program);
if (problems.length > 0) throw new Error(ts.formatDiagnostics(problems, formatHost()));

// The client's own modules, as the whole package's build writes them (schemas' type imports erased from the JavaScript).
const written = new Map<string, string>();
const emitted = program.emit(undefined, (file, text) => {
  const relative = path.relative(path.join(ROOT, 'dist', 'client'), file);
  if (!relative.startsWith('..')) written.set(relative, text);
});
if (emitted.emitSkipped) throw new Error(ts.formatDiagnostics(emitted.diagnostics, formatHost()));

const schemaImport = /(['"])\.\.\/schemas\/[\w-]+\.[jt]s\1/g;
for (const [file, text] of written) {
  if (file.endsWith('.js') && schemaImport.test(text))
    throw new Error(`client/${file} imports a schema at run time: the light package has none`);
  schemaImport.lastIndex = 0;
}

/**
 * Each document type the entry exports, written out whole: the declarations of documents.d.ts. A
 * part of one that is another of them (a day row in the daily document) is written as its name.
 */
function documentTypes(): { names: string[]; text: string } {
  const checker = program.getTypeChecker();
  const entry = checker.getSymbolAtLocation(program.getSourceFile(ENTRY)!)!;
  const printer = ts.createPrinter({ newLine: ts.NewLineKind.LineFeed });
  const out = ts.createSourceFile(`${DOCUMENTS}.d.ts`, '', ts.ScriptTarget.ES2022, false, ts.ScriptKind.TS);
  const print = (node: ts.Node) => printer.printNode(ts.EmitHint.Unspecified, node, out);
  const flags = ts.NodeBuilderFlags.NoTruncation | ts.NodeBuilderFlags.InTypeAlias | ts.NodeBuilderFlags.IgnoreErrors;
  const types = new Map<string, ts.TypeNode>();
  for (const exported of checker.getExportsOfModule(entry)) {
    const target = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
    const source = target.declarations?.[0]?.getSourceFile().fileName ?? '';
    if (!source.startsWith(path.join(ROOT, 'schemas'))) continue;
    const node = checker.typeToTypeNode(checker.getDeclaredTypeOfSymbol(target), undefined, flags);
    if (!node) throw new Error(`${exported.name}: the checker cannot write its type`);
    types.set(exported.name, node);
  }
  const byText = new Map([...types].map(([name, node]) => [print(node), name]));
  const declarations = [...types].map(([name, node]) => {
    const named = (context: ts.TransformationContext) => (root: ts.TypeNode) => {
      const visit = (child: ts.Node): ts.Node => {
        const other = child !== root && ts.isTypeNode(child) ? byText.get(print(child)) : undefined;
        if (other !== undefined && other !== name) return ts.factory.createTypeReferenceNode(other);
        // One member a line: the checker's nodes are marked to print on one.
        if (ts.isTypeLiteralNode(child)) ts.setEmitFlags(child, ts.EmitFlags.None);
        return ts.visitEachChild(child, visit, context);
      };
      return visit(root) as ts.TypeNode;
    };
    const written = ts.transform(node, [named]).transformed[0]!;
    const exportKeyword = [ts.factory.createModifier(ts.SyntaxKind.ExportKeyword)];
    return print(ts.factory.createTypeAliasDeclaration(exportKeyword, name, undefined, written));
  });
  const text = `// The documents of the /v1 API, as wallet-snapshot's schemas define them (written by scripts/build-client-package.ts).\n${declarations.join('\n')}\n`;
  // A type written as a reference into another module (zod's, a schema's) would need that module installed.
  if (/\bimport\(|\$Zod|\bz\./.test(text)) throw new Error(`documents.d.ts refers to another module:\n${text}`);
  return { names: [...types.keys()], text };
}

const documents = documentTypes();
const declarations = new Map(
  [...written]
    .filter(([file]) => file.endsWith('.d.ts'))
    // Each module's own name in the package (`.js`), which every TypeScript an app may run resolves.
    .map(([file, text]) => [file, text.replace(schemaImport, `'./${DOCUMENTS}.js'`).replace(/(['"])\.\/([\w-]+)\.ts\1/g, "'./$2.js'")]),
);
declarations.set(`${DOCUMENTS}.d.ts`, documents.text);
assertSameTypes(documents.names, declarations);

fs.rmSync(DIST, { recursive: true, force: true });
fs.mkdirSync(DIST, { recursive: true });
for (const [file, text] of [...written].filter(([file]) => file.endsWith('.js'))) fs.writeFileSync(path.join(DIST, file), text);
for (const [file, text] of declarations) fs.writeFileSync(path.join(DIST, file), text);
fs.copyFileSync(path.join(ROOT, 'LICENSE'), path.join(PACKAGE, 'LICENSE'));
process.stdout.write(`packages/client/dist written: ${fs.readdirSync(DIST).length} files\n`);

/**
 * Type-checks, in memory, that every document type of the light package is the schema's (each
 * assignable to the other), and that its declarations stand alone: no module outside them, no
 * `@types` (an app may have none).
 */
function assertSameTypes(names: string[], files: Map<string, string>): void {
  const virtual = new Map([...files].map(([file, text]) => [path.join(DIST, file), text]));
  const check = path.join(DIST, 'same-types.ts');
  virtual.set(
    check,
    [
      `import type * as Light from './${DOCUMENTS}.js';`,
      `import type * as Whole from '${path.relative(DIST, ENTRY).split(path.sep).join('/')}';`,
      'type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;',
      ...names.map((name) => `export const ${name}: Same<Light.${name}, Whole.${name}> = true;`),
    ].join('\n'),
  );
  const standalone = path.join(DIST, 'standalone.ts');
  virtual.set(standalone, "import type * as Client from './index.js';\nexport type Uses = Client.Client | Client.ApiError;\n");
  const options: ts.CompilerOptions = {
    ...buildOptions(),
    noEmit: true,
    declaration: false,
    allowImportingTsExtensions: true,
    types: [],
    skipLibCheck: false,
  };
  for (const [roots, what] of [
    [[check], 'the document types differ from the schemas'],
    [[standalone], 'the declarations do not stand alone'],
  ] as const) {
    const host = ts.createCompilerHost(options);
    const { fileExists, readFile, directoryExists } = host;
    host.directoryExists = (dir) => dir === DIST || directoryExists?.(dir) !== false;
    host.fileExists = (file) => virtual.has(file) || (!file.startsWith(DIST) && fileExists(file));
    host.readFile = (file) => virtual.get(file) ?? (file.startsWith(DIST) ? undefined : readFile(file));
    const typed = ts.createProgram([...roots], options, host);
    const found = ts.getPreEmitDiagnostics(typed);
    if (found.length > 0) throw new Error(`${what}:\n${ts.formatDiagnostics(found, formatHost())}`);
    if (roots[0] === standalone) {
      const outside = typed.getSourceFiles().filter((file) => !file.isDeclarationFile || !file.fileName.startsWith(DIST));
      const foreign = outside.filter((file) => file.fileName !== standalone && !/\/typescript\/lib\/lib\./.test(file.fileName));
      if (foreign.length > 0) throw new Error(`${what}: they reach ${foreign.map((file) => file.fileName).join(', ')}`);
    }
  }
}

function formatHost(): ts.FormatDiagnosticsHost {
  return { getCanonicalFileName: (file) => file, getCurrentDirectory: () => ROOT, getNewLine: () => '\n' };
}
