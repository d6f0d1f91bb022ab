// The process log (pino): JSON lines to stderr, pretty when stderr is a terminal. Never keys, never bodies: credential
// headers and fields are censored wherever a logged object carries them, and the messages of errors and warnings are
// scrubbed of secrets (./redact.ts), as an upstream's text may reach them.
import { createRequire } from 'node:module';
import { type LoggerOptions, pino } from 'pino';
import { REDACTED, redact } from './redact.ts';

const level = process.env.SWITCHBOARD_LOG_LEVEL ?? (process.env.VITEST ? 'warn' : 'info');

/** Header and field names whose values are credentials. */
const SECRET_FIELDS = [
  'authorization',
  'proxy-authorization',
  'x-api-key',
  'api-key',
  'x-goog-api-key',
  'x-switchboard-token',
  'cookie',
  'api_key',
  'apiKey',
  'token',
  'secret',
  'adminToken',
];
const step = (f: string) => (/^[A-Za-z_$][\w$]*$/.test(f) ? `.${f}` : `["${f}"]`);

/** Where the censor looks: the field itself, in an object, in `headers`, and in an object's `headers`. */
export const REDACT_PATHS = SECRET_FIELDS.flatMap((f) => [
  step(f).replace(/^\./, ''),
  `*${step(f)}`,
  `headers${step(f)}`,
  `*.headers${step(f)}`,
]);

const WARN = 40;

/** The logger's options at `level` (exported for its test, which gives them its own destination). */
export function loggerOptions(logLevel: string): LoggerOptions {
  return {
    level: logLevel,
    redact: { paths: REDACT_PATHS, censor: REDACTED },
    serializers: {
      err(e: Error) {
        const s = pino.stdSerializers.err(e);
        s.message = redact(s.message);
        if (s.stack) s.stack = redact(s.stack);
        return s;
      },
    },
    hooks: {
      // Warnings and errors only (few, off the request path): their text may quote what a provider said.
      logMethod(args, method, at) {
        if (at >= WARN)
          for (let i = 0; i < args.length; i++) if (typeof args[i] === 'string') args[i] = redact(args[i] as string);
        return method.apply(this, args);
      },
    },
  };
}

// pino-pretty (and its dozen dependencies) is required only for a terminal: a service or the desktop app logs JSON.
const pretty = (): typeof import('pino-pretty') =>
  createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty');

export const logger = process.stderr.isTTY
  ? pino(
      loggerOptions(level),
      pretty()({ destination: 2, sync: true, ignore: 'pid,hostname', translateTime: 'HH:MM:ss' }),
    )
  : pino({ ...loggerOptions(level), base: undefined }, pino.destination({ dest: 2, sync: false }));
