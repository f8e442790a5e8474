import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * Console passwords and conductor secrets are hashed with scrypt, a deliberately slow, memory-hard key derivation
 * function with a random salt per hash, so a stolen hash is expensive to attack. The parameters are stored with each
 * hash so they can be raised later.
 */
export interface PasswordHashing {
  /** CPU and memory cost, a power of two. */
  N: number;
  /** Block size. */
  r: number;
  /** Parallelism. */
  p: number;
}

/** What the product hashes with: about a tenth of a second and 32 MiB per hash. */
export const DEFAULT_PASSWORD_HASHING: Readonly<PasswordHashing> = Object.freeze({ N: 32768, r: 8, p: 1 });
const KEY_LENGTH = 32;

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, { ...options, maxmem: 128 * options.N! * options.r! * 2 }, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

export async function hashPassword(password: string, params: Readonly<PasswordHashing> = DEFAULT_PASSWORD_HASHING): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, params);
  return `scrypt$${params.N}$${params.r}$${params.p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

// Verified against when the account is unknown, so that an unknown email or user costs as much time as a wrong
// password: one per cost, hashed at that cost.
const decoys = new Map<string, Promise<string>>();
function decoyFor(params: Readonly<PasswordHashing>): Promise<string> {
  const key = `${params.N}$${params.r}$${params.p}`;
  let decoy = decoys.get(key);
  if (!decoy) decoys.set(key, (decoy = hashPassword('decoy password for unknown accounts', params)));
  return decoy;
}

/** Hashes the decoy of a cost ahead of the first unknown account, so that it costs no more than later ones. */
export function prepareDecoy(params: Readonly<PasswordHashing> = DEFAULT_PASSWORD_HASHING): void {
  void decoyFor(params);
}

/** Checks a password against its stored hash, at the cost stored with it; against a decoy at `params` without one. */
export async function verifyPassword(password: string, stored: string | null, params: Readonly<PasswordHashing> = DEFAULT_PASSWORD_HASHING): Promise<boolean> {
  const encoded = stored ?? (await decoyFor(params));
  const [scheme, n, r, p, salt, hash] = encoded.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const key = await derive(password, Buffer.from(salt, 'base64'), { N: Number(n), r: Number(r), p: Number(p) });
  return timingSafeEqual(key, expected) && stored !== null;
}
