import { hash, timingSafeEqual } from 'node:crypto';

/** The SHA-256 digest of a secret: what is stored (as hex) and what caches key on; never the secret itself. */
export const secretDigest = (secret: string): Buffer => hash('sha256', secret, 'buffer');

/**
 * API client secrets and session tokens are stored only as SHA-256 hashes (hex): they are random and long, so a
 * slow KDF adds nothing. (Conductor secrets, which an operator may choose, are hashed with scrypt: passwords.ts.)
 */
export const hashSecret = (secret: string): string => secretDigest(secret).toString('hex');

// Compared against when there is no stored hash, so that an unknown id costs the same time as a wrong secret.
const NO_HASH = hashSecret('no secret is stored for this principal');

/** Compares the digest of a presented secret with a stored hash (hex) in constant time. */
export function digestMatches(presented: Buffer, storedHash: string | null): boolean {
  const stored = Buffer.from(storedHash ?? NO_HASH, 'hex');
  return stored.length === presented.length && timingSafeEqual(presented, stored) && storedHash !== null;
}

/** Compares a presented secret with a stored hash in constant time. */
export function secretMatches(secret: string, storedHash: string | null): boolean {
  return digestMatches(secretDigest(secret), storedHash);
}
