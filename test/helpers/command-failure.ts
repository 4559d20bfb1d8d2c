import { AppError } from '../../src/foundation/errors/app-error';

/** The AppError a command failed with (any other error is rethrown; success fails the test). */
export async function failure(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected a failure');
}

/** The fields a VALIDATION_ERROR names, in its order. */
export const fieldsOf = (error: AppError): string[] => (error.details as { errors: Array<{ field: string }> }).errors.map((item) => item.field);
