/**
 * Lines for operators. The message is a fixed string chosen in code; the fields are codes, counts, setting
 * names, sources and request ids — never content, a namespace, a principal id or a value from the input.
 */
export interface Log {
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

export type LogFields = Readonly<Record<string, string | number | boolean | readonly string[]>>;
