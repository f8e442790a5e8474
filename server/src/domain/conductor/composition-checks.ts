import type { CloudAdapter } from '../cloud/adapter.js';
import type { Provider } from '../cloud/providers.js';
import type { ErrorDetail } from '../errors.js';
import type { Composition, CompositionValidator } from './composition.js';
import { COMPOSITION_FILE, parseComposition, providerProblems } from './composition-file.js';
import type { ProcessResource } from './types.js';

export type CheckedComposition = { composition: Composition; problems: [] } | { composition: null; problems: ErrorDetail[] };

/**
 * Everything that stops a composition, found at once so that one answer lists it all: the file itself, types
 * and regions the account's provider lacks, violations of the validation libraries, resources to adopt that the
 * account does not have, and names an adopted resource of the process already holds. Process creation,
 * composition updates and dry-runs all ask this one check, so a dry-run fails exactly when the real request would.
 */
export class CompositionChecks {
  constructor(
    private readonly cloud: CloudAdapter,
    private readonly validator: CompositionValidator,
  ) {}

  async check(
    text: string,
    account: { provider: Provider; accountId: string },
    options: { importResources: boolean; adopted?: readonly ProcessResource[] },
  ): Promise<CheckedComposition> {
    const parsed = parseComposition(text);
    if (!parsed.composition) return parsed;
    const composition = parsed.composition;
    const problems = [...providerProblems(composition, account.provider, options.importResources), ...(await this.validator.violations(composition))];
    if (options.importResources) {
      for (const [i, item] of composition.imports.entries()) {
        const found = await this.cloud.getResource(account.provider, account.accountId, item.id);
        const location = `${COMPOSITION_FILE}:imports[${i}].id`;
        if (!found) problems.push({ code: 'import.not_found', message: `account ${account.accountId} has no resource '${item.id}' to adopt`, location });
        else if (found.type !== item.type) problems.push({ code: 'import.type_mismatch', message: `'${item.id}' is a ${found.type}, not a ${item.type}`, location });
      }
    }
    const adoptedNames = new Set((options.adopted ?? []).filter((r) => !r.retired && r.origin !== 'composition').map((r) => r.name));
    composition.resources.forEach((resource, i) => {
      if (adoptedNames.has(resource.name)) {
        problems.push({
          code: 'composition.invalid',
          message: `'${resource.name}' is the name of a resource the process adopted; choose another name`,
          location: `${COMPOSITION_FILE}:resources[${i}].name`,
        });
      }
    });
    return problems.length > 0 ? { composition: null, problems } : { composition, problems: [] };
  }
}
