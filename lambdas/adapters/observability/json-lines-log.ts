import type { Log, LogFields } from '../../kernel/observability/log.port.ts';

type LogLevel = 'warn' | 'error';

/** Writes each line to stderr, where the local server's operator (and a test runner) sees it. */
const toStderr = (line: string, level: LogLevel): void => {
  if (level === 'error') console.error(line);
  else console.warn(line);
};

/** The local log: one JSON object per line, `{ level, message, …fields }`. */
export const jsonLinesLog = (write: (line: string, level: LogLevel) => void = toStderr): Log => {
  const line = (level: LogLevel, message: string, fields: LogFields = {}) =>
    write(JSON.stringify({ level, message, ...fields }), level);
  return {
    warn: (message, fields) => line('warn', message, fields),
    error: (message, fields) => line('error', message, fields),
  };
};
