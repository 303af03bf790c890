/**
 * A fast acceptance test compiled from a zod schema (schemas/ stays the one source of truth): the
 * same types and checks, read from the schema's own definition, written out as the source of one
 * plain function over the parsed value (`new Function`), with no issue objects, paths or payloads
 * built for values that pass. It only ever says
 * "accepted"; anything it does not accept is handed to zod itself, whose message is the one
 * reported, so it can make no check weaker, only the passing documents cheaper. A schema using a
 * construct it does not know (a transform, a union, a check kind not listed) is not compiled at
 * all: zod checks those documents alone.
 *
 * Refinements (zod's `custom` checks) are called as zod calls them; the result of one on a string
 * is remembered, as they are pure functions of the value here (`isRealCalendarDate`, called for
 * every date of every document, is the one that matters: a tree holds a few hundred dates).
 */
import type { z } from 'zod';

type Accept = (value: unknown) => boolean;

/** Zod's own definitions, as far as they are read here (zod 4's `_zod.def`). */
interface Definition {
  type: string;
  checks?: { _zod: { def: CheckDefinition } }[];
  shape?: Record<string, ZodLike>;
  catchall?: ZodLike;
  element?: ZodLike;
  innerType?: ZodLike;
  in?: ZodLike;
  out?: ZodLike;
  keyType?: ZodLike;
  valueType?: ZodLike;
  entries?: Record<string, unknown>;
  values?: unknown[];
  coerce?: boolean;
}

interface CheckDefinition {
  check: string;
  value?: unknown;
  inclusive?: boolean;
  format?: string;
  pattern?: RegExp;
  maximum?: number;
  minimum?: number;
  fn?: (value: unknown) => unknown;
  when?: unknown;
}

interface ZodLike {
  _zod: { def: Definition };
}

class Unsupported extends Error {}

const compiled = new WeakMap<object, Accept | null>();

/** The acceptance test of `schema`, or null when zod alone must check its documents. */
export function fastAcceptor(schema: z.ZodType): Accept | null {
  if (compiled.has(schema)) return compiled.get(schema)!;
  let accept: Accept | null;
  try {
    const code = new Code();
    const body = code.accept(schema as unknown as ZodLike, 'value');
    // One function whose checks are written out: a closure per check costs several times as much (bench/LOG.md).
    accept = new Function('outside', `return (value) => { ${body} return true; };`)(code.outside) as Accept;
  } catch (error) {
    if (!(error instanceof Unsupported)) throw error;
    accept = null;
  }
  compiled.set(schema, accept);
  return accept;
}

/**
 * The source of an acceptance test: statements that `return false` for a value they refuse, over
 * uniquely named constants; what a statement cannot spell as a literal (a pattern, a set, a
 * refinement) it reads from `outside`.
 */
class Code {
  readonly outside: unknown[] = [];
  private names = 0;

  /** Statements refusing `value` (a variable's name) unless it passes `schema`'s type and checks. */
  accept(schema: ZodLike, value: string): string {
    const def = schema._zod.def;
    if (def.coerce) throw new Unsupported('coercion');
    return this.type(def, value) + this.checks(def, value);
  }

  private name(): string {
    return `v${this.names++}`;
  }

  private from(thing: unknown): string {
    this.outside.push(thing);
    return `outside[${this.outside.length - 1}]`;
  }

  private type(def: Definition, value: string): string {
    switch (def.type) {
      case 'number':
        // Zod's number refuses NaN and the infinities (JSON.parse never makes them anyway).
        return `if (typeof ${value} !== 'number' || !Number.isFinite(${value})) return false;`;
      case 'string':
        return `if (typeof ${value} !== 'string') return false;`;
      case 'boolean':
        return `if (typeof ${value} !== 'boolean') return false;`;
      case 'null':
        return `if (${value} !== null) return false;`;
      case 'literal':
        return `if (!${this.from(def.values!)}.includes(${value})) return false;`;
      case 'enum': {
        const values = this.from(new Set(Object.values(def.entries!)));
        return `if ((typeof ${value} !== 'string' && typeof ${value} !== 'number') || !${values}.has(${value})) return false;`;
      }
      case 'nullable':
        return `if (${value} !== null) { ${this.accept(def.innerType!, value)} }`;
      case 'pipe':
        // Without transforms (refused above) a pipe's output is its input.
        return this.accept(def.in!, value) + this.accept(def.out!, value);
      case 'array': {
        const index = this.name();
        const item = this.name();
        return `if (!Array.isArray(${value})) return false;
          for (let ${index} = 0; ${index} < ${value}.length; ${index}++) { const ${item} = ${value}[${index}]; ${this.accept(def.element!, item)} }`;
      }
      case 'object':
        return this.object(def, value);
      case 'record': {
        if (def.keyType!._zod.def.type !== 'string') throw new Unsupported('record key');
        const key = this.name();
        const item = this.name();
        return `if (!${this.from(isPlainObject)}(${value})) return false;
          for (const ${key} of Object.keys(${value})) { ${this.accept(def.keyType!, key)} const ${item} = ${value}[${key}]; ${this.accept(def.valueType!, item)} }`;
      }
      default:
        throw new Unsupported(def.type);
    }
  }

  /** A strict object (unknown keys refused, as `.strict()` says); any other catchall is left to zod. */
  private object(def: Definition, value: string): string {
    if (def.catchall?._zod.def.type !== 'never') throw new Unsupported('object without .strict()');
    const names = Object.keys(def.shape!);
    for (const name of names) {
      const type = def.shape![name]!._zod.def.type;
      if (type === 'optional' || type === 'default' || type === 'prefault') throw new Unsupported('optional key');
    }
    const count = this.name();
    const key = this.name();
    const cases = names.map((name) => `case ${JSON.stringify(name)}:`).join(' ');
    // Zod's object takes any non-array object (a record, a plain one only).
    let code = `if (typeof ${value} !== 'object' || ${value} === null || Array.isArray(${value})) return false;
      let ${count} = 0;
      for (const ${key} in ${value}) { switch (${key}) { ${cases} break; default: return false; } ${count}++; }
      if (${count} !== ${names.length}) return false;`;
    for (const name of names) {
      const item = this.name();
      code += `{ const ${item} = ${value}[${JSON.stringify(name)}]; ${this.accept(def.shape![name]!, item)} }`;
    }
    return code;
  }

  private checks(def: Definition, value: string): string {
    return (def.checks ?? [])
      .map(({ _zod: { def: check } }) => {
        // Zod runs its length checks `when` the value has a length, which the type checked first
        // guarantees; any other condition is zod's alone.
        const isLength = check.check === 'max_length' || check.check === 'min_length';
        if (check.when !== undefined && !isLength) throw new Unsupported('conditional check');
        return `if (!(${this.check(check, value)})) return false;`;
      })
      .join('');
  }

  /** The condition a check holds `value` to. */
  private check(check: CheckDefinition, value: string): string {
    switch (check.check) {
      case 'greater_than':
      case 'less_than': {
        const bound = check.value;
        if (typeof bound !== 'number') throw new Unsupported('bound');
        const operator = (check.check === 'greater_than' ? '>' : '<') + (check.inclusive ? '=' : '');
        return `${value} ${operator} ${this.number(bound)}`;
      }
      case 'number_format':
        if (check.format !== 'safeint') throw new Unsupported(`number format ${check.format}`);
        return `Number.isSafeInteger(${value})`;
      case 'string_format': {
        if (check.format !== 'regex' || !(check.pattern instanceof RegExp) || check.pattern.global || check.pattern.sticky)
          throw new Unsupported(`string format ${check.format}`);
        return `${this.from(check.pattern)}.test(${value})`;
      }
      case 'max_length':
        return `${value}.length <= ${this.number(check.maximum!)}`;
      case 'min_length':
        return `${value}.length >= ${this.number(check.minimum!)}`;
      case 'custom':
        return `${this.from(remembered(check.fn!))}(${value})`;
      default:
        throw new Unsupported(`check ${check.check}`);
    }
  }

  /** A number as a literal when its text is one (a finite one), else read from outside. */
  private number(value: number): string {
    return Number.isFinite(value) ? `(${String(value)})` : this.from(value);
  }
}

const MEMO_LIMIT = 100_000;

/** A refinement as zod calls it, its result on a string remembered. */
function remembered(fn: (value: unknown) => unknown): Accept {
  const memo = new Map<string, boolean>();
  return (value) => {
    if (typeof value !== 'string') return fn(value) === true;
    let result = memo.get(value);
    if (result === undefined) {
      result = fn(value) === true;
      if (memo.size >= MEMO_LIMIT) memo.clear();
      memo.set(value, result);
    }
    return result;
  };
}

function isPlainObject(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
