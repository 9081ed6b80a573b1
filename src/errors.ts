/** One field that failed validation: where it is and what is wrong with it. */
export interface FieldProblem {
  /** Path to the field, e.g. ["body", "url"]. */
  loc: (string | number)[];
  msg: string;
  type: string;
}

/** Base of hookline's errors; `code` is stable and machine-readable. */
export class HooklineError extends Error {
  constructor(
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The input is malformed or breaks a rule; names each bad field. Maps to 422. */
export class ValidationError extends HooklineError {
  constructor(
    readonly problems: FieldProblem[],
    options?: { cause?: unknown },
  ) {
    super("validation", problems.map((p) => `${p.loc.join(".")}: ${p.msg}`).join("; "), options);
  }
}

/** The thing asked for does not exist (or the caller may not know it does). Maps to 404. */
export class NotFoundError extends HooklineError {
  constructor(what: string, options?: { cause?: unknown }) {
    super("not_found", `${what} not found`, options);
  }
}

/** The request conflicts with the current state (duplicate uid, wrong state). Maps to 409. */
export class ConflictError extends HooklineError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("conflict", message, options);
  }
}

/** The caller is not authenticated. Maps to 401. */
export class UnauthorizedError extends HooklineError {
  constructor(message = "missing or invalid token", options?: { cause?: unknown }) {
    super("authentication_failed", message, options);
  }
}

/** The caller is authenticated but its token may not do this. Maps to 403. */
export class ForbiddenError extends HooklineError {
  constructor(message = "this token may not use this route", options?: { cause?: unknown }) {
    super("forbidden", message, options);
  }
}

/** A setting is missing or invalid; start-up stops with this message. */
export class ConfigError extends HooklineError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("config", message, options);
  }
}

/** The store cannot be reached or written; the API answers 503 and accepts nothing. */
export class StoreUnavailableError extends HooklineError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("store_unavailable", message, options);
  }
}
