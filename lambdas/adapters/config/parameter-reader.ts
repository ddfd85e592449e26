/** Reads one SSM parameter's value: what the configuration provider and the Cognito trigger need of Parameter Store. */
export interface ParameterReader {
  /**
   * The parameter's current value. Throws `ParameterReadError` when it cannot be read, and when `signal` aborts
   * the read.
   */
  readParameter(name: string, options?: { readonly signal?: AbortSignal }): Promise<string>;
}

/** A parameter that could not be read; `reason` names why in a few words and never quotes a value. */
export class ParameterReadError extends Error {
  override readonly name = 'ParameterReadError';
  readonly parameterName: string;
  readonly reason: string;

  constructor(parameterName: string, reason: string, options?: ErrorOptions) {
    super(`The parameter ${parameterName} could not be read: ${reason}`, options);
    this.parameterName = parameterName;
    this.reason = reason;
  }
}
