import { CreateBookingInput } from '../src/modules/booking/booking.inputs';
import { CreateEventInput } from '../src/modules/event/event.inputs';
import { TicketTypeInput, TicketTypeUpdateInput } from '../src/modules/ticket-type/ticket-type.inputs';
import { assertValidInput, validateInput } from '../src/foundation/validation/validate-input';
import { AppError } from '../src/foundation/errors/app-error';

// One input's check (D4): its class's field rules (class-validator), its @NotNull fields, its rules
// that compare fields; every failure named by its path, in that order.

const booking = (fields: Partial<CreateBookingInput>) =>
  Object.assign(new CreateBookingInput(), { eventSlug: 'hot', quantity: 1, attendeeEmail: 'a@example.com', attendeeName: 'A', ...fields });

test('a valid input has no failures; each failing field is named once with its message', () => {
  expect(validateInput(booking({}))).toEqual([]);
  expect(validateInput(booking({ attendeeEmail: 'nope', quantity: 0 }))).toEqual([
    { field: 'quantity', message: 'quantity must not be less than 1' },
    { field: 'attendeeEmail', message: 'attendeeEmail must be an email address' },
  ]);
});

test('absent fields are left alone; a @NotNull field may be absent but not null', () => {
  expect(validateInput(new TicketTypeUpdateInput())).toEqual([]);
  const update = Object.assign(new TicketTypeUpdateInput(), { name: null, price: 1.234 });
  expect(validateInput(update)).toEqual([
    { field: 'name', message: 'name cannot be null' },
    { field: 'price', message: 'price must be a number with at most two decimal places' },
  ]);
});

test('rules that compare fields run after the field rules', () => {
  expect(validateInput(booking({ holdMinutes: 5 }))).toEqual([{ field: 'holdMinutes', message: 'holdMinutes needs hold: true' }]);
  expect(validateInput(booking({ hold: true, holdMinutes: 5 }))).toEqual([]);
});

test('nested inputs are named by their path', () => {
  const ticketType = Object.assign(new TicketTypeInput(), { name: ' ', price: 10, currency: 'EUR', quantity: -1 });
  const event = Object.assign(new CreateEventInput(), { ticketTypes: [ticketType] });
  const fields = validateInput(event).map((error) => error.field);
  expect(fields).toEqual(expect.arrayContaining(['ticketTypes[0].name', 'ticketTypes[0].quantity']));
});

test('assertValidInput throws one VALIDATION_ERROR listing the failures of every part, in order', () => {
  expect(() => assertValidInput([], booking({}))).not.toThrow();
  let thrown: unknown;
  try {
    assertValidInput([{ field: 'eventSlug', message: 'eventSlug is not a slug' }], booking({ quantity: 0 }));
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(AppError);
  expect((thrown as AppError).code).toBe('VALIDATION_ERROR');
  expect((thrown as AppError).details).toEqual({
    errors: [
      { field: 'eventSlug', message: 'eventSlug is not a slug' },
      { field: 'quantity', message: 'quantity must not be less than 1' },
    ],
  });
});
