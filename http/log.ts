// Structured logs: one JSON object per line on stderr (stdout carries only the ready line, and
// before it, on a replica that starts from a snapshot, the restore's report: main.ts).
// Callers pass fields explicitly; nothing here knows about requests or secrets, so callers
// must never hand it a credential.
import type { LogLevel } from './config.js';

const rank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export type LogFields = Readonly<Record<string, string | number | boolean | null | undefined>>;

export interface Logger {
  debug(event: string, fields?: LogFields): void;
  info(event: string, fields?: LogFields): void;
  warn(event: string, fields?: LogFields): void;
  error(event: string, fields?: LogFields): void;
}

export function createLogger(level: LogLevel, write: (line: string) => void = (line) => process.stderr.write(line)): Logger {
  const threshold = rank[level];
  const emit = (at: Exclude<LogLevel, 'silent'>, event: string, fields?: LogFields): void => {
    if (rank[at] < threshold) return;
    write(JSON.stringify({ time: new Date().toISOString(), level: at, event, ...fields }) + '\n');
  };
  return {
    debug: (event, fields) => emit('debug', event, fields),
    info: (event, fields) => emit('info', event, fields),
    warn: (event, fields) => emit('warn', event, fields),
    error: (event, fields) => emit('error', event, fields),
  };
}
