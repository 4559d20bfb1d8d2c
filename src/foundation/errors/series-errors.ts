import { AppError } from './app-error';

/**
 * Errors of event series (D28): a named constructor per code, as AppError's own (app-error.ts), kept
 * beside them as the queue's are (queue-errors.ts).
 */
export const SeriesErrors = {
  seriesChanged(expectedVersion: number, version: number): AppError {
    return new AppError(
      'SERIES_CHANGED',
      `The series changed since version ${expectedVersion} (it is at version ${version} now): nothing was changed; preview the change again`,
      { expectedVersion, version },
    );
  },
  seriesHasBookings(bookedOccurrences: number): AppError {
    return new AppError(
      'SERIES_HAS_BOOKINGS',
      `${bookedOccurrences} occurrence${bookedOccurrences === 1 ? ' has' : 's have'} confirmed bookings; nothing was deleted`,
      { bookedOccurrences },
    );
  },
};
