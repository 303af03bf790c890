/**
 * A fast acceptance test compiled from a zod schema (schemas/ stays the one source of truth): the
 * same types and checks, read from the schema's own definition, as plain closures over the parsed
 * value, with no issue objects, paths or payloads built for values that pass. It only ever says
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
    accept = compile(schema as unknown as ZodLike);
  } catch (error) {
    if (!(error instanceof Unsupported)) throw error;
    accept = null;
  }
  compiled.set(schema, accept);
  return accept;
}

function compile(schema: ZodLike): Accept {
  const def = schema._zod.def;
  if (def.coerce) throw new Unsupported('coercion');
  const own = checksOf(def);
  const base = compileType(def);
  if (own.length === 0) return base;
  return (value) => {
    if (!base(value)) return false;
    for (const check of own) if (!check(value)) return false;
    return true;
  };
}

function compileType(def: Definition): Accept {
  switch (def.type) {
    case 'number':
      // Zod's number refuses NaN and the infinities (JSON.parse never makes them anyway).
      return (value) => typeof value === 'number' && Number.isFinite(value);
    case 'string':
      return (value) => typeof value === 'string';
    case 'boolean':
      return (value) => typeof value === 'boolean';
    case 'null':
      return (value) => value === null;
    case 'literal': {
      const values = def.values!;
      return (value) => values.includes(value);
    }
    case 'enum': {
      const values = new Set(Object.values(def.entries!));
      return (value) => (typeof value === 'string' || typeof value === 'number') && values.has(value);
    }
    case 'nullable': {
      const inner = compile(def.innerType!);
      return (value) => value === null || inner(value);
    }
    case 'pipe': {
      // Without transforms (refused above) a pipe's output is its input.
      const first = compile(def.in!);
      const second = compile(def.out!);
      return (value) => first(value) && second(value);
    }
    case 'array': {
      const element = compile(def.element!);
      return (value) => {
        if (!Array.isArray(value)) return false;
        for (let i = 0; i < value.length; i++) if (!element(value[i])) return false;
        return true;
      };
    }
    case 'object':
      return compileObject(def);
    case 'record': {
      const key = compile(def.keyType!);
      const item = compile(def.valueType!);
      if (def.keyType!._zod.def.type !== 'string') throw new Unsupported('record key');
      return (value) => {
        if (!isPlainObject(value)) return false;
        for (const name of Object.keys(value as object)) if (!key(name) || !item((value as Record<string, unknown>)[name])) return false;
        return true;
      };
    }
    default:
      throw new Unsupported(def.type);
  }
}

/** A strict object (unknown keys refused, as `.strict()` says); any other catchall is left to zod. */
function compileObject(def: Definition): Accept {
  if (def.catchall?._zod.def.type !== 'never') throw new Unsupported('object without .strict()');
  const names = Object.keys(def.shape!);
  for (const name of names) {
    const type = def.shape![name]!._zod.def.type;
    if (type === 'optional' || type === 'default' || type === 'prefault') throw new Unsupported('optional key');
  }
  const accepts = names.map((name) => compile(def.shape![name]!));
  const known = new Set(names);
  return (value) => {
    // Zod's object takes any non-array object (a record, a plain one only).
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
    const object = value as Record<string, unknown>;
    let count = 0;
    for (const name in object) {
      if (!known.has(name)) return false;
      count++;
    }
    if (count !== names.length) return false;
    for (let i = 0; i < names.length; i++) if (!accepts[i]!(object[names[i]!])) return false;
    return true;
  };
}

const MEMO_LIMIT = 100_000;

function checksOf(def: Definition): Accept[] {
  return (def.checks ?? []).map(({ _zod: { def: check } }): Accept => {
    // Zod runs its length checks `when` the value has a length, which the type checked first
    // guarantees; any other condition is zod's alone.
    const isLength = check.check === 'max_length' || check.check === 'min_length';
    if (check.when !== undefined && !isLength) throw new Unsupported('conditional check');
    switch (check.check) {
      case 'greater_than': {
        const bound = check.value;
        if (typeof bound !== 'number') throw new Unsupported('bound');
        return check.inclusive ? (value) => (value as number) >= bound : (value) => (value as number) > bound;
      }
      case 'less_than': {
        const bound = check.value;
        if (typeof bound !== 'number') throw new Unsupported('bound');
        return check.inclusive ? (value) => (value as number) <= bound : (value) => (value as number) < bound;
      }
      case 'number_format':
        if (check.format !== 'safeint') throw new Unsupported(`number format ${check.format}`);
        return (value) => Number.isSafeInteger(value);
      case 'string_format': {
        if (check.format !== 'regex' || !(check.pattern instanceof RegExp) || check.pattern.global || check.pattern.sticky)
          throw new Unsupported(`string format ${check.format}`);
        const pattern = check.pattern;
        return (value) => pattern.test(value as string);
      }
      case 'max_length': {
        const maximum = check.maximum!;
        return (value) => (value as { length: number }).length <= maximum;
      }
      case 'min_length': {
        const minimum = check.minimum!;
        return (value) => (value as { length: number }).length >= minimum;
      }
      case 'custom': {
        const fn = check.fn!;
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
      default:
        throw new Unsupported(`check ${check.check}`);
    }
  });
}

function isPlainObject(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
