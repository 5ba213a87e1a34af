/**
 * Field-level schemas shared by the resource schemas: coordinates, KWD money, identifiers.
 * @module
 */
import * as z from 'zod';
import { kwd } from '../kwd.js';

/** Latitude in decimal degrees, finite, −90…90. */
export const Latitude = z.number().min(-90).max(90);
/** Longitude in decimal degrees, finite, −180…180. */
export const Longitude = z.number().min(-180).max(180);

/** A KWD amount as decimal text with at most 3 decimals and no sign (`"12.5"`, `"0.250"`); spec: Task `totalAmount`. */
export const KwdText = z
  .string()
  .regex(/^\d+(\.\d{1,3})?$/, 'Expected KWD decimal text with at most 3 decimals, like "12.500"');

/** A KWD amount as a finite number with at most 3 decimals. */
export const KwdNumber = z
  .number()
  .refine((value) => kwd.isValid(value), 'Expected a KWD amount with at most 3 decimals');

/** A non-empty string without surrounding whitespace issues, used for identifiers sent by the caller. */
export const NonEmptyString = z.string().min(1, 'Must not be empty');
