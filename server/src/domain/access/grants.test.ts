import { describe, it } from '@jest/globals';
import { expect } from '../../../test/expect.js';
import { AppError } from '../errors.js';
import { ACCESS_LEVELS, Grants, LEVEL_OF_POLICY, UNRESTRICTED, type GroupGrant, type Reach } from './grants.js';
import { GROUP_POLICIES, type GroupPolicy } from './types.js';

const A = 'env-a';
const B = 'env-b';
const grant = (policy: GroupPolicy, environments: '*' | string[]): GroupGrant => ({
  policy,
  allEnvironments: environments === '*',
  environmentIds: environments === '*' ? [] : environments,
});
const reach = (environments: '*' | string[], handsOut: GroupGrant[] = []): Reach => ({
  allEnvironments: environments === '*',
  environmentIds: new Set(environments === '*' ? [] : environments),
  handsOut,
});

/** The error code the check throws, or 'allowed'. */
function outcome(check: () => void): string {
  try {
    check();
    return 'allowed';
  } catch (error) {
    if (error instanceof AppError) return error.code;
    throw error;
  }
}

describe('what a request may reach', () => {
  it('lets a caller in no group reach everything and hand out anything', () => {
    expect(outcome(() => UNRESTRICTED.authorize('manage', reach('*', [grant('builtin:MANAGER', '*')]), 'op'))).toBe('allowed');
  });

  it('needs the level somewhere, over each environment reached, and over all of them for *', () => {
    const editorOverA = new Grants([grant('builtin:EDITOR', [A])]);
    expect(outcome(() => editorOverA.authorize('edit', reach([]), 'op'))).toBe('allowed');
    expect(outcome(() => editorOverA.authorize('edit', reach([A]), 'op'))).toBe('allowed');
    expect(outcome(() => editorOverA.authorize('edit', reach([A, B]), 'op'))).toBe('environment_access_denied');
    expect(outcome(() => editorOverA.authorize('edit', reach('*'), 'op'))).toBe('forbidden');
    expect(outcome(() => editorOverA.authorize('contribute', reach([A]), 'op'))).toBe('forbidden');
    const editorEverywhere = new Grants([grant('builtin:EDITOR', '*')]);
    expect(outcome(() => editorEverywhere.authorize('edit', reach('*'), 'op'))).toBe('allowed');
    expect(outcome(() => editorEverywhere.authorize('edit', reach([A, B]), 'op'))).toBe('allowed');
  });

  it('never lets a caller hand out a stronger policy or more environments than it holds', () => {
    const callers: Array<[string, GroupGrant[]]> = [
      ['MANAGER over A', [grant('builtin:MANAGER', [A])]],
      ['MANAGER over nothing, READONLY over *', [grant('builtin:MANAGER', []), grant('builtin:READONLY', '*')]],
      ['EDITOR over *', [grant('builtin:EDITOR', '*')]],
      ['MANAGER over *', [grant('builtin:MANAGER', '*')]],
    ];
    const rank = (policy: GroupPolicy) => ACCESS_LEVELS.indexOf(LEVEL_OF_POLICY[policy]);
    for (const [name, held] of callers) {
      const grants = new Grants(held);
      // What the caller holds over an environment, computed here from its groups.
      const heldOver = (env: '*' | string) =>
        Math.max(-1, ...held.filter((g) => g.allEnvironments || (env !== '*' && g.environmentIds.includes(env))).map((g) => rank(g.policy)));
      const heldSomewhere = Math.max(...held.map((g) => rank(g.policy)));
      for (const policy of GROUP_POLICIES) {
        for (const environments of ['*', [A], [B], []] as const) {
          const handedOut = grant(policy, environments === '*' ? '*' : [...environments]);
          const covered = environments === '*' ? heldOver('*') : Math.min(heldSomewhere, ...environments.map(heldOver));
          const expected = covered >= rank(policy) ? 'allowed' : 'denied';
          const actual = outcome(() => grants.requireHolds(handedOut, 'createGroup')) === 'allowed' ? 'allowed' : 'denied';
          expect(`${name} hands out ${policy} over ${JSON.stringify(environments)}: ${actual}`).toBe(
            `${name} hands out ${policy} over ${JSON.stringify(environments)}: ${expected}`,
          );
        }
      }
    }
  });

  it('refuses a request that hands out more than the caller holds even where the level is granted', () => {
    const grants = new Grants([grant('builtin:EDITOR', '*')]);
    expect(outcome(() => grants.authorize('edit', reach([A], [grant('builtin:MANAGER', [A])]), 'op'))).toBe('forbidden');
    expect(outcome(() => grants.authorize('edit', reach([A], [grant('builtin:READONLY', [A])]), 'op'))).toBe('allowed');
  });
});
