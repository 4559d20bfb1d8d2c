/**
 * The shape of one entry of the error table (error-codes.ts): its status, when a client sees it, the
 * documented schema of its `details`, and (for the compiler only) the details an AppError of it carries.
 */

export interface FieldError {
  field: string;
  message: string;
}

/**
 * The documented shape of a code's `details`: plain JSON schema, except that `{ "enumOf": name }` stands
 * for `{ "enum": [...] }` over a list a higher rung owns (the permission names, src/platform/auth/): the
 * door that renders the schema supplies it.
 */
export type DetailsSchema = { readonly [keyword: string]: unknown };

/** The names a DetailsSchema may list with `enumOf`. */
export type SchemaVocabulary = 'permission';

/** One code's entry. */
export interface ErrorCodeEntry {
  /** The HTTP status of both doors (a REST answer; a GraphQL answer with this error before any data). */
  readonly status: number;
  /** When a client sees this code (the OpenAPI description of the code). */
  readonly when: string;
  /** The shape of `error.details` as documented; absent when the documentation shows none. */
  readonly details?: DetailsSchema;
}

declare const detailsType: unique symbol;

/** An entry that also names, for the compiler only, the details an AppError of its code carries. */
export type TypedErrorCodeEntry<Details> = ErrorCodeEntry & { readonly [detailsType]: Details };

/** An entry whose errors carry `Details` (`undefined`: none; `X | undefined`: optional). Nothing at run time. */
export const code = <Details = undefined>(entry: ErrorCodeEntry): TypedErrorCodeEntry<Details> => entry as TypedErrorCodeEntry<Details>;

/** The details type an entry names. */
export type DetailsOf<Entry> = Entry extends TypedErrorCodeEntry<infer Details> ? Details : never;
