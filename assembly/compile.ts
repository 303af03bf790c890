/**
 * `npm run wasm`: compiles assembly/daily-rows.ts (AssemblyScript) into build/daily-rows.wasm, the
 * module the build loads. The module is committed, so installing and building need no compiler;
 * test/daily-rows.test.ts checks that it is what this source compiles to.
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DAILY_ROWS_WASM } from '../build/daily-rows.ts';

const SOURCE = fileURLToPath(new URL('./daily-rows.ts', import.meta.url));

export async function compileDailyRows(): Promise<Uint8Array> {
  const { default: asc } = await import('assemblyscript/asc');
  let binary: Uint8Array | null = null;
  const { error, stderr } = await asc.main([SOURCE, '-O3', '--runtime', 'stub', '--outFile', 'daily-rows.wasm'], {
    writeFile(name: string, contents: Uint8Array | string) {
      if (name.endsWith('.wasm')) binary = contents as Uint8Array;
    },
  });
  if (error) throw new Error(`${error.message}\n${stderr.toString()}`);
  if (binary === null) throw new Error('the AssemblyScript compiler wrote no module');
  return binary;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  fs.writeFileSync(DAILY_ROWS_WASM, await compileDailyRows());
  process.stderr.write(`wrote ${fileURLToPath(DAILY_ROWS_WASM)}\n`);
}
