import express from 'express';

export const MAX_BODY_BYTES = 1024 * 1024;

/** JSON bodies up to 1 MiB; errors (malformed, too large) are mapped by the error handler. */
export const jsonBody = express.json({ limit: MAX_BODY_BYTES, type: ['application/json', 'application/*+json'], strict: false });
