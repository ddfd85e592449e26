import { DomainError } from '../kernel/errors/domain-error.ts';

/** Raised at the HTTP boundary, before anything reaches the core. */
export class PayloadTooLargeError extends DomainError {
  readonly code = 'request.payload_too_large';

  constructor(limitBytes: number) {
    super(`The request body is larger than ${limitBytes} bytes`);
  }
}

export class InvalidJsonError extends DomainError {
  readonly code = 'request.invalid_json';

  constructor() {
    super('The request body is not valid JSON');
  }
}

export class UnsupportedMediaTypeError extends DomainError {
  readonly code = 'request.unsupported_media_type';

  constructor() {
    super('Request bodies must be sent as application/json');
  }
}

export class RouteNotFoundError extends DomainError {
  readonly code = 'not_found';

  constructor() {
    super('Not found');
  }
}

export class MethodNotAllowedError extends DomainError {
  readonly code = 'request.method_not_allowed';

  constructor() {
    super('This path does not accept that method');
  }
}
