import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { compareSpecs, type Change } from './breaking-changes.js';
import { API_NAMES, ROOT } from './pipeline.js';

/**
 * `make spec-diff`: compares each API's generated OpenAPI 3 document (what the server validates against) with the
 * same file at a git ref, and fails on a breaking change that is not acknowledged. A breaking change is
 * acknowledged when the spec's `info.version` moves to a new major (a new minor while below 1.0) and
 * `specs/<api>/CHANGELOG.md` has a section for that version naming the change by operationId, path or schema.
 *
 * The base is `SPEC_DIFF_BASE` when set, else the latest release tag (`v<major>.<minor>.<patch>`) reachable from
 * HEAD, else HEAD~1. Without any (the first commit, a shallow clone) there is nothing to compare: it says so and
 * passes.
 */

const run = promisify(execFile);

/** Tags that mark a release. */
export const RELEASE_TAG = 'v[0-9]*.[0-9]*.[0-9]*';

export interface Base {
  /** The ref to compare with; undefined when there is none. */
  ref: string | undefined;
  /** Why this base, or why none. */
  why: string;
}

async function git(root: string, args: string[]): Promise<string | undefined> {
  try {
    return (await run('git', args, { cwd: root, maxBuffer: 64 * 1024 * 1024 })).stdout;
  } catch {
    return undefined;
  }
}

/** The ref to compare with: `explicit` (SPEC_DIFF_BASE), else the latest release tag, else HEAD~1. */
export async function resolveBase(root: string, explicit: string | undefined): Promise<Base> {
  if ((await git(root, ['rev-parse', '--is-inside-work-tree']))?.trim() !== 'true') return { ref: undefined, why: 'not a git working tree' };
  if (explicit) {
    if ((await git(root, ['rev-parse', '--verify', '--quiet', `${explicit}^{commit}`])) === undefined) {
      throw new Error(`SPEC_DIFF_BASE=${explicit} names no commit here`);
    }
    return { ref: explicit, why: 'SPEC_DIFF_BASE' };
  }
  const tag = (await git(root, ['describe', '--tags', '--abbrev=0', '--match', RELEASE_TAG, 'HEAD']))?.trim();
  if (tag) return { ref: tag, why: 'the latest release tag' };
  if ((await git(root, ['rev-parse', '--verify', '--quiet', 'HEAD~1^{commit}'])) !== undefined) return { ref: 'HEAD~1', why: `no release tag matching ${RELEASE_TAG}` };
  if ((await git(root, ['rev-parse', '--is-shallow-repository']))?.trim() === 'true') {
    return { ref: undefined, why: 'a shallow clone without HEAD~1 (git fetch --unshallow, or set SPEC_DIFF_BASE to a fetched ref)' };
  }
  if ((await git(root, ['rev-parse', '--verify', '--quiet', 'HEAD'])) === undefined) return { ref: undefined, why: 'no commit yet' };
  return { ref: undefined, why: 'HEAD is the first commit' };
}

interface Version {
  major: number;
  minor: number;
  patch: number;
}

function parseVersion(text: string): Version | undefined {
  const match = /^v?(\d+)\.(\d+)\.(\d+)/.exec(text.trim());
  return match ? { major: Number(match[1]), minor: Number(match[2]), patch: Number(match[3]) } : undefined;
}

/** Whether `current` is a version that may break `base`: a new major, or a new minor while below 1.0. */
export function allowsBreakingChanges(base: string, current: string): boolean {
  const [before, after] = [parseVersion(base), parseVersion(current)];
  if (!before || !after) return false;
  if (after.major !== before.major) return after.major > before.major;
  return before.major === 0 && after.minor > before.minor;
}

/** The version a breaking change after `base` needs. */
export function nextBreakingVersion(base: string): string {
  const version = parseVersion(base);
  if (!version) return '(a semantic version)';
  return version.major === 0 ? `0.${version.minor + 1}.0` : `${version.major + 1}.0.0`;
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The text of the changelog's section for `version` (`## 0.2.0`, `## [0.2.0] - 2026-01-31`, ...), if there is one. */
export function changelogSection(changelog: string, version: string): string | undefined {
  const lines = changelog.split('\n');
  const heading = new RegExp(`^##\\s+\\[?v?${escape(version)}\\]?(?:\\s|$)`);
  const start = lines.findIndex((line) => heading.test(line));
  if (start === -1) return undefined;
  const end = lines.findIndex((line, i) => i > start && /^##\s/.test(line));
  return lines.slice(start + 1, end === -1 ? undefined : end).join('\n');
}

/** Whether the section names the change: its operationId or a changed schema as a word, or its path. */
export function namesChange(section: string, change: Change): boolean {
  return change.names.some((name) => (name.includes('/') ? section.includes(name) : new RegExp(`(?<![\\w-])${escape(name)}(?![\\w-])`).test(section)));
}

export interface ApiOutcome {
  api: string;
  ok: boolean;
  lines: string[];
}

const KIND_LABEL: Record<Change['kind'], string> = { breaking: 'breaking', 'non-breaking': 'compatible', unclassified: 'other' };

function describe(change: Change): string {
  const id = change.operationId ? ` (${change.operationId})` : '';
  return `  ${KIND_LABEL[change.kind].padEnd(10)} ${change.operation}${id}: ${change.description}`;
}

/** Compares one API with its version at `ref` and judges whether its breaking changes are acknowledged. */
export async function diffApi(root: string, api: string, ref: string): Promise<ApiOutcome> {
  const file = `generated/${api}/openapi.yaml`;
  const baseText = await git(root, ['show', `${ref}:./${file}`]);
  if (baseText === undefined) return { api, ok: true, lines: [`${api}: not at ${ref}; a new API, nothing to compare`] };
  const base = parse(baseText) as Record<string, any>;
  const current = parse(await readFile(join(root, file), 'utf8')) as Record<string, any>;
  const [baseVersion, currentVersion] = [String(base.info?.version ?? '?'), String(current.info?.version ?? '?')];
  const versions = baseVersion === currentVersion ? currentVersion : `${baseVersion} → ${currentVersion}`;

  const changes = await compareSpecs(base, current);
  const breaking = changes.filter((change) => change.kind === 'breaking');
  const changelogFile = `specs/${api}/CHANGELOG.md`;
  const changelog = await readFile(join(root, changelogFile), 'utf8').catch(() => '');
  const section = changelogSection(changelog, currentVersion);
  const lines = [`${api} ${versions}: ${changes.length === 0 ? 'no change a client would notice' : `${breaking.length} breaking, ${changes.length - breaking.length} compatible`}`];
  lines.push(...changes.map(describe));
  if (baseVersion !== currentVersion && section === undefined) lines.push(`  note: ${changelogFile} has no section "## ${currentVersion}"`);
  if (breaking.length === 0) return { api, ok: true, lines };

  const bumped = allowsBreakingChanges(baseVersion, currentVersion);
  const unnamed = section === undefined ? breaking : breaking.filter((change) => !namesChange(section, change));
  if (bumped && unnamed.length === 0) {
    lines.push(`  acknowledged: version ${versions}, and "## ${currentVersion}" in ${changelogFile} names each breaking change`);
    return { api, ok: true, lines };
  }
  const wanted = bumped ? currentVersion : nextBreakingVersion(baseVersion);
  lines.push('  NOT ACKNOWLEDGED. Either undo the breaking changes, or:');
  if (!bumped) lines.push(`    - move info.version in specs/${api}/swagger.yaml from ${currentVersion} to ${wanted} (a new major; a new minor while below 1.0), then make generate`);
  const toName = [...new Set(unnamed.map((change) => change.operationId ?? change.operation))];
  lines.push(`    - under "## ${wanted}" in ${changelogFile}, name each breaking change (operationId, path or schema): ${toName.join(', ')}`);
  return { api, ok: false, lines };
}

export interface SpecDiffOptions {
  root?: string;
  /** SPEC_DIFF_BASE: the ref to compare with instead of the default. */
  base?: string;
  apis?: readonly string[];
}

/** Every API compared with the base; `ok` is false when one has a breaking change not acknowledged. */
export async function specDiff(options: SpecDiffOptions = {}): Promise<{ ok: boolean; lines: string[] }> {
  const { root = ROOT, apis = API_NAMES } = options;
  const base = await resolveBase(root, options.base || undefined);
  if (base.ref === undefined) return { ok: true, lines: [`spec-diff: nothing to compare with (${base.why}); passing`] };
  const lines = [`spec-diff: comparing generated/<api>/openapi.yaml with ${base.ref} (${base.why})`];
  const outcomes: ApiOutcome[] = [];
  for (const api of apis) outcomes.push(await diffApi(root, api, base.ref));
  lines.push(...outcomes.flatMap((outcome) => outcome.lines));
  const failed = outcomes.filter((outcome) => !outcome.ok).map((outcome) => outcome.api);
  lines.push(failed.length === 0 ? 'spec-diff: no unacknowledged breaking change' : `spec-diff: unacknowledged breaking changes in ${failed.join(', ')}`);
  return { ok: failed.length === 0, lines };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    const { ok, lines } = await specDiff({ base: process.env.SPEC_DIFF_BASE });
    (ok ? console.log : console.error)(lines.join('\n'));
    process.exitCode = ok ? 0 : 1;
  } catch (error) {
    console.error(`spec-diff: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  }
}
