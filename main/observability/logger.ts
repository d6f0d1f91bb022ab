// The process log (pino): JSON lines to stderr, pretty when stderr is a terminal. Never keys, never bodies.
import { pino } from 'pino';
import pretty from 'pino-pretty';

const level = process.env.SWITCHBOARD_LOG_LEVEL ?? (process.env.VITEST ? 'warn' : 'info');

export const logger = process.stderr.isTTY
  ? pino({ level }, pretty({ destination: 2, sync: true, ignore: 'pid,hostname', translateTime: 'HH:MM:ss' }))
  : pino({ level, base: undefined }, pino.destination({ dest: 2, sync: false }));
