import { createTenant, eventInput } from './helpers/factories';
import { DOORS, eventApi, expectValidationError, TICKET_TYPE_FIELDS, type Door, type EventApi } from './helpers/event-api';
import { storedEvent, storedEventCount } from './helpers/event-rows';
import { useTestApp } from './helpers/use-test-app';

// D6: ticket types accepted on create, returned in the full object, every bad field named by index.
const ctx = useTestApp();

const ticket = (overrides: Record<string, unknown> = {}) => ({ name: 'General', price: 25, currency: 'EUR', quantity: 100, ...overrides });

describe.each(DOORS)('ticket types through %s', (door: Door) => {
  let api: EventApi;
  let organizationId: string;
  beforeAll(async () => {
    const tenant = await createTenant(ctx.app.orm);
    api = eventApi(ctx.app.client, tenant.key, door);
    organizationId = tenant.organization.id;
  });

  test('are created with the event, in order, prices kept exactly as JSON numbers', async () => {
    const ticketTypes = [
      ticket({ name: 'Early bird', price: 19.99, currency: 'EUR', quantity: 50 }),
      ticket({ name: 'Free', price: 0, currency: 'USD', quantity: 0 }),
      ticket({ name: 'Patron', price: 1234567.5, currency: 'JPY', quantity: 1 }),
      ticket({ name: 'Cents', price: 0.1, currency: 'GBP', quantity: 3 }),
    ];
    const input = eventInput({ ticketTypes });
    const created = await api.create(input);
    expect(created.error).toBeUndefined();
    expect(created.data.ticketTypes).toEqual(ticketTypes.map((type) => ({ id: expect.stringMatching(/^tt_[A-Za-z0-9]+$/), ...type, sold: 0, held: 0 })));
    for (const type of created.data.ticketTypes) expect(Object.keys(type).sort()).toEqual(TICKET_TYPE_FIELDS);
    // The exact JSON text, not only a value that rounds to it.
    expect(created.text).toContain('"price":19.99');
    expect(created.text).toContain('"price":1234567.5');

    const read = await api.get(input.slug as string);
    expect(read.data.ticketTypes).toEqual(created.data.ticketTypes);
    const row = await storedEvent(ctx.app.orm, { organizationId, slug: input.slug as string });
    expect(row?.ticketTypes.getItems().map((type) => [type.name, type.price, type.currency, type.quantity, type.sold])).toEqual([
      ['Early bird', 19.99, 'EUR', 50, 0],
      ['Free', 0, 'USD', 0, 0],
      ['Patron', 1234567.5, 'JPY', 1, 0],
      ['Cents', 0.1, 'GBP', 3, 0],
    ]);
  });

  test.each<[string, Record<string, unknown>[], string[]]>([
    ['lower-case currency', [ticket(), ticket({ currency: 'eur' })], ['ticketTypes[1].currency']],
    ['unknown currency', [ticket({ currency: 'XYZ' })], ['ticketTypes[0].currency']],
    ['negative price', [ticket({ price: -1 })], ['ticketTypes[0].price']],
    ['three decimal places', [ticket({ price: 1.999 })], ['ticketTypes[0].price']],
    ['negative quantity', [ticket(), ticket(), ticket({ quantity: -1 })], ['ticketTypes[2].quantity']],
    ['blank name', [ticket({ name: ' ' })], ['ticketTypes[0].name']],
    ['name over 100', [ticket({ name: 'n'.repeat(101) })], ['ticketTypes[0].name']],
    ['price not a number', [ticket({ price: 'free' })], ['ticketTypes[0].price']],
    ['quantity not an integer', [ticket({ quantity: 2.5 })], ['ticketTypes[0].quantity']],
    ['missing fields', [{ name: 'Bare' }], ['ticketTypes[0].currency', 'ticketTypes[0].price', 'ticketTypes[0].quantity']],
    ['several fields of several types', [ticket({ currency: 'eur' }), ticket(), ticket({ price: -5, quantity: -1 })], [
      'ticketTypes[0].currency',
      'ticketTypes[2].price',
      'ticketTypes[2].quantity',
    ]],
    ['more than 50 types', Array.from({ length: 51 }, () => ticket()), ['ticketTypes']],
  ])('%s is 400 naming the indexed fields, nothing stored', async (_name, ticketTypes, fields) => {
    const input = eventInput({ ticketTypes });
    expectValidationError(await api.create(input), door, fields);
    expect(await storedEventCount(ctx.app.orm, organizationId, { slug: input.slug })).toBe(0);
  });

  test('ticket type errors are reported with the event field errors', async () => {
    const outcome = await api.create(eventInput({ title: '', capacity: 0, ticketTypes: [ticket({ currency: 'eu' })] }));
    expectValidationError(outcome, door, ['capacity', 'ticketTypes[0].currency', 'title']);
  });
});
