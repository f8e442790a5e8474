import { createHash } from 'node:crypto';
import type { Grants } from '../../domain/access/grants.js';
import type { HandlerContext } from '../context.js';
import type { AnswerVersions, VersionMap } from '../edge-cache.js';
import type { CompliancePrincipal } from './authorization.js';
import type { Operations } from './types.js';

/*
 * What the edge cache (../edge-cache.ts) keys the compliance API's most repeated reads by: the version the database
 * keeps of what each answer shows, read through the use cases, and the caller's view.
 */

/** The version of what each operation that declares 304 answers; an operation that declares it without one does not compile. */
const versions = {
  listEnvironments: (req, { services }) => services.environments.listVersion(req.principal.orgId),
  getEnvironment: (req, { services }) => services.environments.version(req.principal.orgId, req.path.environment_id),
  getScan: (req, { services }) => services.scans.version(req.principal.orgId, req.path.scan_id),
  getComplianceByRules: (req, { services }) => services.scans.version(req.principal.orgId, req.path.scan_id),
  getComplianceByResourceTypes: (req, { services }) => services.scans.version(req.principal.orgId, req.path.scan_id),
} satisfies VersionMap<Operations, CompliancePrincipal, HandlerContext>;

/** The view of each restricted caller's grants, made once per grants read (they are reused for up to a second). */
const views = new WeakMap<Grants, string>();

/**
 * What of the caller its answers depend on: its organization and the environments its groups cover at the level
 * these reads need (`results`; the environments list lists only those). A caller in no group, or whose groups
 * cover every environment, sees what the whole organization sees; any other caller's covered environments are
 * named by a digest of their sorted ids, so that a view stays short however many they are.
 */
export function complianceView(principal: CompliancePrincipal): string {
  const { grants, orgId } = principal;
  if (!grants.restricted) return orgId;
  let view = views.get(grants);
  if (view === undefined) {
    const covered = grants.environmentsAllowing('results');
    view = covered === 'all' ? orgId : `${orgId}/${createHash('sha256').update([...covered].sort().join('\n')).digest('base64url')}`;
    views.set(grants, view);
  }
  return view;
}

export const complianceAnswerVersions: AnswerVersions<CompliancePrincipal> = { versions, view: complianceView };
