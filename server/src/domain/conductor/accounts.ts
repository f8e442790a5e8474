import type { Clock } from '../clock.js';
import { usesRoles, type Provider } from '../cloud/providers.js';
import { AppError } from '../errors.js';
import type { ConductorAccountRepository } from '../repositories.js';
import type { AccountWithCount } from './types.js';

const ROLE_ACCOUNT = /^[0-9]{12}$/;
const SUBSCRIPTION = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A 404 naming what was looked for and where it came from. */
export function accountNotFound(ref: string, location: string): AppError {
  return new AppError('not_found', 'Resource not found', {
    details: [{ code: 'account.not_found', message: `no account with name or account ID '${ref}'`, location }],
  });
}

/** The accounts the conductor manages. Nothing here touches the cloud. */
export class AccountService {
  constructor(
    private readonly accounts: ConductorAccountRepository,
    private readonly clock: Clock,
  ) {}

  list(): Promise<AccountWithCount[]> {
    return this.accounts.list();
  }

  /** The account by name, or else by account ID. */
  lookup(ref: string): Promise<AccountWithCount | undefined> {
    return this.accounts.find(ref);
  }

  /** Like `lookup`, but 404 (reported at `location`) when there is none. */
  async find(ref: string, location = 'path.account'): Promise<AccountWithCount> {
    const account = await this.accounts.find(ref);
    if (!account) throw accountNotFound(ref, location);
    return account;
  }

  async add(input: { name: string; provider: Provider; accountId: string }): Promise<AccountWithCount> {
    const valid = usesRoles(input.provider) ? ROLE_ACCOUNT.test(input.accountId) : SUBSCRIPTION.test(input.accountId);
    if (!valid) {
      const expected = usesRoles(input.provider) ? '12 digits' : 'a lower-case subscription id (UUID)';
      throw new AppError('bad_request', 'Bad request', {
        details: [{ code: 'body.account_id', message: `a ${input.provider} account ID is ${expected}, got '${input.accountId}'`, location: 'body.account_id' }],
      });
    }
    const account = { ...input, createdAt: this.clock.nowSeconds() };
    const outcome = await this.accounts.insert(account);
    if (outcome === 'name') {
      throw new AppError('conflict', 'Account already exists', {
        details: [{ code: 'account.exists', message: `an account named '${input.name}' already exists`, location: 'body.name' }],
      });
    }
    if (outcome === 'account_id') {
      throw new AppError('conflict', 'Account already exists', {
        details: [{ code: 'account.id_exists', message: `account ID ${input.accountId} is already managed under another name`, location: 'body.account_id' }],
      });
    }
    return { ...account, processCount: 0 };
  }

  /** Stops managing an account; refused while processes other than killed ones still use it. */
  async remove(ref: string): Promise<string> {
    const account = await this.find(ref);
    if (account.processCount > 0) {
      throw new AppError('conflict', 'Account in use', {
        details: [
          {
            code: 'account.in_use',
            message: `account '${account.name}' still has ${account.processCount} running process(es); kill or release them first`,
            location: 'path.account',
          },
        ],
      });
    }
    await this.accounts.delete(account.name);
    return account.name;
  }
}
