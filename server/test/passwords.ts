import type { PasswordHashing } from '../src/domain/auth/passwords.js';

/**
 * A scrypt cost for test servers that hash and check many console passwords: a few milliseconds per hash instead of
 * the product's tenth of a second, with the same code path and hash format. The product's cost is checked on its
 * own (console.test.ts, "keeps only a slow scrypt hash of the password").
 */
export const TEST_PASSWORD_HASHING: PasswordHashing = { N: 1024, r: 8, p: 1 };
