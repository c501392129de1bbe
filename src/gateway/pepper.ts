/**
 * The secret mixed into every key hash. AI_KEY_PEPPER wins when set; otherwise a random pepper
 * is generated once and persisted in the gateway_meta table, so the server and the keys command
 * agree without configuration. Changing the pepper invalidates every existing key.
 */
import { randomBytes } from 'node:crypto';
import { ConfigError } from '../config.ts';
import type { Db } from '../kernel/db.ts';

export const MIN_PEPPER_LENGTH = 16;

export function resolvePepper(db: Db, configured: string | undefined): string {
  if (configured !== undefined) {
    if (configured.length < MIN_PEPPER_LENGTH) throw new ConfigError([`AI_KEY_PEPPER must be at least ${MIN_PEPPER_LENGTH} characters long`]);
    return configured;
  }
  // INSERT OR IGNORE: the server and the keys command may start at the same moment.
  db.prepare("INSERT OR IGNORE INTO gateway_meta (name, value) VALUES ('key_pepper', ?)").run(randomBytes(32).toString('hex'));
  const row = db.prepare("SELECT value FROM gateway_meta WHERE name = 'key_pepper'").get() as { value: string };
  return row.value;
}
