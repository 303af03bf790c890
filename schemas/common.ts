import { z } from 'zod';
import { DATE_PATTERN } from './patterns.ts';

/** A calendar day as `YYYY-MM-DD` (every date in every output). */
export const DateStringSchema = z
  .string()
  .regex(DATE_PATTERN)
  .refine(isRealCalendarDate, 'not a real calendar date')
  .meta({ description: 'calendar day, YYYY-MM-DD', example: '2025-11-05' });

export function isRealCalendarDate(text: string): boolean {
  if (!DATE_PATTERN.test(text)) return false;
  const date = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === text;
}

/** A finite JSON number (JSON cannot carry NaN or Infinity). */
export const FiniteNumberSchema = z.number().refine(Number.isFinite, 'not a finite number');

export const LowerCaseAddressSchema = z
  .string()
  .regex(/^0x[0-9a-f]{40}$/)
  .meta({ description: 'wallet address, lower case', example: '0x1111111111111111111111111111111111111111' });
