import { Lexer, Source, TokenKind } from 'graphql';

/**
 * Bounds on client input, checked at the transport edge before any code walks it recursively
 * (validation, coercion, fingerprints). Both checks here are iterative, so no input can overflow
 * the stack while being measured.
 */

/** Deepest nesting of arrays and objects accepted in a JSON body or GraphQL variables. */
export const MAX_JSON_DEPTH = 32;
/** Most values (objects, arrays, scalars) in one JSON body. */
export const MAX_JSON_NODES = 100_000;

/** Longest GraphQL document, in characters. */
export const MAX_DOCUMENT_CHARACTERS = 64 * 1024;
/** Most lexical tokens in one GraphQL document (also given to the parser as `maxTokens`). */
export const MAX_DOCUMENT_TOKENS = 10_000;
/** Deepest nesting of `{`, `[` and `(` in a GraphQL document (selections, list and object literals). */
export const MAX_DOCUMENT_NESTING = 64;

export type InputPath = ReadonlyArray<string | number>;

export interface BoundViolation {
  /** Where the bound was crossed (the path of the value that went too deep, or the first one past the count). */
  readonly path: InputPath;
  readonly message: string;
}

interface Frame {
  readonly value: unknown;
  readonly depth: number;
  readonly parent: Frame | undefined;
  readonly key: string | number | undefined;
}

/** The path to `frame`, up to its last named field (`title`, not `title[0][0]…[0]`). */
function pathOf(frame: Frame): Array<string | number> {
  const path: Array<string | number> = [];
  for (let current: Frame | undefined = frame; current?.key !== undefined; current = current.parent) path.unshift(current.key);
  while (path.length > 0 && typeof path[path.length - 1] === 'number' && path.some((key) => typeof key === 'string')) path.pop();
  return path;
}

/** The first place where `value` nests deeper than `maxDepth` or holds more than `maxNodes` values. */
export function jsonBoundViolation(value: unknown, maxDepth = MAX_JSON_DEPTH, maxNodes = MAX_JSON_NODES): BoundViolation | undefined {
  const stack: Frame[] = [{ value, depth: 0, parent: undefined, key: undefined }];
  let nodes = 0;
  while (stack.length > 0) {
    const frame = stack.pop() as Frame;
    nodes += 1;
    if (nodes > maxNodes) return { path: pathOf(frame), message: `holds more than ${maxNodes} values` };
    const current = frame.value;
    if (current === null || typeof current !== 'object') continue;
    if (frame.depth >= maxDepth) return { path: pathOf(frame), message: `is nested more than ${maxDepth} levels deep` };
    const entries: Array<[string | number, unknown]> = Array.isArray(current) ? current.map((item, index) => [index, item]) : Object.entries(current);
    for (let index = entries.length - 1; index >= 0; index -= 1) {
      const [key, item] = entries[index];
      stack.push({ value: item, depth: frame.depth + 1, parent: frame, key });
    }
  }
  return undefined;
}

/** `a.b[0].c`: a path as fields are named in VALIDATION_ERROR details. */
export function formatInputPath(path: InputPath, root = ''): string {
  return path.reduce<string>((out, key) => (typeof key === 'number' ? `${out}[${key}]` : out ? `${out}.${key}` : key), root);
}

export type DocumentLimit = 'size' | 'tokens' | 'depth';

export interface DocumentViolation {
  readonly limit: DocumentLimit;
  readonly maximum: number;
  readonly message: string;
}

const OPENING = new Set<TokenKind>([TokenKind.BRACE_L, TokenKind.BRACKET_L, TokenKind.PAREN_L]);
const CLOSING = new Set<TokenKind>([TokenKind.BRACE_R, TokenKind.BRACKET_R, TokenKind.PAREN_R]);

/**
 * Size, token count and bracket nesting of a GraphQL document, measured with graphql-js's own lexer
 * (strings, block strings and comments are single tokens) before the recursive parser sees it.
 * A document the lexer rejects is left to the parser, which reports the syntax error.
 */
export function documentBoundViolation(
  document: string,
  limits: { maxCharacters?: number; maxTokens?: number; maxNesting?: number } = {},
): DocumentViolation | undefined {
  const maxCharacters = limits.maxCharacters ?? MAX_DOCUMENT_CHARACTERS;
  const maxTokens = limits.maxTokens ?? MAX_DOCUMENT_TOKENS;
  const maxNesting = limits.maxNesting ?? MAX_DOCUMENT_NESTING;
  if (document.length > maxCharacters) {
    return { limit: 'size', maximum: maxCharacters, message: `The GraphQL document is longer than ${maxCharacters} characters` };
  }
  const lexer = new Lexer(new Source(document));
  let tokens = 0;
  let nesting = 0;
  try {
    for (let token = lexer.advance(); token.kind !== TokenKind.EOF; token = lexer.advance()) {
      tokens += 1;
      if (tokens > maxTokens) {
        return { limit: 'tokens', maximum: maxTokens, message: `The GraphQL document has more than ${maxTokens} tokens` };
      }
      if (OPENING.has(token.kind)) {
        nesting += 1;
        if (nesting > maxNesting) {
          return { limit: 'depth', maximum: maxNesting, message: `The GraphQL document nests brackets more than ${maxNesting} levels deep` };
        }
      } else if (CLOSING.has(token.kind)) {
        nesting = Math.max(0, nesting - 1);
      }
    }
  } catch {
    return undefined;
  }
  return undefined;
}
