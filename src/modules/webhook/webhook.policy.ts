import type { FieldError } from '../../foundation/errors/app-error';
import { isWebhookEventType, WEBHOOK_EVENT_TYPES } from './webhook-types';

/*
 * Every rule about webhook endpoints (docs/decisions/ D18, docs/webhooks.md), as pure functions of
 * the input and the loaded endpoint: no database, no network, no clock unless given. The endpoint
 * commands (commands/) call them between loading and applying. The destination rule (https, public
 * addresses only) lives in webhook-destination.ts: at registration it resolves DNS, so the commands
 * ask it and hand its verdict to `endpointInputErrors`; the worker asks it again at every send.
 */

export const DESCRIPTION_MAX_LENGTH = 500;
/** How long a rotated-out secret keeps signing beside the new one (D18). */
export const ROTATION_OVERLAP_MS = 24 * 3600 * 1000;

/** The fields of CreateWebhookEndpointInput / UpdateWebhookEndpointInput (and of `webhook create`). */
export interface EndpointInput {
  url?: string | null;
  description?: string | null;
  eventTypes?: readonly string[] | null;
  enabled?: boolean | null;
}

/**
 * Every failing field of an endpoint's input at once, in the order url (the destination's verdict),
 * description, eventTypes, then a missing url: required to create, never null on update (absent
 * keeps it). `destinationError` is what webhook-destination.ts `registrationError` said about the url.
 */
export function endpointInputErrors(input: EndpointInput, change: 'create' | 'update', destinationError?: string): FieldError[] {
  const errors: FieldError[] = [];
  if (destinationError) errors.push({ field: 'url', message: destinationError });
  if (input.description != null && input.description.length > DESCRIPTION_MAX_LENGTH) {
    errors.push({ field: 'description', message: `description must be at most ${DESCRIPTION_MAX_LENGTH} characters` });
  }
  const unknown = (input.eventTypes ?? []).filter((type) => !isWebhookEventType(type));
  if (unknown.length > 0) {
    errors.push({ field: 'eventTypes', message: `unknown type(s) ${unknown.join(', ')}; use ${WEBHOOK_EVENT_TYPES.join(', ')}` });
  }
  if (change === 'create' && input.url == null) errors.push({ field: 'url', message: 'url is required' });
  if (change === 'update' && input.url === null) errors.push({ field: 'url', message: 'url cannot be null' });
  return errors;
}

/** The types stored for an endpoint: each once, in the order given; none (absent or empty) means every type. */
export function storedEventTypes(types: readonly string[] | null | undefined): string[] {
  return [...new Set(types ?? [])];
}

/** The state a new endpoint starts in: enabled unless told otherwise, with no description unless given. */
export function newEndpointFields(input: EndpointInput & { url: string }): {
  url: string;
  description: string | null;
  eventTypes: string[];
  enabled: boolean;
} {
  return { url: input.url, description: input.description ?? null, eventTypes: storedEventTypes(input.eventTypes), enabled: input.enabled ?? true };
}

interface EndpointState {
  url: string;
  description: string | null;
  eventTypes: string[];
  enabled: boolean;
  failingSince: Date | null;
  disabledReason: string | null;
}

/**
 * What an update changes (only the given fields; `description: null` clears it). Re-enabling a disabled
 * endpoint (the service disables one after 5 days of failures) starts it afresh: its failure state is
 * cleared, so it is not disabled again by the next failure. Disabling keeps the reason, if any.
 */
export function endpointChanges(endpoint: Readonly<EndpointState>, input: EndpointInput): Partial<EndpointState> {
  const changes: Partial<EndpointState> = {};
  if (input.url != null) changes.url = input.url;
  if (input.description !== undefined) changes.description = input.description;
  if (input.eventTypes != null) changes.eventTypes = storedEventTypes(input.eventTypes);
  if (input.enabled != null) {
    if (input.enabled && !endpoint.enabled) {
      changes.failingSince = null;
      changes.disabledReason = null;
    }
    changes.enabled = input.enabled;
  }
  return changes;
}

/**
 * A secret rotation (D18): the new secret signs from now on; the one it replaces keeps signing beside
 * it (two signatures per message) until `now` + 24 hours. A second rotation within the overlap
 * replaces the previous secret: only the two newest sign.
 */
export function rotatedSecrets(
  endpoint: { secretCiphertext: string },
  newSecretCiphertext: string,
  now: number,
): { secretCiphertext: string; previousSecretCiphertext: string; previousSecretExpiresAt: Date } {
  return {
    secretCiphertext: newSecretCiphertext,
    previousSecretCiphertext: endpoint.secretCiphertext,
    previousSecretExpiresAt: new Date(now + ROTATION_OVERLAP_MS),
  };
}

/**
 * The secrets that sign a message sent at `now`: the current one, then the one the last rotation
 * replaced while its overlap lasts (the worker sends both signatures; a receiver holding either accepts).
 */
export function signingCiphertexts(
  endpoint: { secretCiphertext: string; previousSecretCiphertext: string | null; previousSecretExpiresAt: Date | null },
  now: number,
): string[] {
  const overlap = endpoint.previousSecretExpiresAt !== null && endpoint.previousSecretExpiresAt.getTime() > now;
  return endpoint.previousSecretCiphertext !== null && overlap ? [endpoint.secretCiphertext, endpoint.previousSecretCiphertext] : [endpoint.secretCiphertext];
}
