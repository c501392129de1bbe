/** JSON-lines logging on stdout (pino), with secrets redacted. The only place that writes logs. */
import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

const REDACT = [
  'authorization',
  'cookie',
  'key',
  'apiKey',
  'token',
  '*.authorization',
  '*.cookie',
  '*.key',
  '*.apiKey',
  '*.token',
  'headers.authorization',
  'headers.cookie',
  'headers["set-cookie"]',
  'headers["x-goog-api-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-goog-api-key"]',
];

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACT, censor: '[redacted]' },
    },
    destination,
  );
}

/** Keep a secret's shape visible in logs without its value (`sk-ab…wxyz`). */
export function maskSecret(value: string): string {
  if (value.length <= 10) return '[redacted]';
  return `${value.slice(0, 5)}…${value.slice(-4)}`;
}
