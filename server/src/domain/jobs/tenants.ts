/**
 * The party a job works for, its tenant. The queue serves tenants in turn, the one served longest ago first, so
 * that one tenant's backlog delays another tenant's next job by at most one job per worker; and it caps, per
 * tenant, how many jobs of some kinds run at once (an organization's scans).
 */

/** Compliance work (scans, notification deliveries) of an organization. */
export const organizationTenant = (orgId: string): string => `org:${orgId}`;

/** Conductor work (dry-runs, process jobs) in a conductor account. */
export const conductorTenant = (accountName: string): string => `conductor:${accountName}`;

/** Jobs that name no party (queued without one): they take their turns together. */
export const SHARED_TENANT = 'shared';
