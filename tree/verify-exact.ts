/**
 * Numbers as the exact text a document holds, never as the double JSON.parse makes of it: a digit
 * beyond the 17th significant one changes no double, but it changes the answer an app shows.
 *
 * JSON.parse gives the values; one scan of the text gives every number's text in document order,
 * paired with the parsed numbers by walking the value in the same order. (lossless-json parses
 * exactly too, but about ten times slower than JSON.parse: minutes for a 100k-wallet tree.)
 */
type Fail = (message: string) => void;

/** A string (skipped: its digits are not numbers) or a number, in JSON's grammar. */
const TOKEN = /"(?:[^"\\]|\\.)*"|-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/g;
/** The text the build writes for a token amount: an exact decimal, no exponent, no padding. */
const EXACT_DECIMAL = /^(?:0|[1-9][0-9]*)(?:\.[0-9]*[1-9])?$/;

const textsOf = new WeakMap<object, Map<string, string>>();

/**
 * Checks every number of a parsed document against its text: amounts under a `balance` key must
 * be exact decimals; every other number is a double the build wrote as JavaScript's own text
 * for it, so any other text (an extra digit, a trailing zero, an exponent) was not written by the
 * build. Keeps the texts for `exactText`.
 */
export function checkNumberTexts(file: string, text: string, parsed: unknown): string | null {
  TOKEN.lastIndex = 0;
  const next = (): string | null => {
    for (let match = TOKEN.exec(text); match; match = TOKEN.exec(text)) if (match[0][0] !== '"') return match[0];
    return null;
  };
  let problem: string | null = null;
  const visit = (value: unknown, key: string, holder: object | null): void => {
    if (problem) return;
    if (typeof value === 'number') {
      const written = next();
      if (written === null || Number(written) !== value) {
        problem = `${file}: its numbers cannot be read in document order (keys out of order?)`;
        return;
      }
      if (key === 'balance' ? !EXACT_DECIMAL.test(written) : String(value) !== written) {
        problem = `${file}: ${key} ${written} is not ${key === 'balance' ? 'an exact decimal as the build writes it' : `the text of the number it stands for (${String(value)}): digits beyond a double's`}`;
        return;
      }
      if (holder) {
        let texts = textsOf.get(holder);
        if (!texts) textsOf.set(holder, (texts = new Map()));
        texts.set(key, written);
      }
    } else if (Array.isArray(value)) {
      for (const item of value) visit(item, key, null);
    } else if (value !== null && typeof value === 'object') {
      for (const [name, item] of Object.entries(value)) visit(item, name, value);
    }
  };
  visit(parsed, '', null);
  if (!problem && next() !== null) problem = `${file}: its numbers cannot be read in document order (keys out of order?)`;
  return problem;
}

/** The exact text of `holder[key]` as its document wrote it (after checkNumberTexts), else the double's text. */
export function exactText(holder: object, key: string): string {
  return textsOf.get(holder)?.get(key) ?? String((holder as Record<string, unknown>)[key]);
}

export function reportNumberTexts(file: string, text: string, parsed: unknown, fail: Fail): void {
  const problem = checkNumberTexts(file, text, parsed);
  if (problem) fail(problem);
}
