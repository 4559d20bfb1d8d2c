import { WEBHOOK_EVENT_TYPES } from '../../src/modules/webhook/webhook-types';
import {
  DESCRIPTION_MAX_LENGTH,
  endpointChanges,
  endpointInputErrors,
  newEndpointFields,
  ROTATION_OVERLAP_MS,
  rotatedSecrets,
  signingCiphertexts,
  storedEventTypes,
} from '../../src/modules/webhook/webhook.policy';

// Pure rules (docs/decisions/ D18, docs/webhooks.md): no database, no network, no HTTP.
const NOW = Date.parse('2030-01-01T00:00:00Z');
const HOUR = 3_600_000;
const fields = (errors: Array<{ field: string }>) => errors.map((error) => error.field);
const REFUSED = 'url must not point at a loopback, private, link-local or metadata address';
const ALL_TYPES = WEBHOOK_EVENT_TYPES.join(', ');

describe('endpoint input (D18)', () => {
  test('a valid input has no errors, on create and on update', () => {
    const input = { url: 'https://hooks.example.com/in', description: 'x'.repeat(DESCRIPTION_MAX_LENGTH), eventTypes: [...WEBHOOK_EVENT_TYPES], enabled: false };
    expect(endpointInputErrors(input, 'create')).toEqual([]);
    expect(endpointInputErrors(input, 'update')).toEqual([]);
    expect(endpointInputErrors({ url: 'https://hooks.example.com/in' }, 'create')).toEqual([]);
    expect(endpointInputErrors({}, 'update')).toEqual([]);
  });

  test('every failing field at once, the destination verdict first', () => {
    const input = { url: 'https://10.0.0.1/in', description: 'x'.repeat(DESCRIPTION_MAX_LENGTH + 1), eventTypes: ['event.created', 'event.exploded', 'webhook.test'] };
    expect(endpointInputErrors(input, 'create', REFUSED)).toEqual([
      { field: 'url', message: REFUSED },
      { field: 'description', message: 'description must be at most 500 characters' },
      { field: 'eventTypes', message: `unknown type(s) event.exploded, webhook.test; use ${ALL_TYPES}` },
    ]);
    expect(endpointInputErrors(input, 'update', REFUSED)).toEqual(endpointInputErrors(input, 'create', REFUSED));
  });

  test.each([
    ['create', {}, [{ field: 'url', message: 'url is required' }]],
    ['create', { url: null }, [{ field: 'url', message: 'url is required' }]],
    ['update', { url: null }, [{ field: 'url', message: 'url cannot be null' }]],
    ['update', { url: undefined }, []],
  ] as const)('url on %s %j', (change, input, expected) => {
    expect(endpointInputErrors(input, change)).toEqual(expected);
  });

  test('a missing url comes after the other fields (as the answers have always listed it)', () => {
    expect(fields(endpointInputErrors({ url: null, description: 'x'.repeat(501), eventTypes: ['nope'] }, 'update'))).toEqual(['description', 'eventTypes', 'url']);
    expect(fields(endpointInputErrors({ description: 'x'.repeat(501) }, 'create'))).toEqual(['description', 'url']);
  });

  test('null description and null or empty eventTypes are fine (they clear or mean every type)', () => {
    expect(endpointInputErrors({ url: 'https://a.example', description: null, eventTypes: null }, 'create')).toEqual([]);
    expect(endpointInputErrors({ description: null, eventTypes: [] }, 'update')).toEqual([]);
  });

  test('event types are matched exactly', () => {
    expect(fields(endpointInputErrors({ eventTypes: ['Event.Created'] }, 'update'))).toEqual(['eventTypes']);
    expect(fields(endpointInputErrors({ eventTypes: [' event.created'] }, 'update'))).toEqual(['eventTypes']);
  });
});

describe('stored state', () => {
  test('event types are stored once each, in the order given; none means every type', () => {
    expect(storedEventTypes(['booking.created', 'event.created', 'booking.created'])).toEqual(['booking.created', 'event.created']);
    expect(storedEventTypes(undefined)).toEqual([]);
    expect(storedEventTypes(null)).toEqual([]);
  });

  test('a new endpoint is enabled with no description unless told otherwise', () => {
    expect(newEndpointFields({ url: 'https://a.example' })).toEqual({ url: 'https://a.example', description: null, eventTypes: [], enabled: true });
    expect(newEndpointFields({ url: 'https://a.example', description: 'CRM', eventTypes: ['event.deleted', 'event.deleted'], enabled: false })).toEqual({
      url: 'https://a.example',
      description: 'CRM',
      eventTypes: ['event.deleted'],
      enabled: false,
    });
  });
});

describe('updates', () => {
  const disabled = {
    url: 'https://a.example',
    description: 'CRM',
    eventTypes: ['event.created'],
    enabled: false,
    failingSince: new Date(NOW - 120 * HOUR),
    disabledReason: 'every message failed for 5 days',
  };
  const enabled = { ...disabled, enabled: true, failingSince: new Date(NOW - HOUR), disabledReason: null };

  test('only the given fields change; null clears the description; null eventTypes and enabled keep them', () => {
    expect(endpointChanges(enabled, {})).toEqual({});
    expect(endpointChanges(enabled, { url: null, eventTypes: null, enabled: null })).toEqual({});
    expect(endpointChanges(enabled, { description: null })).toEqual({ description: null });
    expect(endpointChanges(enabled, { url: 'https://b.example', eventTypes: ['event.deleted', 'event.deleted'] })).toEqual({
      url: 'https://b.example',
      eventTypes: ['event.deleted'],
    });
    expect(endpointChanges(enabled, { eventTypes: [] })).toEqual({ eventTypes: [] });
  });

  test('re-enabling a disabled endpoint clears its failure state', () => {
    expect(endpointChanges(disabled, { enabled: true })).toEqual({ enabled: true, failingSince: null, disabledReason: null });
  });

  test('enabling an enabled endpoint keeps its failure clock; disabling keeps the reason', () => {
    expect(endpointChanges(enabled, { enabled: true })).toEqual({ enabled: true });
    expect(endpointChanges(enabled, { enabled: false })).toEqual({ enabled: false });
    expect(endpointChanges(disabled, { enabled: false })).toEqual({ enabled: false });
  });
});

describe('secret rotation (D18)', () => {
  test('the new secret signs; the replaced one keeps signing beside it for 24 hours', () => {
    expect(ROTATION_OVERLAP_MS).toBe(24 * HOUR);
    expect(rotatedSecrets({ secretCiphertext: 'v1:old' }, 'v1:new', NOW)).toEqual({
      secretCiphertext: 'v1:new',
      previousSecretCiphertext: 'v1:old',
      previousSecretExpiresAt: new Date(NOW + 24 * HOUR),
    });
  });

  test('a second rotation within the overlap keeps only the two newest', () => {
    const first = rotatedSecrets({ secretCiphertext: 'v1:a' }, 'v1:b', NOW);
    const second = rotatedSecrets(first, 'v1:c', NOW + HOUR);
    expect(second).toEqual({ secretCiphertext: 'v1:c', previousSecretCiphertext: 'v1:b', previousSecretExpiresAt: new Date(NOW + 25 * HOUR) });
  });

  test('messages are signed with the current secret, and the previous one until its overlap ends', () => {
    const rotated = rotatedSecrets({ secretCiphertext: 'v1:old' }, 'v1:new', NOW);
    expect(signingCiphertexts(rotated, NOW)).toEqual(['v1:new', 'v1:old']);
    expect(signingCiphertexts(rotated, NOW + 24 * HOUR - 1)).toEqual(['v1:new', 'v1:old']);
    expect(signingCiphertexts(rotated, NOW + 24 * HOUR)).toEqual(['v1:new']);
    expect(signingCiphertexts({ secretCiphertext: 'v1:only', previousSecretCiphertext: null, previousSecretExpiresAt: null }, NOW)).toEqual(['v1:only']);
  });
});
