import { describe, it } from '@jest/globals';
import { expect } from '../../../test/expect.js';
import type { JobQueue } from '../jobs/queue.js';
import type { EmailSender } from '../notifications/transports.js';
import { INVITE_DELIVERY_ATTEMPTS, INVITE_DELIVERY_JOB, InvitationService, invitationEmail, type InvitationServiceDeps } from './invitations.js';
import type { Invite } from './types.js';

const invite: Invite = {
  id: 'b9d1f3b5-d7f9-4b1d-8f3b-5d7f9b1d3f5b',
  orgId: 'org-1',
  email: 'dana.lee@example.com',
  groups: [{ id: 'group-1', name: 'Auditors' }],
  expiresAt: Date.UTC(2026, 5, 8, 12) / 1000,
  acceptedAt: null,
  createdAt: Date.UTC(2026, 5, 1, 12) / 1000,
  updatedAt: Date.UTC(2026, 5, 1, 12) / 1000,
  deliveryError: null,
};

/** The service with only what deliveryJob reads: the email transport, the job queue's job maker, the public URL. */
function service(configured: boolean, publicUrl?: string): InvitationService {
  const email: EmailSender = { configured, send: async () => ({ ok: true }) };
  const jobs = { newJob: (kind: string, payload: unknown, options: object) => ({ kind, payload, ...options }) } as unknown as JobQueue;
  return new InvitationService({ email, jobs, ...(publicUrl !== undefined && { publicUrl }) } as unknown as InvitationServiceDeps);
}

describe('invitation emails', () => {
  it('are queued only when there is an SMTP server, linking to the public URL when one is set, else to the inviting request’s origin', () => {
    expect(service(false).deliveryJob(invite, 'http://127.0.0.1:3000', 'req-1')).toBeUndefined();
    expect(service(true).deliveryJob(invite, 'http://127.0.0.1:3000', 'req-1')).toMatchObject({
      kind: INVITE_DELIVERY_JOB,
      payload: { orgId: 'org-1', inviteId: invite.id, baseUrl: 'http://127.0.0.1:3000' },
      maxAttempts: INVITE_DELIVERY_ATTEMPTS,
      requestId: 'req-1',
      tenant: 'org:org-1',
    });
    expect(service(true, 'https://compliance.example.com').deliveryJob(invite, 'http://10.0.0.5:3000', null)).toMatchObject({
      payload: { baseUrl: 'https://compliance.example.com' },
    });
  });

  it('say who invites, into which groups, the link, and until when it works', () => {
    const link = 'https://compliance.example.com/console/invitation#nkK8UQRVxTZrR53FqglFnCjaLTw2VGtz9n8OQ5iRG8Y';
    const organization = { id: 'org-1', name: 'Example Org', createdAt: 0 };
    const groups = [{ id: 'group-1', name: 'Auditors', policy: 'builtin:AUDITOR' as const, allEnvironments: true, environmentIds: [] }];
    const message = invitationEmail(invite, organization, groups, link);
    expect(message.to).toEqual(['dana.lee@example.com']);
    expect(message.subject).toBe('You are invited to join Example Org');
    expect(message.text.split('\n')).toEqual([
      'You are invited to join Example Org in its compliance console, as dana.lee@example.com.',
      '',
      'You will be a member of: Auditors (builtin:AUDITOR).',
      '',
      'To accept, open this link and choose your password:',
      link,
      '',
      'The link works once, until 2026-06-08 at 12:00 UTC.',
      'If you did not expect this invitation, ignore this email: nothing happens unless the link is used.',
      '',
    ]);
    expect(invitationEmail({ ...invite, expiresAt: null }, organization, groups, link).text).toContain('The link works once; it does not expire.');
  });
});
