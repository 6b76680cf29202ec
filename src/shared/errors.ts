/**
 * The one error type of Punchcard. Domain functions throw it; the HTTP layer turns it into
 * `{error, message}` with `status`, and the CLI prints `message`.
 */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    message: string,
    readonly headers: Record<string, string> = {},
    /** Fields the answer carries beside `error` and `message` (`retryAfterSeconds`, `totpRequired`). */
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const badRequest = (message: string) => new AppError(400, 'Bad Request', message);
export const notFound = (message: string) => new AppError(404, 'Not Found', message);
export const conflict = (message: string) => new AppError(409, 'Conflict', message);
export const forbidden = (message: string) => new AppError(403, 'Forbidden', message);
export const insufficientPoints = (message: string) => new AppError(400, 'Insufficient points', message);
