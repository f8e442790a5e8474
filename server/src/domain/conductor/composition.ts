import type { ErrorDetail } from '../errors.js';

/**
 * A composition (composition.yaml, see examples/conductor/composition/): the resources a process keeps in the
 * cloud, and optionally existing resources it adopts with import_resources=true.
 */
export interface CompositionResource {
  /** Unique within the composition; a process's resources are addressed by it. */
  name: string;
  /** A resource type of the catalog (domain/cloud/catalog.ts). */
  type: string;
  /** For regional types; null for global ones. */
  region: string | null;
  tags: Record<string, string>;
  properties: Record<string, unknown>;
}

export interface CompositionImport {
  name: string;
  type: string;
  /** The cloud id of the existing resource. */
  id: string;
}

export interface Composition {
  resources: CompositionResource[];
  imports: CompositionImport[];
}

/**
 * Checks a composition against the attached validation libraries. Every dry-run and every process create or
 * update asks it; each violation is an error (code `rule.violation`, message, location `<library>:<rule id>` or
 * the resource) that stops the change.
 */
export interface CompositionValidator {
  violations(composition: Composition): Promise<ErrorDetail[]>;
}
