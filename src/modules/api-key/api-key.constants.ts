/** How long a rotated key keeps working next to its replacement, so clients can be redeployed. */
export const ROTATION_GRACE_HOURS = 24;
