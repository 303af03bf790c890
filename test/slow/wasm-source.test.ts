/**
 * The committed WebAssembly modules are what their sources compile to: build/write/document-bytes.wasm
 * (assembly/document-bytes.ts) and tree/number-texts.wasm (assembly/number-texts.ts).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import { DOCUMENT_BYTES_WASM } from '../../build/write/document-bytes.ts';
import { NUMBER_TEXTS_WASM } from '../../tree/verify-exact.ts';
import { compileDocumentBytes, compileNumberTexts } from '../../assembly/compile.ts';

test("the committed documents' module is what its source compiles to", async () => {
  assert.equal(await compileDocumentBytes(), new Uint8Array(fs.readFileSync(DOCUMENT_BYTES_WASM)));
});

test("the committed number texts' module is what its source compiles to", async () => {
  assert.equal(await compileNumberTexts(), new Uint8Array(fs.readFileSync(NUMBER_TEXTS_WASM)));
});

test.run();
