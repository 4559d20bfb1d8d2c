import { isISO4217CurrencyCode, Matches, ValidateBy, type ValidationOptions } from 'class-validator';

export const SLUG_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;
/** What IsNotBlank asks: at least one character that is not white space. */
export const NOT_BLANK_PATTERN = /\S/;
/** The shape of an IANA time zone name; the runtime's Intl decides whether it names one. */
export const TIME_ZONE_SHAPE = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/;

/** At least one character that is not white space. */
export function IsNotBlank(options?: ValidationOptions): PropertyDecorator {
  return Matches(NOT_BLANK_PATTERN, { message: '$property must not be blank', ...options });
}

/** Names found valid (a few hundred exist; bounded all the same): making an Intl.DateTimeFormat is costly. */
const knownTimeZones = new Set<string>();
const MAX_KNOWN_TIME_ZONES = 2_000;

/** IANA time zone names the runtime knows, canonical names and their aliases (e.g. UTC). */
export function isIanaTimeZone(value: string): boolean {
  if (knownTimeZones.has(value)) return true;
  if (!TIME_ZONE_SHAPE.test(value)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
  } catch {
    return false;
  }
  if (knownTimeZones.size >= MAX_KNOWN_TIME_ZONES) knownTimeZones.clear();
  knownTimeZones.add(value);
  return true;
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

const notNullFields = new WeakMap<object, string[]>();

/**
 * The field may be absent but never null (on update: a required field cannot be cleared). Checked by
 * validateInput with the other rules of the input.
 */
export function NotNull(): PropertyDecorator {
  return (target, property) => {
    notNullFields.set(target, [...(notNullFields.get(target) ?? []), String(property)]);
  };
}

/** The @NotNull fields of an input class, by its prototype (the OpenAPI document reads them). */
export function notNullFieldsOfClass(prototype: object): string[] {
  return notNullFields.get(prototype) ?? [];
}

/** How an absolute https URL starts, with no white space anywhere (a URL parser decides the rest). */
export const HTTPS_URL_PATTERN = /^https:\/\/[^\s/?#]+[^\s]*$/;

/** An absolute https URL (D16). */
export function IsHttpsUrl(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isHttpsUrl',
      validator: {
        validate: (value: unknown) => {
          if (typeof value !== 'string' || !HTTPS_URL_PATTERN.test(value)) return false;
          try {
            const url = new URL(value);
            return url.protocol === 'https:' && url.hostname !== '';
          } catch {
            return false;
          }
        },
        defaultMessage: () => '$property must be an absolute https URL, such as https://example.com/cover.jpg',
      },
    },
    options,
  );
}

/**
 * A finite number with at most `places` decimal places, in any notation JSON allows (`1e-7` has seven).
 * class-validator's IsNumber({ maxDecimalPlaces }) reads the places from the decimal string and throws
 * on exponent forms, which turned `1e-7` into a 500.
 */
export function IsDecimal(places: number, options?: ValidationOptions): PropertyDecorator {
  const scale = 10 ** places;
  return ValidateBy(
    {
      name: 'isDecimal',
      constraints: [places],
      validator: {
        validate: (value: unknown) =>
          typeof value === 'number' && Number.isFinite(value) && Math.abs(Math.round(value * scale) - value * scale) < 1e-6,
        defaultMessage: () => `$property must be a number with at most ${places} decimal places`,
      },
    },
    options,
  );
}
