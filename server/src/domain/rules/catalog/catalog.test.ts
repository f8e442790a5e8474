import { describe, it } from '@jest/globals';
import { isSupportedType, resourceTypesOf, type ResourceTypeInfo } from '../../cloud/catalog.js';
import { familiesOf, regionsOf, type Provider } from '../../cloud/providers.js';
import { Random } from '../../cloud/random.js';
import { RESOURCE_MODELS, type ResourceModel } from '../../cloud/simulator/models.js';
import { compileRule, type CompiledRule, type ResourceDocument } from '../engine.js';
import { CONTROLS } from './controls.js';
import { BUILTIN_RULES, type BuiltinRule } from './rules.js';
import { expect } from '../../../../test/expect.js';

const SAMPLE_SIZE = 300;
const MAX_DOCUMENT_BYTES = 2048;
const MAX_LIST_ENTRIES = 20;
const FAMILIES = [...new Set([...familiesOf('provider_a'), ...familiesOf('provider_b')])];
const CATALOG: readonly { provider: BuiltinRule['provider']; info: ResourceTypeInfo }[] = (['provider_a', 'provider_b'] as const).flatMap((provider) =>
  resourceTypesOf(provider).map((info) => ({ provider, info })),
);

const modelOf = (type: string): ResourceModel => {
  const model = RESOURCE_MODELS.get(type);
  if (!model) throw new Error(`no model for ${type}`);
  return model;
};

function documentsOf(provider: BuiltinRule['provider'], info: ResourceTypeInfo, seed: string, count = SAMPLE_SIZE): ResourceDocument[] {
  const rng = new Random(seed);
  const model = modelOf(info.type);
  return Array.from({ length: count }, (_, i): ResourceDocument => {
    const name = `${model.nameStem}-${rng.hex(4)}`;
    const region = info.global ? null : provider === 'provider_b' ? 'westeurope' : rng.pick(regionsOf('provider_a'));
    return {
      id: `${info.type}/${name}-${i}`,
      type: info.type,
      name,
      region,
      account: '123456789012',
      tags: rng.chance(0.5) ? { env: rng.pick(['prod', 'dev']), owner: 'platform' } : {},
      properties: model.generate(rng, { name, region }),
      ...(provider === 'provider_b' && { resource_group: 'rg-app' }),
    };
  });
}

const samples = new Map(CATALOG.map(({ provider, info }) => [info.type, documentsOf(provider, info, `catalog-test:${info.type}`)]));
const samplesOf = (type: string): ResourceDocument[] => samples.get(type)!;

const compiled = new Map<string, CompiledRule>();
const compiledRule = (rule: BuiltinRule): CompiledRule => {
  if (!compiled.has(rule.id)) compiled.set(rule.id, compileRule(rule.expression));
  return compiled.get(rule.id)!;
};
const rulesOfType = (type: string): BuiltinRule[] => BUILTIN_RULES.filter((rule) => rule.resourceTypes.includes(type));
const typesWithRules = CATALOG.filter(({ info }) => rulesOfType(info.type).length > 0);

/**
 * An object literal's kind, of any realm: the documents are built partly by `structuredClone`, which (under jest) is
 * the host's and so gives objects another realm's Object.prototype than the test's.
 */
function isPlainObject(value: object): boolean {
  const prototype: unknown = Object.getPrototypeOf(value);
  return typeof prototype === 'object' && prototype !== null && Object.getPrototypeOf(prototype) === null && Object.prototype.toString.call(value) === '[object Object]';
}

/** Every value is plain JSON and no list is longer than the limit; returns the paths that are not. */
function problemsIn(value: unknown, path = 'properties'): string[] {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return [];
  if (typeof value === 'number') return Number.isFinite(value) ? [] : [`${path} is not a finite number`];
  if (Array.isArray(value)) {
    const own = value.length > MAX_LIST_ENTRIES ? [`${path} has ${value.length} entries`] : [];
    return [...own, ...value.flatMap((item, i) => problemsIn(item, `${path}[${i}]`))];
  }
  if (typeof value === 'object' && isPlainObject(value)) {
    return Object.entries(value).flatMap(([key, item]) => problemsIn(item, `${path}.${key}`));
  }
  return [`${path} is not JSON (${typeof value})`];
}

/**
 * Whether two values are the same JSON-like value: the same keys (undefined ones too) and Object.is-equal leaves, of
 * any realm (see isPlainObject). Stricter than toEqual, and cheap enough for every step of the drift loop below.
 */
function sameValue(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const aKeys = Object.keys(a);
  const bKeys = Object.keys(b);
  if (aKeys.length !== bKeys.length) return false;
  return aKeys.every((key) => Object.hasOwn(b, key) && sameValue((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
}

/**
 * The loops below check tens of thousands of values; one expect() each costs far more than the checks themselves, so
 * each loop collects what is wrong and asserts once. The first problems are shown, with how many there were.
 */
function expectNoProblems(problems: string[]): void {
  expect(problems.slice(0, 20), `${problems.length} problems`).toEqual([]);
}

describe('built-in rules', () => {
  it('compile, have unique kebab-case ids and name supported types of their provider', () => {
    const ids = BUILTIN_RULES.map((rule) => rule.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const rule of BUILTIN_RULES) {
      expect(rule.id, rule.id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(() => compiledRule(rule), rule.id).not.toThrow();
      expect(rule.resourceTypes.length, rule.id).toBeGreaterThan(0);
      for (const type of rule.resourceTypes) expect(isSupportedType(rule.provider, type), `${rule.id}: ${type}`).toBe(true);
      expect(rule.title.length, rule.id).toBeGreaterThan(0);
      expect(rule.message.length, rule.id).toBeGreaterThan(0);
    }
  });

  it('number at least 60 for provider_a over 20 types and 25 for provider_b over 10 types', () => {
    const of = (provider: BuiltinRule['provider']) => BUILTIN_RULES.filter((rule) => rule.provider === provider);
    const typesOf = (provider: BuiltinRule['provider']) => new Set(of(provider).flatMap((rule) => rule.resourceTypes));
    expect(of('provider_a').length).toBeGreaterThanOrEqual(60);
    expect(of('provider_b').length).toBeGreaterThanOrEqual(25);
    expect(typesOf('provider_a').size).toBeGreaterThanOrEqual(20);
    expect(typesOf('provider_b').size).toBeGreaterThanOrEqual(10);
  });

  it('map only to existing controls of their provider families', () => {
    const families = new Map(CONTROLS.map((control) => [control.id, control.family]));
    for (const rule of BUILTIN_RULES) {
      expect(rule.controls.length, rule.id).toBeGreaterThan(0);
      expect(new Set(rule.controls).size, `${rule.id} repeats a control`).toBe(rule.controls.length);
      for (const id of rule.controls) {
        expect(families.has(id), `${rule.id}: unknown control ${id}`).toBe(true);
        expect(familiesOf(rule.provider), `${rule.id}: ${id}`).toContain(families.get(id));
      }
    }
  });
});

describe('controls', () => {
  it('have unique ids prefixed by their family, and every family has at least 10', () => {
    const ids = CONTROLS.map((control) => control.id);
    expect(new Set(ids).size).toBe(ids.length);
    // 10 families for provider_a and 9 for provider_b, CSACCM shared by both: 18 distinct.
    expect(FAMILIES).toHaveLength(18);
    for (const control of CONTROLS) {
      expect(FAMILIES, control.id).toContain(control.family);
      expect(control.id.startsWith(`${control.family} `), control.id).toBe(true);
      expect(control.title.length, control.id).toBeGreaterThan(0);
    }
    for (const family of FAMILIES) {
      expect(CONTROLS.filter((control) => control.family === family).length, family).toBeGreaterThanOrEqual(10);
    }
  });

  it('are each served by at least one rule of a provider offering the family', () => {
    const unmapped = CONTROLS.filter(
      (control) => !BUILTIN_RULES.some((rule) => rule.controls.includes(control.id) && familiesOf(rule.provider).includes(control.family)),
    );
    expect(unmapped.map((control) => control.id)).toEqual([]);
  });

  it('of the shared CSACCM family are served for both providers', () => {
    const served = (provider: Provider) =>
      BUILTIN_RULES.some((rule) => rule.provider === provider && rule.controls.some((id) => id.startsWith('CSACCM ')));
    expect(served('provider_a')).toBe(true);
    expect(served('provider_b')).toBe(true);
  });

  it('never name a cloud vendor', () => {
    const text = JSON.stringify([CONTROLS, BUILTIN_RULES]);
    expect(text).not.toMatch(/\b(aws|amazon|azure|microsoft|google|gcp)\b/i);
  });
});

describe('resource models', () => {
  it('exist for exactly the catalog types', () => {
    expect([...RESOURCE_MODELS.keys()].sort()).toEqual(CATALOG.map(({ info }) => info.type).sort());
    for (const [type, model] of RESOURCE_MODELS) {
      expect(model.type).toBe(type);
      expect(model.nameStem).toMatch(/^[a-z][a-z0-9-]*$/);
    }
  });

  it.each(CATALOG.map(({ provider, info }) => [info.type, provider, info] as const))(
    '%s generates small, plain JSON documents with a stable key set, deterministically',
    (type, provider, info) => {
      const documents = samplesOf(type);
      const keys = JSON.stringify(Object.keys(documents[0]!.properties).sort());
      const problems: string[] = [];
      for (const document of documents) {
        problems.push(...problemsIn(document.properties).map((problem) => `${document.id}: ${problem}`));
        const text = JSON.stringify(document);
        if (Buffer.byteLength(text) >= MAX_DOCUMENT_BYTES) problems.push(`${document.id}: ${Buffer.byteLength(text)} bytes: ${text}`);
        const own = JSON.stringify(Object.keys(document.properties).sort());
        if (own !== keys) problems.push(`${document.id}: keys ${own}, not ${keys}`);
      }
      expectNoProblems(problems);
      expect(documentsOf(provider, info, `catalog-test:${type}`, 20)).toEqual(documents.slice(0, 20));
    },
  );

  it.each(typesWithRules.map(({ info }) => info.type))('%s: every rule passes some resources and fails others, never errors', (type) => {
    for (const rule of rulesOfType(type)) {
      const outcomes = samplesOf(type).map((document) => compiledRule(rule).evaluate(document));
      const errors = outcomes.filter((outcome) => outcome.result === 'ERROR');
      expect(errors, rule.id).toEqual([]);
      expect(outcomes.some((outcome) => outcome.result === 'PASS'), `${rule.id} never passes`).toBe(true);
      expect(outcomes.some((outcome) => outcome.result === 'FAIL'), `${rule.id} never fails`).toBe(true);
    }
  });

  it.each(typesWithRules.map(({ info }) => info.type))('%s: roughly a quarter of new resources break a rule', (type) => {
    const rules = rulesOfType(type);
    const failing = samplesOf(type).filter((document) => rules.some((rule) => compiledRule(rule).evaluate(document).result === 'FAIL'));
    const share = failing.length / SAMPLE_SIZE;
    expect(share).toBeGreaterThanOrEqual(0.1);
    expect(share).toBeLessThanOrEqual(0.5);
  });

  it.each(CATALOG.map(({ info }) => info.type))('%s: drift changes a copy, and repeated drift keeps documents valid', (type) => {
    const model = modelOf(type);
    const rules = rulesOfType(type).map((rule) => ({ id: rule.id, compiled: compiledRule(rule) }));
    const rng = new Random(`catalog-test:drift:${type}`);
    const problems: string[] = [];
    for (const document of samplesOf(type).slice(0, 60)) {
      let properties = document.properties;
      for (let step = 0; step < 25; step += 1) {
        const at = `${document.id}, step ${step}`;
        const before = JSON.stringify(properties);
        const frozen = structuredClone(properties);
        const drifted = model.drift(rng, properties);
        if (JSON.stringify(properties) !== before || !sameValue(properties, frozen)) problems.push(`${at}: drift mutated its input`);
        const after = JSON.stringify(drifted);
        if (after === before) problems.push(`${at}: drift changed nothing`);
        problems.push(...problemsIn(drifted).map((problem) => `${at}: ${problem}`));
        const keys = [JSON.stringify(Object.keys(drifted).sort()), JSON.stringify(Object.keys(properties).sort())];
        if (keys[0] !== keys[1]) problems.push(`${at}: keys ${keys[0]} after drift, ${keys[1]} before`);
        const driftedDocument = { ...document, properties: drifted };
        const bytes = Buffer.byteLength(JSON.stringify(driftedDocument));
        if (bytes >= MAX_DOCUMENT_BYTES) problems.push(`${at}: ${bytes} bytes: ${after}`);
        for (const rule of rules) {
          const outcome = rule.compiled.evaluate(driftedDocument);
          if (outcome.result === 'ERROR') problems.push(`${at}: ${rule.id}: ${JSON.stringify(outcome)}`);
        }
        properties = drifted;
      }
    }
    expectNoProblems(problems);
  });
});
