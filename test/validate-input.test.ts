import { validateSync, type ValidationError } from 'class-validator';
import { getMetadataStorage } from 'type-graphql';
import { buildAppSchema } from '../src/schema/graphql-schema';
import { classRuleErrors } from '../src/foundation/validation/validate-input';

// An input's class rules are answered from the rules of its class looked up once (class-validator
// looked them up, and built an error object per field, for every booking: CPU on the write path). The answer
// must be class-validator's own: every input class of the schema, every field, each of many values.

const VALUES: unknown[] = [
  undefined, null, '', ' ', 'a', 'a@example.com', 'not an email', 'x'.repeat(300), 'USD', 'usd', 'Europe/Paris', 'Mars/Olympus',
  '2030-03-01T18:00:00Z', 'not a date', new Date('2030-03-01T18:00:00Z'), 'https://example.com/x.png', 'javascript:alert(1)',
  'slug-1', 'Bad Slug', '\u0000', 0, -1, 1, 2, 59, 1000, 1001, 1_000_000, 1_000_001, 1.5, Number.NaN, true, false, [], ['a'],
  [1, 2], {}, { a: 1 },
];

function classValidatorErrors(input: object) {
  const flatten = (errors: ValidationError[]): string[] =>
    errors.flatMap((error) => [...Object.values(error.constraints ?? {}), ...flatten(error.children ?? [])]);
  return flatten(validateSync(input, { skipUndefinedProperties: true, skipNullProperties: true, forbidUnknownValues: false }));
}

type InputClass = new () => Record<string, unknown>;

test('the class rules of an input answer as class-validator does, on every field of every input class', () => {
  buildAppSchema();
  const storage = getMetadataStorage();
  const classes = storage.inputTypes.map((metadata) => metadata.target as InputClass);
  expect(classes.length).toBeGreaterThan(10);
  let refused = 0;
  for (const Input of classes) {
    const fields = storage.fields.filter((field) => field.target === Input || Input.prototype instanceof field.target);
    for (const field of fields) {
      for (const value of VALUES) {
        const input = new Input();
        input[field.name] = value;
        const expected = classValidatorErrors(input);
        if (expected.length > 0) refused += 1;
        const context = { class: Input.name, field: field.name, value };
        // Twice: the second call answers from the rules looked up the first time.
        for (let call = 0; call < 2; call += 1) {
          expect({ ...context, errors: classRuleErrors(input).map((error) => error.message) }).toEqual({ ...context, errors: expected });
        }
      }
    }
  }
  expect(refused).toBeGreaterThan(100);
});

test('a valid booking input and an invalid one', () => {
  buildAppSchema();
  const Input = getMetadataStorage().inputTypes.find((metadata) => metadata.name === 'CreateBookingInput')!.target as InputClass;
  const input = Object.assign(new Input(), { eventSlug: 'hot', quantity: 1, attendeeEmail: 'a@example.com', attendeeName: 'A' });
  expect(classRuleErrors(input)).toEqual([]);
  input.attendeeEmail = 'nope';
  input.quantity = 0;
  expect(classRuleErrors(input).map((error) => error.field).sort()).toEqual(['attendeeEmail', 'quantity']);
});
