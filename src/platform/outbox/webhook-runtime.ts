import type { WebhookSettings } from '../../foundation/config';
import type { Resolve } from './webhook-destination';
import type { SecretBox } from '../crypto/secret-box';
import type { ServerSecrets } from '../crypto/server-secrets';

/** What webhook commands need from the process: the box of signing secrets, the destination rule, a nudge. */
export interface WebhookRuntime {
  /** Seals and opens signing secrets (the server secret's key for `webhook-signing-secret`, D24). */
  readonly secrets: SecretBox;
  readonly allowPrivateNetworks: boolean;
  readonly resolve?: Resolve;
  /** After a commit that made a message due: wakes this process's worker (if any) and NOTIFYs the others. */
  wake(): void;
}

export function webhookRuntime(settings: WebhookSettings, secrets: ServerSecrets, wake: () => void = () => undefined): WebhookRuntime {
  return {
    secrets: secrets.box('webhook-signing-secret'),
    allowPrivateNetworks: settings.allowPrivateNetworks,
    wake,
  };
}

/** For request contexts built without a webhook runtime: webhook commands refuse to sign there. */
export const NO_WEBHOOK_RUNTIME: WebhookRuntime = {
  get secrets(): SecretBox {
    throw new Error('no webhook runtime in this context');
  },
  allowPrivateNetworks: false,
  wake: () => undefined,
};
