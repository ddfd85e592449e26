import { DomainError } from '../kernel/errors/domain-error.ts';

/** Raised at the HTTP boundary, before anything reaches the core. */
export class PayloadTooLargeError extends DomainError {
  readonly code = 'request.payload_too_large';

  constructor(limitBytes: number) {
    super(`The request body is larger than ${limitBytes} bytes`);
  }
}

/** The request target is not a path this service can route: a bad percent-encoding or a character no URI path holds. */
export class MalformedRequestTargetError extends DomainError {
  readonly code = 'request.malformed_target';

  constructor() {
    super('The request target is not a valid URI path; percent-encode reserved characters');
  }
}

/** The HTTP/1.1 parser could not read the request (its request line or a header field). */
export class MalformedRequestError extends DomainError {
  readonly code = 'request.malformed';

  constructor() {
    super('The request is not valid HTTP/1.1');
  }
}

/** The request's header fields together exceed what the server reads (Node's limit locally). */
export class HeaderFieldsTooLargeError extends DomainError {
  readonly code = 'request.header_fields_too_large';

  constructor() {
    super('The request header fields are too large');
  }
}

/** The client did not send a whole request in time. */
export class RequestTimeoutError extends DomainError {
  readonly code = 'request.timeout';

  constructor() {
    super('The request was not received in time');
  }
}

/** Malformed JSON syntax: a 400, where well-formed JSON that fails validation is a 422. */
export class InvalidJsonError extends DomainError {
  readonly code = 'request.invalid_json';

  constructor() {
    super('The request body is not valid JSON');
  }
}

/**
 * `If-Match: *` matches whatever revision is current, so honouring it would overwrite blindly: refused like a
 * request without If-Match (428), telling the caller what to send instead.
 */
export class IfMatchWildcardError extends DomainError {
  readonly code = 'request.if_match_wildcard';

  constructor() {
    super(
      'If-Match: * is not accepted, since it would overwrite whatever is current; send the ETag of the revision you read',
    );
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
