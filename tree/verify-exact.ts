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
 */

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
 * build. (The key of a number in an array is that of the array.)
 */
export function readNumberTexts(file: string, text: string, parsed: unknown): NumberTexts {
  const scan = new TextScan(file, text);
  if (scan.run()) return { problem: scan.problem, balances: scan.problem === null ? scan.balances : null };
  return pairWithParsed(file, text, parsed);
}

const QUOTE = 34;
const BACKSLASH = 92;
const COLON = 58;
const OPEN_OBJECT = 123;
const CLOSE_OBJECT = 125;
const OPEN_ARRAY = 91;
const CLOSE_ARRAY = 93;
const MINUS = 45;
const DOT = 46;
const ZERO = 48;
const NINE = 57;
const SPACE = 32;
const LOWER_E = 101;
const UPPER_E = 69;
/** Keys an object may have before the duplicate check (quadratic) gives way to the slow pairing. */
const MAX_KEYS_CHECKED = 32;
/** Digits one double tells apart: any shorter decimal is the text JavaScript writes for its double. */
const SAFE_DIGITS = 15;

/**
 * One pass over a JSON text that JSON.parse accepted (so its grammar is not checked again). Keys
 * are kept as ranges of the text (no string per key); the stack holds, per open object or array,
 * where its keys start in `keyStarts`/`keyEnds` and the key its numbers belong to.
 */
class TextScan {
  problem: string | null = null;
  readonly balances: string[] = [];
  private keyStarts: number[] = [];
  private keyEnds: number[] = [];
  private keyIsBalance: boolean[] = [];
  private keyCount = 0;
  /** Per depth: is an array; first key of the object in keyStarts; the key of an array's items. */
  private isArray: boolean[] = [];
  private firstKey: number[] = [];
  private itemKeyStart: number[] = [];
  private itemKeyEnd: number[] = [];
  /** Per depth (objects): the last array-index key, -1 for none; -2 once another key came. */
  private lastIndexKey: number[] = [];
  private depth = -1;

  constructor(
    private readonly file: string,
    private readonly text: string,
  ) {}

  /** False when the texts cannot be paired in document order (the caller pairs them the slow way). */
  run(): boolean {
    const text = this.text;
    const length = text.length;
    // Without a backslash in the whole text, a string ends at the next quote (found natively).
    const anyEscape = text.indexOf('\\') !== -1;
    let i = 0;
    while (i < length) {
      const code = text.charCodeAt(i);
      if (code === QUOTE) {
        const start = i + 1;
        let escaped = false;
        if (anyEscape) {
          i = start;
          for (;;) {
            const c = text.charCodeAt(i);
            if (c === QUOTE) break;
            if (c === BACKSLASH) {
              escaped = true;
              i += 2;
            } else {
              i++;
            }
          }
        } else {
          i = text.indexOf('"', start);
        }
        const end = i;
        i++;
        while (i < length && text.charCodeAt(i) <= SPACE) i++;
        if (i < length && text.charCodeAt(i) === COLON) {
          // A key. Escapes could spell one key two ways: such a text goes the slow way.
          if (escaped || !this.addKey(start, end)) return false;
          i++;
        }
      } else if (code === MINUS || (code >= ZERO && code <= NINE)) {
        i = this.number(i);
      } else if (code === OPEN_OBJECT || code === OPEN_ARRAY) {
        this.open(code === OPEN_ARRAY);
        i++;
      } else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) {
        if (code === CLOSE_OBJECT) this.keyCount = this.firstKey[this.depth]!;
        this.depth--;
        i++;
      } else {
        i++;
      }
    }
    return true;
  }

  private open(array: boolean): void {
    const parent = this.depth;
    const depth = ++this.depth;
    this.isArray[depth] = array;
    this.firstKey[depth] = this.keyCount;
    this.lastIndexKey[depth] = -1;
    if (!array) return;
    // An array's items take the key of the array, as when the parsed value is walked.
    if (parent < 0) {
      this.itemKeyStart[depth] = 0;
      this.itemKeyEnd[depth] = 0;
    } else if (this.isArray[parent]) {
      this.itemKeyStart[depth] = this.itemKeyStart[parent]!;
      this.itemKeyEnd[depth] = this.itemKeyEnd[parent]!;
    } else {
      this.itemKeyStart[depth] = this.keyStarts[this.keyCount - 1] ?? 0;
      this.itemKeyEnd[depth] = this.keyEnds[this.keyCount - 1] ?? 0;
    }
  }

  /** Records a key of the open object; false when the parsed object would not enumerate in text order. */
  private addKey(start: number, end: number): boolean {
    const text = this.text;
    const depth = this.depth;
    const first = this.firstKey[depth]!;
    if (this.keyCount - first >= MAX_KEYS_CHECKED) return false;
    const length = end - start;
    for (let k = first; k < this.keyCount; k++) {
      const otherStart = this.keyStarts[k]!;
      if (this.keyEnds[k]! - otherStart !== length) continue;
      let same = true;
      for (let c = 0; c < length; c++) {
        if (text.charCodeAt(start + c) !== text.charCodeAt(otherStart + c)) {
          same = false;
          break;
        }
      }
      if (same) return false;
    }
    // Array-index keys ("0" to "4294967294") enumerate first, ascending: they must come so in the text.
    const index = indexKey(text, start, end);
    const last = this.lastIndexKey[depth]!;
    if (index === -2) return false;
    if (index >= 0) {
      if (last === -2 || index <= last) return false;
      this.lastIndexKey[depth] = index;
    } else {
      this.lastIndexKey[depth] = -2;
    }
    this.keyStarts[this.keyCount] = start;
    this.keyEnds[this.keyCount] = end;
    this.keyIsBalance[this.keyCount] = isBalanceKey(text, start, end);
    this.keyCount++;
    return true;
  }

  /** Checks the number starting at `start`; returns the offset after it. */
  private number(start: number): number {
    const text = this.text;
    let i = start;
    const negative = text.charCodeAt(i) === MINUS;
    if (negative) i++;
    const integerStart = i;
    while (isDigit(text.charCodeAt(i))) i++;
    const integerEnd = i;
    let fractionStart = -1;
    let fractionEnd = -1;
    if (text.charCodeAt(i) === DOT) {
      fractionStart = ++i;
      while (isDigit(text.charCodeAt(i))) i++;
      fractionEnd = i;
    }
    let exponent = false;
    const afterMantissa = text.charCodeAt(i);
    if (afterMantissa === LOWER_E || afterMantissa === UPPER_E) {
      exponent = true;
      i++;
      const sign = text.charCodeAt(i);
      if (sign === 43 || sign === MINUS) i++;
      while (isDigit(text.charCodeAt(i))) i++;
    }
    const end = i;
    if (this.problem !== null) return end;
    const depth = this.depth;
    let keyStart = 0;
    let keyEnd = 0;
    let balance = false;
    if (depth >= 0 && this.isArray[depth]) {
      keyStart = this.itemKeyStart[depth]!;
      keyEnd = this.itemKeyEnd[depth]!;
      balance = isBalanceKey(text, keyStart, keyEnd);
    } else if (depth >= 0 && this.keyCount > this.firstKey[depth]!) {
      keyStart = this.keyStarts[this.keyCount - 1]!;
      keyEnd = this.keyEnds[this.keyCount - 1]!;
      balance = this.keyIsBalance[this.keyCount - 1]!;
    }
    const trailingZero = fractionStart >= 0 && text.charCodeAt(fractionEnd - 1) === ZERO;
    if (balance) {
      const written = text.slice(start, end);
      if (negative || exponent || trailingZero) this.problem = numberProblem(this.file, 'balance', written);
      else this.balances.push(written);
      return end;
    }
    if (!exponent && !trailingZero && isShortestText(text, negative, integerStart, integerEnd, fractionStart, fractionEnd)) return end;
    // Writing a number back costs a conversion each way; a day of one position repeats its value
    // as the day's total, so the text just found right is not converted again.
    if (this.sameAsLastWrittenBack(start, end)) return end;
    const written = text.slice(start, end);
    if (String(Number(written)) !== written) this.problem = numberProblem(this.file, text.slice(keyStart, keyEnd), written);
    this.lastWrittenBackStart = start;
    this.lastWrittenBackEnd = end;
    return end;
  }

  private lastWrittenBackStart = 0;
  private lastWrittenBackEnd = 0;

  private sameAsLastWrittenBack(start: number, end: number): boolean {
    const length = end - start;
    if (length !== this.lastWrittenBackEnd - this.lastWrittenBackStart) return false;
    const text = this.text;
    const other = this.lastWrittenBackStart;
    for (let c = 0; c < length; c++) if (text.charCodeAt(start + c) !== text.charCodeAt(other + c)) return false;
    return true;
  }
}

/**
 * Whether a decimal without exponent or trailing fraction zero is the text JavaScript writes for
 * its double (Number::toString), decided without converting: at most 15 significant digits (one
 * double never holds two such decimals, so the shortest text of the double is this one), a value
 * JavaScript writes without exponent (below 1e21, at least 1e-6), and not "-0". Other texts are
 * converted and written back by the caller.
 */
function isShortestText(
  text: string,
  negative: boolean,
  integerStart: number,
  integerEnd: number,
  fractionStart: number,
  fractionEnd: number,
): boolean {
  const integerDigits = integerEnd - integerStart;
  if (integerDigits === 1 && text.charCodeAt(integerStart) === ZERO) {
    if (fractionStart < 0) return !negative;
    let zeros = 0;
    while (text.charCodeAt(fractionStart + zeros) === ZERO) zeros++;
    return zeros <= 5 && fractionEnd - fractionStart - zeros <= SAFE_DIGITS;
  }
  if (integerDigits > 21) return false;
  if (fractionStart >= 0) return integerDigits + fractionEnd - fractionStart <= SAFE_DIGITS;
  let significant = integerDigits;
  while (significant > 1 && text.charCodeAt(integerStart + significant - 1) === ZERO) significant--;
  return significant <= SAFE_DIGITS;
}

function isDigit(code: number): boolean {
  return code >= ZERO && code <= NINE;
}

const BALANCE = 'balance';

function isBalanceKey(text: string, start: number, end: number): boolean {
  if (end - start !== BALANCE.length) return false;
  for (let c = 0; c < BALANCE.length; c++) if (text.charCodeAt(start + c) !== BALANCE.charCodeAt(c)) return false;
  return true;
}

/** The array index a key names, -1 for a key that is not one, -2 for an all-digit key V8 may treat either way. */
function indexKey(text: string, start: number, end: number): number {
  const length = end - start;
  if (length === 0) return -1;
  for (let c = start; c < end; c++) if (!isDigit(text.charCodeAt(c))) return -1;
  if (length > 1 && text.charCodeAt(start) === ZERO) return -1;
  if (length > 9) return -2;
  return Number(text.slice(start, end));
}

function numberProblem(file: string, key: string, written: string): string {
  return `${file}: ${key} ${written} is not ${key === BALANCE ? 'an exact decimal as the build writes it' : `the text of the number it stands for (${String(Number(written))}): digits beyond a double's`}`;
}

/** A string (skipped: its digits are not numbers) or a number, in JSON's grammar. */
const TOKEN = /"(?:[^"\\]|\\.)*"|-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/g;

/**
 * The slow way, for texts whose keys do not enumerate in text order: each number's text paired
 * with the parsed number met at the same place in a walk of the value.
 */
function pairWithParsed(file: string, text: string, parsed: unknown): NumberTexts {
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
