import { getMetadataStorage, isISO4217CurrencyCode } from 'class-validator';
import { HTTPS_URL_PATTERN, notNullFieldsOfClass, TIME_ZONE_SHAPE } from './rules';

/**
 * What each field rule of the input classes means in JSON Schema (the OpenAPI document states the
 * rules the server checks: src/doors/rest/openapi/json-schema.ts). Read from the same decorators that
 * validate, so the document and the check cannot drift apart; a rule the document cannot state
 * exactly says so in `description`.
 */
export type SchemaFragment = Record<string, unknown>;

/** A text value may never hold a NUL character (PostgreSQL cannot store one): every door refuses it. */
export const NUL_FREE_PATTERN = '^[^\\u0000]*$';

let currencyCodes: string[] | undefined;

/** Every code class-validator's ISO 4217 check accepts, in upper case (IsCurrencyCode), found once. */
function isoCurrencyCodes(): string[] {
  if (currencyCodes) return currencyCodes;
  const codes: string[] = [];
  const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
  for (const a of letters) for (const b of letters) for (const c of letters) if (isISO4217CurrencyCode(a + b + c)) codes.push(a + b + c);
  currencyCodes = codes;
  return codes;
}

/** JavaScript regular expressions as JSON Schema (ECMA-262) patterns. */
const patternOf = (value: unknown): string => (value instanceof RegExp ? value.source : String(value));

function fragmentOf(name: string | undefined, constraints: readonly unknown[] = []): SchemaFragment | undefined {
  switch (name) {
    case 'maxCharacters':
      // JSON Schema counts characters as code points, as MaxCharacters (and PostgreSQL) do.
      return { maxLength: constraints[0] };
    case 'matches':
      return { pattern: patternOf(constraints[0]) };
    case 'min':
      return { minimum: constraints[0] };
    case 'max':
      return { maximum: constraints[0] };
    case 'arrayMaxSize':
      return { maxItems: constraints[0] };
    case 'isIn':
      return { enum: constraints[0] };
    case 'isIanaTimeZone':
      return { pattern: TIME_ZONE_SHAPE.source, examples: ['Europe/Paris', 'UTC'], 'x-rule': 'an IANA time zone name the server knows' };
    case 'isHttpsUrl':
      return { format: 'uri', pattern: HTTPS_URL_PATTERN.source };
    case 'isEmail':
      // class-validator's check is stricter in places (lengths of the local part and labels).
      return { format: 'email' };
    case 'isCurrencyCode':
      return { enum: isoCurrencyCodes() };
    case 'isDecimal':
      // Not `multipleOf: 0.01`: validators compute it in floating point and refuse 19.99.
      return { 'x-decimal-places': constraints[0] };
    default:
      return undefined;
  }
}

export interface FieldRules {
  /** Schema keywords per field, in the order the decorators declare them (patterns listed apart). */
  readonly fields: Record<string, { keywords: SchemaFragment; patterns: string[] }>;
  /** Fields that may be absent but never null (@NotNull). */
  readonly notNull: readonly string[];
}

/** The field rules an input class declares, as JSON Schema keywords per field. */
export function fieldRulesOf(inputClass: abstract new () => unknown): FieldRules {
  const fields: FieldRules['fields'] = {};
  for (const metadata of getMetadataStorage().getTargetValidationMetadatas(inputClass, '', true, false)) {
    const fragment = fragmentOf(metadata.name, metadata.constraints as unknown[] | undefined);
    if (!fragment) continue;
    const field = (fields[metadata.propertyName] ??= { keywords: {}, patterns: [] });
    const { pattern, ...rest } = fragment;
    if (typeof pattern === 'string') field.patterns.push(pattern);
    Object.assign(field.keywords, rest);
  }
  return { fields, notNull: notNullFieldsOfClass(inputClass.prototype as object) };
}
