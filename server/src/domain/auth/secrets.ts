import { createHash, timingSafeEqual } from 'node:crypto';

/** Secrets are stored only as SHA-256 hashes (hex). They are random and long, so a slow KDF adds nothing. */
export const hashSecret = (secret: string): string => createHash('sha256').update(secret, 'utf8').digest('hex');

// Compared against when there is no stored hash, so that an unknown id costs the same time as a wrong secret.
const NO_HASH = hashSecret('no secret is stored for this principal');

/** Compares a presented secret with a stored hash in constant time. */
export function secretMatches(secret: string, storedHash: string | null): boolean {
  const presented = Buffer.from(hashSecret(secret), 'hex');
  const stored = Buffer.from(storedHash ?? NO_HASH, 'hex');
  return timingSafeEqual(presented, stored) && storedHash !== null;
}
