import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterAll, describe, expect, it } from '@jest/globals';
import type { Change } from './breaking-changes.js';
import { smallApi } from './fixtures/small-api.js';
import { ROOT } from './pipeline.js';
import { allowsBreakingChanges, changelogSection, namesChange, nextBreakingVersion, specDiff } from './spec-diff.js';

/**
 * `make spec-diff` against throwaway git repositories holding one API, `small`, as the project holds its APIs:
 * generated/small/openapi.yaml and specs/small/CHANGELOG.md.
 */
const API = 'small';
const SPEC = `generated/${API}/openapi.yaml`;
const CHANGELOG = `specs/${API}/CHANGELOG.md`;
const scratch = mkdtempSync(join(tmpdir(), 'spec-diff-'));

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

type Spec = ReturnType<typeof smallApi>;

class Repo {
  readonly dir = mkdtempSync(join(scratch, 'repo-'));

  constructor() {
    this.git('init', '--quiet');
  }

  git(...args: string[]): string {
    return execFileSync('git', ['-c', 'user.name=Spec Diff', '-c', 'user.email=spec-diff@example.org', '-c', 'commit.gpgsign=false', '-c', 'tag.gpgsign=false', ...args], {
      cwd: this.dir,
      encoding: 'utf8',
    });
  }

  write(file: string, text: string): this {
    mkdirSync(join(this.dir, file, '..'), { recursive: true });
    writeFileSync(join(this.dir, file), text);
    return this;
  }

  spec(spec: Spec): this {
    return this.write(SPEC, stringify(spec));
  }

  commit(message: string): this {
    this.git('add', '-A');
    this.git('commit', '--quiet', '--allow-empty', '-m', message);
    return this;
  }

  diff(base?: string) {
    return specDiff({ root: this.dir, apis: [API], base });
  }
}

/** A repository whose last two commits hold the small API at 0.1.0: HEAD~1 is the base. */
function repoAtFirstVersion(): Repo {
  return new Repo()
    .spec(smallApi())
    .write(CHANGELOG, '# Small API changelog\n\n## 0.1.0\n\nThe first published version.\n')
    .commit('first version')
    .write('README.md', 'Small API\n')
    .commit('a readme');
}

const withoutDelete = (version = '0.1.0') => {
  const spec = smallApi(version);
  delete spec.paths['/environments/{environment_id}'].delete;
  return spec;
};

const CHANGELOG_0_2_0 = '# Small API changelog\n\n## 0.2.0\n\n- `deleteEnvironment` is gone: environments are archived instead.\n\n## 0.1.0\n\nThe first published version.\n';

describe('spec-diff', () => {
  it('passes when the spec did not change', async () => {
    const { ok, lines } = await repoAtFirstVersion().diff();
    expect(ok).toBe(true);
    expect(lines).toEqual([
      'spec-diff: comparing generated/<api>/openapi.yaml with HEAD~1 (no release tag matching v[0-9]*.[0-9]*.[0-9]*)',
      'small 0.1.0: no change a client would notice',
      'spec-diff: no unacknowledged breaking change',
    ]);
  });

  it('fails on a breaking change in the working tree, naming it and saying how to acknowledge it', async () => {
    const { ok, lines } = await repoAtFirstVersion().spec(withoutDelete()).diff();
    expect(ok).toBe(false);
    expect(lines).toEqual([
      expect.stringContaining('with HEAD~1'),
      'small 0.1.0: 1 breaking, 0 compatible',
      '  breaking   DELETE /environments/{environment_id} (deleteEnvironment): operation removed',
      '  NOT ACKNOWLEDGED. Either undo the breaking changes, or:',
      '    - move info.version in specs/small/swagger.yaml from 0.1.0 to 0.2.0 (a new major; a new minor while below 1.0), then make generate',
      '    - under "## 0.2.0" in specs/small/CHANGELOG.md, name each breaking change (operationId, path or schema): deleteEnvironment',
      'spec-diff: unacknowledged breaking changes in small',
    ]);
  });

  it('passes a breaking change acknowledged by a new minor version below 1.0 and a changelog section naming it', async () => {
    const { ok, lines } = await repoAtFirstVersion().spec(withoutDelete('0.2.0')).write(CHANGELOG, CHANGELOG_0_2_0).diff();
    expect(ok).toBe(true);
    expect(lines).toContain('  acknowledged: version 0.1.0 → 0.2.0, and "## 0.2.0" in specs/small/CHANGELOG.md names each breaking change');
  });

  it('fails when only the version moved, when the section does not name the change, or when only the changelog names it', async () => {
    const versionOnly = await repoAtFirstVersion().spec(withoutDelete('0.2.0')).diff();
    expect(versionOnly.ok).toBe(false);
    expect(versionOnly.lines).toContain('  note: specs/small/CHANGELOG.md has no section "## 0.2.0"');
    expect(versionOnly.lines).toContain('    - under "## 0.2.0" in specs/small/CHANGELOG.md, name each breaking change (operationId, path or schema): deleteEnvironment');
    expect(versionOnly.lines.join('\n')).not.toContain('move info.version');

    const unnamed = await repoAtFirstVersion().spec(withoutDelete('0.2.0')).write(CHANGELOG, '## 0.2.0\n\n- Environments are archived now.\n').diff();
    expect(unnamed.ok).toBe(false);

    const changelogOnly = await repoAtFirstVersion().spec(withoutDelete('0.1.1')).write(CHANGELOG, CHANGELOG_0_2_0.replace('0.2.0', '0.1.1')).diff();
    expect(changelogOnly.ok).toBe(false);
    expect(changelogOnly.lines).toContain('    - move info.version in specs/small/swagger.yaml from 0.1.1 to 0.2.0 (a new major; a new minor while below 1.0), then make generate');
  });

  it('passes compatible additions without a new version', async () => {
    const spec = smallApi();
    spec.paths['/environments/{environment_id}'].patch = { operationId: 'updateEnvironment', responses: { '200': { description: 'Updated' } } };
    spec.components.schemas.Environment.properties.region = { type: 'string' };
    const { ok, lines } = await repoAtFirstVersion().spec(spec).diff();
    expect(ok).toBe(true);
    expect(lines).toContain('small 0.1.0: 0 breaking, 4 compatible');
    expect(lines).toContain('  compatible PATCH /environments/{environment_id} (updateEnvironment): operation added');
  });

  it('compares with the latest release tag, so every breaking change since the release needs naming', async () => {
    const repo = new Repo().spec(smallApi()).commit('first version');
    repo.git('tag', 'v0.1.0');
    repo.spec(withoutDelete('0.2.0')).write(CHANGELOG, CHANGELOG_0_2_0).commit('environments are archived, not deleted');
    repo.write('README.md', 'Small API\n').commit('a readme');
    const sinceRelease = await repo.diff();
    expect(sinceRelease.ok).toBe(true);
    expect(sinceRelease.lines[0]).toBe('spec-diff: comparing generated/<api>/openapi.yaml with v0.1.0 (the latest release tag)');
    expect(sinceRelease.lines).toContain('  breaking   DELETE /environments/{environment_id} (deleteEnvironment): operation removed');

    // The changelog must still name it while the release is the base.
    repo.write(CHANGELOG, '## 0.2.0\n\nSmaller.\n');
    expect((await repo.diff()).ok).toBe(false);
    // SPEC_DIFF_BASE picks another base: the previous commit had the same spec.
    const previous = await repo.diff('HEAD~1');
    expect(previous.lines[0]).toBe('spec-diff: comparing generated/<api>/openapi.yaml with HEAD~1 (SPEC_DIFF_BASE)');
    expect(previous.ok).toBe(true);
    await expect(repo.diff('no-such-ref')).rejects.toThrow('SPEC_DIFF_BASE=no-such-ref names no commit here');
  });

  it('passes, saying why, when there is nothing to compare with', async () => {
    const firstCommit = new Repo().spec(smallApi()).commit('first version');
    expect(await firstCommit.diff()).toEqual({ ok: true, lines: ['spec-diff: nothing to compare with (HEAD is the first commit); passing'] });

    const origin = repoAtFirstVersion();
    const shallow = join(scratch, 'shallow');
    execFileSync('git', ['clone', '--quiet', '--depth', '1', `file://${origin.dir}`, shallow]);
    const { ok, lines } = await specDiff({ root: shallow, apis: [API] });
    expect(ok).toBe(true);
    expect(lines[0]).toMatch(/^spec-diff: nothing to compare with \(a shallow clone without HEAD~1 \(git fetch --unshallow/);

    const notGit = mkdtempSync(join(scratch, 'plain-'));
    expect((await specDiff({ root: notGit, apis: [API] })).lines).toEqual(['spec-diff: nothing to compare with (not a git working tree); passing']);
  });

  it('passes an API the base does not have yet', async () => {
    const repo = new Repo().write('README.md', 'nothing yet\n').commit('empty').spec(smallApi()).commit('first version');
    const { ok, lines } = await repo.diff();
    expect(ok).toBe(true);
    expect(lines).toContain('small: not at HEAD~1; a new API, nothing to compare');
  });

  it('exits 1 from the command line when the base names nothing', async () => {
    const result = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = execFile(join(ROOT, 'node_modules/.bin/tsx'), ['scripts/spec-diff.ts'], { cwd: ROOT, env: { ...process.env, SPEC_DIFF_BASE: 'no-such-ref' } }, (_error, _stdout, stderr) =>
        resolve({ code: child.exitCode, stderr }),
      );
    });
    expect(result).toEqual({ code: 1, stderr: 'spec-diff: SPEC_DIFF_BASE=no-such-ref names no commit here\n' });
  }, 30_000);
});

describe('acknowledging a breaking change', () => {
  it.each([
    ['0.1.0', '0.2.0', true],
    ['0.1.0', '0.1.1', false],
    ['0.1.0', '1.0.0', true],
    ['0.1.0', '0.1.0', false],
    ['1.2.0', '2.0.0', true],
    ['1.2.0', '1.3.0', false],
    ['2.0.0', '1.9.0', false],
    ['1.0.0', 'not-a-version', false],
  ])('from %s, version %s may break: %s', (base, current, allowed) => {
    expect(allowsBreakingChanges(base, current)).toBe(allowed);
  });

  it('needs the next minor below 1.0, the next major from 1.0', () => {
    expect(nextBreakingVersion('0.1.3')).toBe('0.2.0');
    expect(nextBreakingVersion('1.4.2')).toBe('2.0.0');
  });

  it('reads the section of one version, whatever the heading decorations', () => {
    const changelog = '# Changelog\n\n## [0.3.0] - 2026-02-01\n\n- a\n\n## v0.2.0\n\n- b\n\n## 0.1.0\n\n- c\n';
    expect(changelogSection(changelog, '0.3.0')).toBe('\n- a\n');
    expect(changelogSection(changelog, '0.2.0')).toBe('\n- b\n');
    expect(changelogSection(changelog, '0.1.0')).toBe('\n- c\n');
    expect(changelogSection(changelog, '0.1')).toBeUndefined();
  });

  it('takes an operationId or schema named as a word, or the path', () => {
    const change = { names: ['deleteEnvironment', 'DELETE /environments/{environment_id}', '/environments/{environment_id}', 'Environment'] } as Change;
    expect(namesChange('- `deleteEnvironment` is gone', change)).toBe(true);
    expect(namesChange('- DELETE /environments/{environment_id} is gone', change)).toBe(true);
    expect(namesChange('- Environment lost a field', change)).toBe(true);
    expect(namesChange('- deleteEnvironments is gone; EnvironmentInput changed', change)).toBe(false);
  });
});
