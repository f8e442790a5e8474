import type { ConductorClient, ConductorPaths } from './clients.js';
import { unwrap } from './errors.js';
import type { components } from './generated/conductor.js';

/** An archive to upload: a tar, optionally gzipped, as bytes or a Blob (a browser `File` is a Blob). */
export type ArchiveSource = Uint8Array | ArrayBuffer | Blob;

type QueryOf<Path extends keyof ConductorPaths, Method extends 'post' | 'put'> = ConductorPaths[Path][Method] extends {
  parameters: { query: infer Query };
}
  ? Query
  : never;

export type CreateProcessQuery = QueryOf<'/processes', 'post'>;
export type DryRunQuery = QueryOf<'/dry-run', 'post'>;

export type Process = components['schemas']['Process'];
export type ValidationLibrary = components['schemas']['ValidationLibrary'];
export type RbacStatus = components['schemas']['RbacStatus'];
export type DryRunAccepted = components['schemas']['DryRunAccepted'];
export type CompositionUpdateAccepted = components['schemas']['CompositionUpdateAccepted'];

/**
 * Sends the archive's bytes as they are with `Content-Type: application/x-tar` (the server recognises gzip by
 * its magic bytes). The generated types call the body a string, the way OpenAPI describes binary content.
 */
const archiveBody = (archive: ArchiveSource) => ({
  body: archive as unknown as string,
  bodySerializer: (body: unknown) => body,
  headers: { 'Content-Type': 'application/x-tar' },
});

/** `POST /processes`: creates a process in `query.account` from a composition archive. */
export const createProcess = (client: ConductorClient, query: CreateProcessQuery, archive: ArchiveSource): Promise<Process> =>
  unwrap(client.POST('/processes', { params: { query }, ...archiveBody(archive) }));

/** `PUT /processes/{process}/composition`: replaces a process's composition (`process` is its FID or alias). */
export const updateProcessComposition = (client: ConductorClient, process: string, archive: ArchiveSource): Promise<CompositionUpdateAccepted> =>
  unwrap(client.PUT('/processes/{process}/composition', { params: { path: { process } }, ...archiveBody(archive) }));

/**
 * `POST /dry-run`: queues a dry-run of a command; wait for its result with `waitForDryRun(client, accepted.id)`.
 * RUN and UPDATE need the composition archive; KILL and RESUME take none.
 */
export const submitDryRun = (client: ConductorClient, query: DryRunQuery, archive?: ArchiveSource): Promise<DryRunAccepted> =>
  unwrap(client.POST('/dry-run', { params: { query }, ...(archive === undefined ? {} : archiveBody(archive)) }));

/** `POST /validations?name=`: uploads a validation library (a tar holding `rules.yaml`). */
export const addValidation = (client: ConductorClient, name: string, archive: ArchiveSource): Promise<ValidationLibrary> =>
  unwrap(client.POST('/validations', { params: { query: { name } }, ...archiveBody(archive) }));

/** `POST /rbac`: attaches and applies an rbac policy (a tar holding `policy.yaml`). */
export const attachRbacPolicy = (client: ConductorClient, archive: ArchiveSource): Promise<RbacStatus> =>
  unwrap(client.POST('/rbac', archiveBody(archive)));
