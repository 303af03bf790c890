/**
 * `npm run wasm`: compiles the AssemblyScript modules into the WebAssembly the product loads:
 * assembly/document-bytes.ts into build/write/document-bytes.wasm (the build's writer) and
 * assembly/number-texts.ts into tree/number-texts.wasm (verify's pass over numbers). The modules
 * are committed, so installing and building need no compiler; test/slow/wasm-source.test.ts checks
 * that each is what its source compiles to.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DOCUMENT_BYTES_WASM } from '../build/write/document-bytes.ts';
import { NUMBER_TEXTS_WASM } from '../tree/verify-exact.ts';

export function compileDocumentBytes(): Promise<Uint8Array> {
  return compile(new URL('./document-bytes.ts', import.meta.url));
}

export function compileNumberTexts(): Promise<Uint8Array> {
  return compile(new URL('./number-texts.ts', import.meta.url));
}

async function compile(module: URL): Promise<Uint8Array> {
  const source = fileURLToPath(module);
  const { default: asc } = await import('assemblyscript/asc');
  let binary: Uint8Array | null = null;
  const { error, stderr } = await asc.main([source, '-O3', '--runtime', 'stub', '--outFile', 'module.wasm'], {
    readFile(name: string, baseDir: string) {
      if (path.basename(name) === 'powers-of-five.ts') return powersOfFiveSource();
      const file = path.resolve(baseDir, name);
      return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null;
    },
    writeFile(name: string, contents: Uint8Array | string) {
      if (name.endsWith('.wasm')) binary = contents as Uint8Array;
    },
  });
  if (error) throw new Error(`${error.message}\n${stderr.toString()}`);
  if (binary === null) throw new Error('the AssemblyScript compiler wrote no module');
  return binary;
}

/** Bits kept of each power of five and of each inverse (Ryu's choice for doubles). */
const POW5_BITS = 125n;
const POW5_INV_BITS = 125n;

/**
 * The module `./powers-of-five` that assembly/document-bytes.ts imports, computed here with exact
 * integers rather than committed as 1,336 opaque constants. Entry i, as two u64 (low, high):
 * - POW5_SPLIT[i] (i < 326): the top 125 bits of 5^i;
 * - POW5_INV_SPLIT[i] (i < 342): floor(2^(bitlength(5^i) - 1 + 125) / 5^i) + 1.
 */
export function powersOfFiveSource(): string {
  const halves = (value: bigint) => [value & 0xFFFFFFFFFFFFFFFFn, value >> 64n];
  const split: bigint[] = [];
  for (let i = 0n; i < 326n; i++) {
    const power = 5n ** i;
    const shift = BigInt(power.toString(2).length) - POW5_BITS;
    split.push(...halves(shift >= 0n ? power >> shift : power << -shift));
  }
  const inverse: bigint[] = [];
  for (let i = 0n; i < 342n; i++) {
    const power = 5n ** i;
    const bits = BigInt(power.toString(2).length) - 1n + POW5_INV_BITS;
    inverse.push(...halves((1n << bits) / power + 1n));
  }
  const table = (values: bigint[]) => `memory.data<u64>([${values.map((value) => `0x${value.toString(16)}`).join(', ')}])`;
  return [
    `export const POW5_BITS: i32 = ${POW5_BITS};`,
    `export const POW5_INV_BITS: i32 = ${POW5_INV_BITS};`,
    `export const POW5_SPLIT: usize = ${table(split)};`,
    `export const POW5_INV_SPLIT: usize = ${table(inverse)};`,
    '',
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const [file, made] of [
    [DOCUMENT_BYTES_WASM, compileDocumentBytes],
    [NUMBER_TEXTS_WASM, compileNumberTexts],
  ] as const) {
    fs.writeFileSync(file, await made());
    process.stderr.write(`wrote ${fileURLToPath(file)}\n`);
  }
}
