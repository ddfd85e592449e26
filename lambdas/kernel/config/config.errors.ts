import { DomainError } from '../errors/domain-error.ts';

/** One wrong field of a configuration document: where it is and what is wrong, never its value. */
export interface ConfigProblem {
  readonly path: string;
  readonly message: string;
}

/** A configuration document that is not JSON or breaks the schema; names every field that is wrong. */
export class InvalidConfigError extends DomainError {
  readonly code = 'config.invalid';
  readonly source: string;
  readonly problems: readonly ConfigProblem[];

  constructor(source: string, problems: readonly ConfigProblem[]) {
    super(
      `Invalid configuration in ${source}: ${problems.map(({ path, message }) => `${path}: ${message}`).join('; ')}`,
    );
    this.source = source;
    this.problems = problems;
  }
}

/** The configuration source could not be read at all (missing file, unreachable parameter store). */
export class ConfigUnavailableError extends DomainError {
  readonly code = 'config.unavailable';
  readonly source: string;
  /** A short, value-free reason such as `ENOENT` or `ParameterNotFound`. */
  readonly reason: string;

  constructor(source: string, reason: string, options?: ErrorOptions) {
    super(`Could not read configuration from ${source}: ${reason}`, options);
    this.source = source;
    this.reason = reason;
  }
}
