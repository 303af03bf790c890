/**
 * Numbers as the exact text a document holds, never as the double JSON.parse makes of it: a digit
 * beyond the 17th significant one changes no double, but it changes the answer an app shows.
 *
 * JSON.parse gives the values; one pass over the text checks every number's text, in document
 * order, and keeps the texts of the balances (the numbers the cross-file rules compare exactly).
 * The texts pair with the parsed numbers when the parsed value enumerates in the text's order:
 * no duplicate key (JSON.parse keeps the last) and no integer-like key after another key it would
 * be enumerated before (V8 enumerates array-index keys first, ascending). The pass checks both;
 * a text where either fails (only a tampered one) is read the slow way, pairing each text with
 * its parsed number, as verify always did. (lossless-json parses exactly too, but about ten
 * times slower than JSON.parse: minutes for a 100k-wallet tree.)
 *
 * The pass runs over the document's bytes in WebAssembly (assembly/number-texts.ts, compiled into
 * tree/number-texts.wasm), faster than the same pass in JavaScript (bench/LOG.md); it settles
 * every number it can (a long one by writing back the double its digits give) and records the
 * rest, which are converted here.
 */
import fs from 'node:fs';
import { growTo } from '../core/wasm-memory.ts';

/** The text the build writes for a token amount: an exact decimal, no exponent, no padding. */
const EXACT_DECIMAL = /^(?:0|[1-9][0-9]*)(?:\.[0-9]*[1-9])?$/;

export interface NumberTexts {
  /** The first number whose text the build would not have written, or a text that cannot be paired. */
  problem: string | null;
  /**
   * The text of every number under a `balance` key, in the order the parsed value enumerates them
   * (that of the document); null when the texts could not be paired with the parsed numbers.
   */
  balances: string[] | null;
}

/**
 * Checks every number of a parsed document against its text: amounts under a `balance` key must
 * be exact decimals; every other number is a double the build wrote as JavaScript's own text for
 * it, so any other text (an extra digit, a trailing zero, an exponent) was not written by the
 * build. (The key of a number in an array is that of the array.) `text` is `bytes` decoded.
 */
export function readNumberTexts(file: string, bytes: Uint8Array, text: string, parsed: unknown): NumberTexts {
  const scan = numberScan();
  const found = scan.run(bytes);
  if (found === null) return pairWithParsed(file, text, parsed);
  // Offsets are the bytes'; they are the text's too when each character is one byte.
  const aligned = text.length === bytes.length;
  const slice = (start: number, end: number) =>
    aligned ? text.slice(start, end) : Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString('utf8');
  const balances: string[] = [];
  for (let r = 0; r < found.count; r++) {
    const at = r * scan.recordWords;
    const written = slice(found.words[at]!, found.words[at + 1]!);
    const keyStart = found.words[at + 2]!;
    if (keyStart === scan.noKey) {
      balances.push(written);
      continue;
    }
    if (String(Number(written)) !== written)
      return { problem: numberProblem(file, slice(keyStart, found.words[at + 3]!), written), balances: null };
  }
  if (found.badBalance !== null) return { problem: numberProblem(file, BALANCE, slice(...found.badBalance)), balances: null };
  return { problem: null, balances };
}

export const NUMBER_TEXTS_WASM = new URL('./number-texts.wasm', import.meta.url);

interface NumberTextsExports {
  memory: WebAssembly.Memory;
  dataStart(): number;
  scan(at: number, length: number, into: number, room: number): number;
  records: WebAssembly.Global;
  badBalanceStart: WebAssembly.Global;
  badBalanceEnd: WebAssembly.Global;
  // Its constants: what `scan` returns, and the shape of a record.
  PAIRED: WebAssembly.Global;
  FULL: WebAssembly.Global;
  RECORD_WORDS: WebAssembly.Global;
  NO_KEY: WebAssembly.Global;
}

interface Found {
  count: number;
  words: Int32Array;
  badBalance: [number, number] | null;
}

/** One instance of the module per thread, its memory grown to the largest document met. */
class NumberScan {
  private readonly exports: NumberTextsExports;
  private readonly start: number;
  /** The module's record: a number's start and end, its key's start and end (noKey: a balance). */
  readonly recordWords: number;
  readonly noKey: number;
  private readonly paired: number;
  private readonly full: number;

  constructor(module: WebAssembly.Module) {
    const exports = new WebAssembly.Instance(module, {}).exports as unknown as NumberTextsExports;
    this.exports = exports;
    this.start = exports.dataStart();
    this.recordWords = exports.RECORD_WORDS.value as number;
    this.noKey = exports.NO_KEY.value as number;
    this.paired = exports.PAIRED.value as number;
    this.full = exports.FULL.value as number;
  }

  /** The records of one document, or null when its texts cannot be paired in document order. */
  run(bytes: Uint8Array): Found | null {
    const { exports } = this;
    // The document, a zero byte after it (numbers end there), then the records, eight-byte aligned.
    const into = this.start + ((bytes.length + 1 + 7) & ~7);
    let room = 64 + (bytes.length >> 5);
    for (;;) {
      growTo(exports.memory, into + room * this.recordWords * 4);
      const memory = new Uint8Array(exports.memory.buffer);
      memory.set(bytes, this.start);
      memory[this.start + bytes.length] = 0;
      const status = exports.scan(this.start, bytes.length, into, room);
      if (status === this.full) {
        room *= 2;
        continue;
      }
      if (status !== this.paired) return null;
      const count = exports.records.value as number;
      const bad = exports.badBalanceStart.value as number;
      return {
        count,
        words: new Int32Array(exports.memory.buffer, into, count * this.recordWords),
        badBalance: bad >= 0 ? [bad, exports.badBalanceEnd.value as number] : null,
      };
    }
  }
}

let scanner: NumberScan | null = null;

/** The pass's records of one document (each number it leaves to JavaScript, each balance), or null when its texts cannot be paired. */
export function scanNumberTexts(bytes: Uint8Array): Found | null {
  return numberScan().run(bytes);
}

function numberScan(): NumberScan {
  scanner ??= new NumberScan(new WebAssembly.Module(fs.readFileSync(NUMBER_TEXTS_WASM)));
  return scanner;
}

const BALANCE = 'balance';

function numberProblem(file: string, key: string, written: string): string {
  return `${file}: ${key} ${written} is not ${key === BALANCE ? 'an exact decimal as the build writes it' : `the text of the number it stands for (${String(Number(written))}): digits beyond a double's`}`;
}

/** A string (skipped: its digits are not numbers) or a number, in JSON's grammar. */
const TOKEN = /"(?:[^"\\]|\\.)*"|-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/g;

/**
 * The slow way, for texts whose keys do not enumerate in text order: each number's text paired
 * with the parsed number met at the same place in a walk of the value. (Exported for the test that
 * holds the one pass to it.)
 */
export function pairWithParsed(file: string, text: string, parsed: unknown): NumberTexts {
  TOKEN.lastIndex = 0;
  const next = (): string | null => {
    for (let match = TOKEN.exec(text); match; match = TOKEN.exec(text)) if (match[0][0] !== '"') return match[0];
    return null;
  };
  const balances: string[] = [];
  let problem: string | null = null;
  const unpaired = `${file}: its numbers cannot be read in document order (keys out of order?)`;
  const visit = (value: unknown, key: string): void => {
    if (problem) return;
    if (typeof value === 'number') {
      const written = next();
      if (written === null || Number(written) !== value) {
        problem = unpaired;
        return;
      }
      if (key === BALANCE ? !EXACT_DECIMAL.test(written) : String(value) !== written) {
        problem = numberProblem(file, key, written);
        return;
      }
      if (key === BALANCE) balances.push(written);
    } else if (Array.isArray(value)) {
      for (const item of value) visit(item, key);
    } else if (value !== null && typeof value === 'object') {
      for (const [name, item] of Object.entries(value)) visit(item, name);
    }
  };
  visit(parsed, '');
  if (!problem && next() !== null) problem = unpaired;
  return { problem, balances: problem === null ? balances : null };
}
