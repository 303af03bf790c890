/**
 * `npm run wasm`: compiles assembly/document-bytes.ts (AssemblyScript) into build/document-bytes.wasm, the
 * module the build loads. The module is committed, so installing and building need no compiler;
 * test/document-bytes.test.ts checks that it is what this source compiles to.
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DOCUMENT_BYTES_WASM } from '../build/document-bytes.ts';

const SOURCE = fileURLToPath(new URL('./document-bytes.ts', import.meta.url));

export async function compileDocumentBytes(): Promise<Uint8Array> {
  const { default: asc } = await import('assemblyscript/asc');
  let binary: Uint8Array | null = null;
  const { error, stderr } = await asc.main([SOURCE, '-O3', '--runtime', 'stub', '--outFile', 'document-bytes.wasm'], {
    writeFile(name: string, contents: Uint8Array | string) {
      if (name.endsWith('.wasm')) binary = contents as Uint8Array;
    },
  });
  if (error) throw new Error(`${error.message}\n${stderr.toString()}`);
  if (binary === null) throw new Error('the AssemblyScript compiler wrote no module');
  return binary;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  fs.writeFileSync(DOCUMENT_BYTES_WASM, await compileDocumentBytes());
  process.stderr.write(`wrote ${fileURLToPath(DOCUMENT_BYTES_WASM)}\n`);
}
