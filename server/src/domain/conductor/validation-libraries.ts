import { createHash } from 'node:crypto';
import { DEFAULT_LIMITS, readArchive, requireFile, type ArchiveLimits } from '../archives/tar.js';
import type { Clock } from '../clock.js';
import { isSupportedType } from '../cloud/catalog.js';
import { PROVIDERS } from '../cloud/providers.js';
import { AppError, type ErrorDetail } from '../errors.js';
import { compileRule, RuleCompileError, type CompiledRule, type ResourceDocument } from '../rules/engine.js';
import type { EvaluationPool } from '../rules/evaluation-pool.js';
import { characterCount } from '../text.js';
import { isRecord, parseYamlFile, Problems } from './archive-yaml.js';
import type { Composition, CompositionValidator } from './composition.js';

/**
 * Validation libraries: named archives of CEL rules (rules.yaml) that every composition must pass. Every library
 * applies to every dry-run and every process create or update; the process and dry-run use cases ask through
 * the CompositionValidator port, which this service implements.
 */

export const RULES_FILE = 'rules.yaml';
/** `resource_type` of a rule that applies to every resource. */
export const EVERY_TYPE = '*';
export const LIBRARY_NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;
const RULE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** Rules are evaluated against every resource of every composition: the number per library is bounded. */
export const MAX_RULES = 500;
const MAX_MESSAGE = 1000;

export interface ValidationRule {
  /** Unique in its library. */
  id: string;
  /** A catalog type, or `*` for every type. */
  resourceType: string;
  /** CEL over `resource`, true when the resource is valid. */
  expression: string;
  /** Shown when a resource fails the rule. */
  message: string;
}

/** What the API shows of a library. */
export interface ValidationLibrary {
  name: string;
  createdAt: number;
  /** Bytes of the archive as uploaded. */
  size: number;
  /** SHA-256 (hex) of the archive as uploaded. */
  sha256: string;
  ruleCount: number;
}

export interface StoredValidationLibrary extends ValidationLibrary {
  rules: ValidationRule[];
}

export interface ValidationLibraryRepository {
  /** Stores a new library; false when the name is taken. */
  insert(library: StoredValidationLibrary, archive: Buffer): Promise<boolean>;
  /** Libraries whose names start with `prefix` (all without one), in no particular order. */
  list(prefix: string | undefined): Promise<ValidationLibrary[]>;
  get(name: string): Promise<ValidationLibrary | undefined>;
  archive(name: string): Promise<Buffer | undefined>;
  /** False when there was no such library. */
  delete(name: string): Promise<boolean>;
  /** Every library with its rules, for evaluation. */
  listWithRules(): Promise<StoredValidationLibrary[]>;
}

const KNOWN_RULE_KEYS = ['id', 'resource_type', 'expression', 'message'] as const;

const isKnownType = (type: string) => PROVIDERS.some((provider) => isSupportedType(provider, type));

/**
 * Reads rules.yaml: `rules`, a list of `{ id, resource_type, expression, message }`. Every problem is reported at
 * once: structure problems located by path (`rules.yaml:rules[2].message`), compile errors by rule
 * (`rules.yaml:<rule id>`, the compiler's message with line and column in the expression).
 */
export function parseRules(text: string): ValidationRule[] {
  const parsed = parseYamlFile(RULES_FILE, text);
  const problems = new Problems(RULES_FILE, 'rules.invalid');
  if (!isRecord(parsed)) {
    problems.add('', 'rules.yaml must be a mapping with a `rules` list');
    problems.throwIfAny();
  }
  const document = parsed as Record<string, unknown>;
  problems.unknownKeys('', document, ['rules']);
  const list = document.rules;
  if (!Array.isArray(list)) {
    problems.add('rules', '`rules` must be a list of rules');
    problems.throwIfAny();
  }
  const items = list as unknown[];
  if (items.length > MAX_RULES) problems.add('rules', `a library holds at most ${MAX_RULES} rules (this one has ${items.length})`);

  const rules: ValidationRule[] = [];
  const seen = new Set<string>();
  items.slice(0, MAX_RULES).forEach((item, index) => {
    const path = `rules[${index}]`;
    if (!isRecord(item)) return problems.add(path, 'a rule must be a mapping with id, resource_type, expression and message');
    problems.unknownKeys(path, item, KNOWN_RULE_KEYS);
    const { id, resource_type: resourceType, expression, message } = item;
    let ok = true;
    const fail = (field: string, rule: string) => {
      problems.add(`${path}.${field}`, rule);
      ok = false;
    };
    if (typeof id !== 'string' || !RULE_ID.test(id)) fail('id', 'id must be 1 to 64 letters, digits, dots, dashes or underscores, starting with a letter or digit');
    else if (seen.has(id)) fail('id', `id '${id}' is used by another rule of the library`);
    else seen.add(id);
    if (typeof resourceType !== 'string' || (resourceType !== EVERY_TYPE && !isKnownType(resourceType))) {
      fail('resource_type', `resource_type must be a resource type of the catalog (e.g. PROVA.S3.Bucket) or '${EVERY_TYPE}'`);
    }
    if (typeof expression !== 'string' || expression.trim() === '') fail('expression', 'expression must be a CEL expression');
    if (typeof message !== 'string' || message.trim() === '' || characterCount(message) > MAX_MESSAGE) {
      fail('message', `message must be a non-empty string of at most ${MAX_MESSAGE} characters`);
    }
    if (!ok) return;
    const rule = { id: id as string, resourceType: resourceType as string, expression: expression as string, message: message as string };
    try {
      compileRule(rule.expression);
    } catch (error) {
      if (!(error instanceof RuleCompileError)) throw error;
      return problems.details.push({ code: 'rule.compile', message: `rule ${rule.id}: ${error.message}`, location: problems.at(rule.id) });
    }
    rules.push(rule);
  });
  problems.throwIfAny();
  return rules;
}

interface CompiledLibrary {
  name: string;
  rules: Array<ValidationRule & { compiled: CompiledRule }>;
}

const notFound = (name: string) =>
  new AppError('not_found', 'Resource not found', {
    details: [{ code: 'not_found', message: `no validation library named '${name}'`, location: 'path.name' }],
  });

export interface ValidationLibraryServiceDeps {
  libraries: ValidationLibraryRepository;
  clock: Clock;
  /** Evaluates the rules off the request thread. */
  evaluation: Pick<EvaluationPool, 'scanBatch'>;
  archiveLimits?: ArchiveLimits;
}

export class ValidationLibraryService implements CompositionValidator {
  /** Compiled rules by library content (sha256): a library never changes, so neither do its compiled rules. */
  private readonly compiled = new Map<string, CompiledLibrary>();

  constructor(private readonly deps: ValidationLibraryServiceDeps) {}

  /** Adds a library; every rule must compile. The archive is kept exactly as uploaded. */
  async add(name: string, archive: Buffer): Promise<ValidationLibrary> {
    if (!LIBRARY_NAME.test(name)) throw AppError.invalid('query.name', 'must be 1 to 64 lowercase letters, digits, dots, dashes or underscores');
    const files = await readArchive(archive, this.deps.archiveLimits ?? DEFAULT_LIMITS);
    const rules = parseRules(requireFile(files, RULES_FILE));
    const library: StoredValidationLibrary = {
      name,
      createdAt: this.deps.clock.nowSeconds(),
      size: archive.length,
      sha256: createHash('sha256').update(archive).digest('hex'),
      ruleCount: rules.length,
      rules,
    };
    if (!(await this.deps.libraries.insert(library, archive))) {
      throw new AppError('conflict', 'Validation library already exists', {
        details: [{ code: 'validation.exists', message: `a validation library named '${name}' already exists`, location: 'query.name' }],
      });
    }
    return { name, createdAt: library.createdAt, size: library.size, sha256: library.sha256, ruleCount: library.ruleCount };
  }

  /** Ordered by name (code point order, the same on every database). */
  async list(prefix?: string): Promise<ValidationLibrary[]> {
    const libraries = await this.deps.libraries.list(prefix === '' ? undefined : prefix);
    return libraries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  async get(name: string): Promise<ValidationLibrary> {
    const library = await this.deps.libraries.get(name);
    if (!library) throw notFound(name);
    return library;
  }

  async archive(name: string): Promise<Buffer> {
    const archive = await this.deps.libraries.archive(name);
    if (!archive) throw notFound(name);
    return archive;
  }

  async delete(name: string): Promise<void> {
    if (!(await this.deps.libraries.delete(name))) throw notFound(name);
  }

  /**
   * Every rule of every library against every resource of its type (`*`: every resource). One error per failing
   * pair: code `rule.violation`, location `composition.yaml:resources[<index>]` (the resource), message the
   * rule's message followed by `(rule <id> of library <name>, resource <resource name>)`. A rule that cannot be
   * evaluated on a resource (e.g. it reads a property the resource lacks) counts as a violation too, with the
   * reason: a composition passes only what its rules affirm.
   */
  async violations(composition: Composition): Promise<ErrorDetail[]> {
    const libraries = await this.compiledLibraries();
    const rules = libraries.flatMap((library) => library.rules.map((rule) => ({ library: library.name, rule })));
    if (rules.length === 0 || composition.resources.length === 0) return [];
    // The rules run on the evaluation threads, each under its budget, as a scan's do: a library's rules are the
    // users' own expressions, and hundreds of them on every resource must not hold the request thread.
    const types = new Set(composition.resources.map((resource) => resource.type));
    const rulesByType: Record<string, number[]> = {};
    rules.forEach(({ rule }, index) => {
      for (const type of rule.resourceType === EVERY_TYPE ? types : [rule.resourceType]) (rulesByType[type] ??= []).push(index);
    });
    const documents = composition.resources.map((resource) =>
      JSON.stringify({ id: '', account: '', name: resource.name, type: resource.type, region: resource.region, tags: resource.tags, properties: resource.properties } satisfies ResourceDocument),
    );
    const { misses } = await this.deps.evaluation.scanBatch(
      rules.map(({ rule }) => ({ expression: rule.compiled.expression, budget: rule.compiled.budget })),
      rulesByType,
      documents,
    );
    // Library by library, rule by rule, resource by resource.
    misses.sort((a, b) => a.rule - b.rule || a.document - b.document);
    return misses.map((miss) => {
      const { library, rule } = rules[miss.rule]!;
      const resource = composition.resources[miss.document]!;
      const because = miss.result === 'ERROR' ? `; it could not be evaluated: ${miss.message}` : '';
      return {
        code: 'rule.violation',
        message: `${rule.message} (rule ${rule.id} of library ${library}, resource ${resource.name}${because})`,
        location: `composition.yaml:resources[${miss.document}]`,
      };
    });
  }

  private async compiledLibraries(): Promise<CompiledLibrary[]> {
    const stored = await this.deps.libraries.listWithRules();
    const current = new Set(stored.map((library) => library.sha256));
    for (const key of this.compiled.keys()) if (!current.has(key)) this.compiled.delete(key);
    const libraries = stored.map((library) => {
      let compiled = this.compiled.get(library.sha256);
      if (!compiled) {
        // The rules compiled when the library was uploaded; the engine is the same one now.
        compiled = { name: library.name, rules: library.rules.map((rule) => ({ ...rule, compiled: compileRule(rule.expression) })) };
        this.compiled.set(library.sha256, compiled);
      }
      // Two libraries may share one archive; the cached rules are the same, the name is this library's.
      return { ...compiled, name: library.name };
    });
    return libraries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
}
