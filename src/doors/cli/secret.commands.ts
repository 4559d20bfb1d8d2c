import type * as ResealWebhookModule from '../../modules/webhook/commands/reseal-webhook-secrets';
import type * as IdempotencyResealModule from '../../platform/idempotency/idempotency-key.repository';
import type * as ResealModule from '../../platform/crypto/reseal';
import type * as FingerprintModule from '../../platform/crypto/secret-fingerprint';
import type * as SecretsModule from '../../platform/crypto/server-secrets';
import type * as TicketCodesModule from '../../platform/crypto/ticket-codes';
import type * as TicketCodeUpkeepModule from '../../modules/booking/commands/ticket-code-upkeep';
import { parsePositiveInteger } from './arguments';
import { type Command, parser } from './command';

/** How many webhook endpoints a rotation lists by id when their secret opens under neither value. */
const LISTED_ENDPOINTS = 100;

export const SECRET_COMMANDS: Command[] = [
  {
    name: 'secret rotate',
    usage: 'secret rotate [--batch N]',
    help: `secret rotate [--batch N]
  Moves the database to a new server secret (D24), while the service serves. Before: set SECRET_KEY to
  the new value and SECRET_KEY_PREVIOUS to the current one on every instance and restart them (they
  then open values sealed under either); run this with the same two settings. It records the new
  secret's fingerprint (instances started with only the old value are refused from now on), then
  re-seals every stored webhook signing secret and stored idempotent answer, and every ticket code
  (re-sealed and hashed again: scans find codes under either value meanwhile, D29), under the new
  value, --batch rows per transaction (default 500), printing its progress on stderr. After: remove
  SECRET_KEY_PREVIOUS from every instance and the CLI ("next" says so). Without SECRET_KEY_PREVIOUS it
  re-seals what an older version sealed (format v1) under SECRET_KEY and changes nothing else.
  Values that open under neither value are left as they are and listed ("unreadable"); a booking
  whose ticket code is among them gets a new one by a transfer to the same attendee.`,
    parse: parser({ batch: { type: 'string' } }),
    async run({ em }, options, _positionals, { secrets, progress }) {
      const { DEFAULT_RESEAL_BATCH, resealInBatches } = require('../../platform/crypto/reseal') as typeof ResealModule;
      const { moveSecretFingerprint } = require('../../platform/crypto/secret-fingerprint') as typeof FingerprintModule;
      const { shortFingerprint: short } = require('../../platform/crypto/server-secrets') as typeof SecretsModule;
      const { resealWebhookSecrets } = require('../../modules/webhook/commands/reseal-webhook-secrets') as typeof ResealWebhookModule;
      const { resealIdempotencyRecords } = require('../../platform/idempotency/idempotency-key.repository') as typeof IdempotencyResealModule;
      const { TicketCodes } = require('../../platform/crypto/ticket-codes') as typeof TicketCodesModule;
      const { resealTicketCodes } = require('../../modules/booking/commands/ticket-code-upkeep') as typeof TicketCodeUpkeepModule;
      const batch = options.batch === undefined ? DEFAULT_RESEAL_BATCH : parsePositiveInteger(options.batch, 'batch');

      const replaced = await moveSecretFingerprint(em, secrets);
      if (replaced !== undefined) progress(`the database's server secret is now SECRET_KEY's (fingerprint ${short(secrets.current.fingerprint)}, was ${short(replaced)})`);
      const endpoints = await resealWebhookSecrets(em, secrets.box('webhook-signing-secret'), batch, progress);
      const answerBox = secrets.box('idempotent-answer');
      const answers = await resealInBatches(
        'stored idempotent answers',
        (after: readonly [string, string] | undefined) => resealIdempotencyRecords(em, answerBox, after, batch),
        progress,
      );
      const codes = await resealTicketCodes(em, TicketCodes.of(secrets), batch, progress);
      const unreadableCodes = [...codes.current.unreadable, ...codes.superseded.unreadable];

      const resealed = endpoints.resealed + answers.resealed + codes.current.resealed + codes.superseded.resealed;
      const next = secrets.previous
        ? 'Remove SECRET_KEY_PREVIOUS from every instance and from the CLI, then restart them: everything is sealed under SECRET_KEY.'
        : resealed > 0
          ? 'Nothing more to do: every stored value is sealed under SECRET_KEY.'
          : 'Nothing to re-seal. To rotate: set SECRET_KEY to a new value and SECRET_KEY_PREVIOUS to the current one on every instance, restart them, then run this again.';
      return {
        status: replaced !== undefined || resealed > 0 ? 'rotated' : 'up-to-date',
        fingerprint: short(secrets.current.fingerprint),
        replacedFingerprint: replaced === undefined ? null : short(replaced),
        resealed: {
          webhookEndpointSecrets: endpoints.resealed,
          idempotentAnswers: answers.resealed,
          ticketCodes: codes.current.resealed,
          supersededTicketCodes: codes.superseded.resealed,
        },
        unreadable: {
          webhookEndpoints: endpoints.unreadable.slice(0, LISTED_ENDPOINTS),
          webhookEndpointCount: endpoints.unreadable.length,
          idempotentAnswers: answers.unreadable.length,
          ticketCodeBookings: [...new Set(unreadableCodes)].slice(0, LISTED_ENDPOINTS),
          ticketCodeCount: unreadableCodes.length,
        },
        next: [
          next,
          endpoints.unreadable.length > 0 ? 'The endpoints listed under "unreadable" cannot sign: rotate their secret (Mutation.rotateWebhookSecret).' : '',
          unreadableCodes.length > 0 ? 'The bookings listed under "unreadable" have a ticket code that no longer scans: transfer each to its attendee for a new one.' : '',
        ]
          .filter((line) => line !== '')
          .join(' '),
      };
    },
  },
];
