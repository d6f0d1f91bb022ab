// config.json's JSON schema for electron-store, derived from the one zod schema the engine validates with.
import { z } from 'zod';
import { ConfigSchema } from '../../shared/config.ts';

/** The top-level `properties` electron-store (conf) wants, from the shared zod schema ("input" view: defaults optional). */
export function configJsonSchemaProperties(): Record<string, unknown> {
  const full = z.toJSONSchema(ConfigSchema, { io: 'input', unrepresentable: 'any' }) as {
    properties?: Record<string, unknown>;
  };
  return full.properties ?? {};
}
