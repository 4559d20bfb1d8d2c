/** An organization's booking windows (D20 holds, D21 waiting-list offers, D29 transfers): defaults and bounds, in minutes. */
export const DEFAULT_HOLD_MINUTES = 15;
export const DEFAULT_WAITLIST_OFFER_MINUTES = 60;
/** The shortest and longest window an organization may set, and a hold may ask for (a day). */
export const MIN_HOLD_MINUTES = 1;
export const MAX_HOLD_MINUTES = 1_440;

/** How long before an event's start its bookings stop changing hands (D29, transferLockMinutes): from none (the default) to a week. */
export const DEFAULT_TRANSFER_LOCK_MINUTES = 0;
export const MAX_TRANSFER_LOCK_MINUTES = 10_080;
