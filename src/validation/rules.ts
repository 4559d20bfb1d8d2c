import { isISO4217CurrencyCode, Matches, ValidateBy, type ValidationOptions } from 'class-validator';

export const SLUG_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;

/** At least one character that is not white space. */
export function IsNotBlank(options?: ValidationOptions): PropertyDecorator {
  return Matches(/\S/, { message: '$property must not be blank', ...options });
}

/** IANA time zone names the runtime knows, canonical names and their aliases (e.g. UTC). */
export function isIanaTimeZone(value: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(value)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

export function IsIanaTimeZone(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isIanaTimeZone',
      validator: {
        validate: (value: unknown) => typeof value === 'string' && isIanaTimeZone(value),
        defaultMessage: () => '$property must be an IANA time zone name such as Europe/Paris',
      },
    },
    options,
  );
}

/**
 * An ISO 4217 code written as the standard writes it: class-validator's own check upper-cases its
 * input first, so `eur` would pass and be stored in a form no client expects (D6).
 */
export function IsCurrencyCode(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isCurrencyCode',
      validator: {
        validate: (value: unknown) => typeof value === 'string' && /^[A-Z]{3}$/.test(value) && isISO4217CurrencyCode(value),
        defaultMessage: () => '$property must be an ISO 4217 currency code in upper case, such as EUR or USD',
      },
    },
    options,
  );
}

/** A date after the moment of validation. */
export function IsInFuture(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isInFuture',
      validator: {
        validate: (value: unknown) => value instanceof Date && value.getTime() > Date.now(),
        defaultMessage: () => '$property must be in the future',
      },
    },
    options,
  );
}

/** A date after another date property of the same input (left alone when that one is absent or invalid). */
export function IsAfterProperty(property: string, options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isAfterProperty',
      constraints: [property],
      validator: {
        validate: (value: unknown, args) => {
          const other = (args?.object as Record<string, unknown> | undefined)?.[property];
          if (!(other instanceof Date) || !(value instanceof Date)) return true;
          return value.getTime() > other.getTime();
        },
        defaultMessage: () => `$property must be after ${property}`,
      },
    },
    options,
  );
}

/**
 * At most `max` characters counted as PostgreSQL counts them (code points). class-validator's
 * MaxLength counts a character plus its variation selector as one, so `a\uFE0F` x 200 passed a
 * 200 limit and then overflowed the varchar(200) column with a 500.
 */
export function MaxCharacters(max: number, options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'maxCharacters',
      constraints: [max],
      validator: {
        validate: (value: unknown) => typeof value === 'string' && [...value].length <= max,
        defaultMessage: () => `$property must be at most ${max} characters`,
      },
    },
    options,
  );
}

/**
 * A finite number with at most `places` decimal places. class-validator's own `maxDecimalPlaces`
 * reads the digits from `String(value)` and throws on exponent forms such as 1e-7; this compares
 * the value with itself rounded instead.
 */
export function hasAtMostDecimalPlaces(value: unknown, places: number): boolean {
  return typeof value === 'number' && Number.isFinite(value) && Number(value.toFixed(places)) === value;
}

export function HasAtMostDecimalPlaces(places: number, options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'hasAtMostDecimalPlaces',
      constraints: [places],
      validator: {
        validate: (value: unknown) => hasAtMostDecimalPlaces(value, places),
        defaultMessage: () => `$property must be a number with at most ${places} decimal places`,
      },
    },
    options,
  );
}
