import type { WebhookSettings } from '../../foundation/config';
import type { Resolve } from './webhook-destination';
import { webhookSecretBox, type SecretBox } from '../crypto/secret-box';

/** What webhook commands need from the process: the secret key, the destination rule, a nudge. */
export interface WebhookRuntime {
  readonly secrets: SecretBox;
  readonly allowPrivateNetworks: boolean;
  readonly resolve?: Resolve;
  /** After a commit that made a message due: wakes this process's worker (if any) and NOTIFYs the others. */
  wake(): void;
}

export function webhookRuntime(settings: WebhookSettings, dataDir: string, wake: () => void = () => undefined): WebhookRuntime {
  return {
    secrets: webhookSecretBox({ secretKey: settings.secretKey, dataDir }),
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
