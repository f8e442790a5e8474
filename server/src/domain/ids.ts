import { randomBytes, randomUUID } from 'node:crypto';

export const newId = (): string => randomUUID();

/** A URL-safe random token of `bytes` random bytes. */
export const randomToken = (bytes: number): string => randomBytes(bytes).toString('base64url');
