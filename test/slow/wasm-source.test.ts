/** The committed build/write/document-bytes.wasm is what its source (assembly/document-bytes.ts) compiles to. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import { DOCUMENT_BYTES_WASM } from '../../build/write/document-bytes.ts';
import { compileDocumentBytes } from '../../assembly/compile.ts';

test('the committed module is what its source compiles to', async () => {
  assert.equal(await compileDocumentBytes(), new Uint8Array(fs.readFileSync(DOCUMENT_BYTES_WASM)));
});

test.run();
