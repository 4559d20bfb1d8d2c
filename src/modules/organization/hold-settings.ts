/** An organization's hold and waiting-list offer windows (D20, D21): defaults and bounds, in minutes. */
export const DEFAULT_HOLD_MINUTES = 15;
export const DEFAULT_WAITLIST_OFFER_MINUTES = 60;
/** The shortest and longest window an organization may set, and a hold may ask for (a day). */
export const MIN_HOLD_MINUTES = 1;
export const MAX_HOLD_MINUTES = 1_440;
