import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Clock } from '../clock.js';
import { randomToken } from '../ids.js';
import type { ConductorUserRepository } from '../repositories.js';
import { hashSecret, secretMatches } from './secrets.js';

export const ROOT_USER = 'root';

export interface ConductorPrincipal {
  user: string;
}

export interface RootSecretSource {
  /** From CONDUCTOR_ROOT_SECRET: wins over anything stored. */
  configured: string | undefined;
  /** Where a generated secret is written once, readable only by its owner. */
  file: string;
}

/** Users of the conductor API. `root` always exists; the others come from the attached rbac policy. */
export class ConductorUserService {
  constructor(
    private readonly users: ConductorUserRepository,
    private readonly clock: Clock,
  ) {}

  async authenticate(name: string, secret: string): Promise<ConductorPrincipal | undefined> {
    const user = await this.users.get(name);
    return secretMatches(secret, user?.secretHash ?? null) && user ? { user: user.name } : undefined;
  }

  /**
   * Gives root its secret at start-up: the configured one if any; otherwise the one stored before; otherwise a
   * new one, written once to an owner-only file (never overwritten) and reported by path, not by value.
   * Returns the file path when a secret was generated.
   */
  async ensureRoot(source: RootSecretSource): Promise<string | undefined> {
    const now = this.clock.nowSeconds();
    const existing = await this.users.get(ROOT_USER);
    const save = (secret: string) =>
      this.users.upsert({ name: ROOT_USER, secretHash: hashSecret(secret), secretCreatedAt: now, createdAt: existing?.createdAt ?? now });

    if (source.configured !== undefined) {
      if (!secretMatches(source.configured, existing?.secretHash ?? null)) await save(source.configured);
      return undefined;
    }
    if (existing?.secretHash) return undefined;
    const fromFile = await readFile(source.file, 'utf8').then((s) => s.trim(), () => undefined);
    if (fromFile) {
      await save(fromFile);
      return undefined;
    }
    const secret = randomToken(32);
    await mkdir(dirname(source.file), { recursive: true, mode: 0o700 });
    await writeFile(source.file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
    await save(secret);
    return source.file;
  }
}
