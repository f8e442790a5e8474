import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { newId, randomToken } from '../ids.js';
import type { JobQueue } from '../jobs/queue.js';
import { organizationTenant } from '../jobs/tenants.js';
import { silentLog, type Log } from '../log.js';
import { characterCount, firstCharacters } from '../text.js';
import { DEFAULT_PASSWORD_HASHING, hashPassword, type PasswordHashing } from '../auth/passwords.js';
import { hashSecret } from '../auth/secrets.js';
import type { AuthenticationThrottle } from '../auth/throttle.js';
import type { ConsoleAuthService, SignedIn } from '../console/sessions.js';
import type { EmailMessage, EmailSender } from '../notifications/transports.js';
import type { GroupRepository, InviteRepository, Job, Organization, OrganizationRepository, StoredInvite, UserRepository } from '../repositories.js';
import type { OrgUser } from '../users/types.js';
import type { NamedGrant } from './grants.js';
import { inviteStatus, type Invite } from './types.js';

/*
 * Invites, from the email to the new user. Creating an invite queues a delivery job (with the invite, in one
 * transaction). The job mints the link's token, keeps only its SHA-256 hash on the invite (replacing any earlier
 * one, so only the latest email's link works) and sends the email; a failed send is retried by the queue, and once
 * the queue gives the job up the invite expires with the reason, freeing its address for a new invite. The link
 * leads to the console, whose page reads the invitation and accepts it with a password: one transaction makes the
 * user, their group memberships and the invite ACCEPTED, and the user is signed in.
 */

export const INVITE_DELIVERY_JOB = 'invite-delivery';
/** Attempts per email, the first included; the job queue spaces them with exponential backoff. */
export const INVITE_DELIVERY_ATTEMPTS = 5;
/** Random bytes of a link's token: 43 characters in base64url. */
const TOKEN_BYTES = 32;
/** The console's page for a link; the token follows `#`, so a browser never sends it with the page request. */
export const INVITATION_PAGE = '/console/invitation';
/** Unknown tokens count as failed authentications of this identity (failed sign-ins of the console's realm). */
export const INVITATION_IDENTITY = 'invitation';
const MIN_PASSWORD = 12;
/** The longest `delivery_error` kept (the spec's Invite.delivery_error). */
const DELIVERY_ERROR_LENGTH = 4096;

export const INVITATION_NOT_VALID =
  'This invitation link is not valid: it names no invitation, or a newer email replaced it. Use the link of the latest invitation email.';

/** What a delivery job carries: the invite, and where its link points. */
export interface InviteDeliveryJob {
  orgId: string;
  inviteId: string;
  /** `scheme://host[:port]` the link starts with. */
  baseUrl: string;
}

/** An invitation as its link shows it. */
export interface InvitationView {
  email: string;
  organization: Organization;
  /** The groups the user will join (those of the invite that still exist), with their policies. */
  groups: NamedGrant[];
  expiresAt: number | null;
}

export interface InvitationServiceDeps {
  invites: InviteRepository;
  users: UserRepository;
  groups: GroupRepository;
  organizations: OrganizationRepository;
  /** Starts the new user's session, as a sign-in does. */
  consoleAuth: ConsoleAuthService;
  /** Unknown tokens count with failed authentications on every API, under the same limits. */
  throttle: AuthenticationThrottle;
  jobs: JobQueue;
  /** The transport email notifications use; unconfigured, no invite is emailed. */
  email: EmailSender;
  clock: Clock;
  hashing?: Readonly<PasswordHashing>;
  /** The server's public address (PUBLIC_URL): links start with it; unset, with the inviting request's. */
  publicUrl?: string;
  log?: Log;
}

const utc = (seconds: number): string => {
  const iso = new Date(seconds * 1000).toISOString();
  return `${iso.slice(0, 10)} at ${iso.slice(11, 16)} UTC`;
};

export class InvitationService {
  constructor(private readonly deps: InvitationServiceDeps) {}

  /**
   * The job that emails a new invite, to be written with it (InviteRepository.insert); none without an SMTP server.
   * `origin` is the scheme and host the inviting request was sent to, used when no public URL is configured.
   */
  deliveryJob(invite: Invite, origin: string, requestId: string | null): Job | undefined {
    if (!this.deps.email.configured) return undefined;
    const payload: InviteDeliveryJob = { orgId: invite.orgId, inviteId: invite.id, baseUrl: this.deps.publicUrl ?? origin };
    return this.deps.jobs.newJob(INVITE_DELIVERY_JOB, payload, { maxAttempts: INVITE_DELIVERY_ATTEMPTS, requestId, tenant: organizationTenant(invite.orgId) });
  }

  /** A delivery job was written: start on it now. */
  wake(): void {
    this.deps.jobs.wake();
  }

  /**
   * Makes a new token the only one of a pending invite and returns it; undefined when the invite is not pending
   * (accepted, expired, gone) or has no group left. The token exists only in what this returns: the email.
   */
  async mintToken(orgId: string, inviteId: string): Promise<string | undefined> {
    const invite = await this.deps.invites.get(orgId, inviteId);
    const now = this.deps.clock.nowSeconds();
    if (!invite || inviteStatus(invite, now) !== 'PENDING' || invite.groups.length === 0) return undefined;
    const token = randomToken(TOKEN_BYTES);
    return (await this.deps.invites.setTokenHash(orgId, inviteId, hashSecret(token), now)) ? token : undefined;
  }

  /**
   * One attempt to email an invite. A failed send throws, so that the queue retries it after a backoff; each attempt
   * mints a new token, so only the link of the last email sent works. An invite no longer pending gets no email.
   */
  async deliver(job: InviteDeliveryJob, reached: (point: string) => void = () => {}, signal?: AbortSignal): Promise<void> {
    const organization = await this.deps.organizations.get(job.orgId);
    if (!organization) return;
    signal?.throwIfAborted();
    const token = await this.mintToken(job.orgId, job.inviteId);
    if (token === undefined) return;
    const invite = (await this.deps.invites.get(job.orgId, job.inviteId))!;
    const groups = await this.deps.groups.namedGrants(job.orgId, invite.groups.map((group) => group.id));
    const outcome = await this.deps.email.send(invitationEmail(invite, organization, groups, `${job.baseUrl}${INVITATION_PAGE}#${token}`));
    reached('sent');
    if (!outcome.ok) throw new Error(`the invitation email to ${invite.email} failed: ${outcome.error}`);
    (this.deps.log ?? silentLog).info({ inviteId: invite.id }, 'invitation emailed');
  }

  /**
   * Every attempt to email the invite failed, or its workers vanished: nobody holds a working link, so the invite
   * expires now with the reason (GET /invites shows it) and its address may be invited again at once.
   */
  async giveUp(job: InviteDeliveryJob, reason: string): Promise<void> {
    const given = await this.deps.invites.giveUpDelivery(job.orgId, job.inviteId, firstCharacters(reason, DELIVERY_ERROR_LENGTH), this.deps.clock.nowSeconds());
    (this.deps.log ?? silentLog).warn({ inviteId: job.inviteId, error: reason, expired: given }, 'invitation email given up');
  }

  /** What the invitation of a token is for; 404 for an unknown token, 410 for one that cannot be accepted any more. */
  async describe(token: string, address: string): Promise<InvitationView> {
    const invite = await this.pending(token, address);
    return {
      email: invite.email,
      organization: await this.organization(invite.orgId),
      groups: await this.deps.groups.namedGrants(invite.orgId, invite.groups.map((group) => group.id)),
      expiresAt: invite.expiresAt,
    };
  }

  /**
   * Accepts the invitation of a token with the password chosen, and signs the new user in (ending the session of
   * `previousToken`, as a sign-in does). One transaction makes the user, their groups and the invite ACCEPTED; of
   * two acceptances at once, one succeeds and the other is answered as for a used link.
   */
  async accept(token: string, password: string, address: string, previousToken?: string): Promise<SignedIn> {
    if (characterCount(password) < MIN_PASSWORD) throw AppError.invalid('password', `must be at least ${MIN_PASSWORD} characters`);
    const invite = await this.pending(token, address);
    const existing = await this.deps.users.findByEmail(invite.email);
    // This invite's own user: another acceptance finished since the invite was read (a second submit).
    if (existing) throw existing.inviteId === invite.id ? acceptedAlready(invite) : emailTaken(invite.email);
    const organization = await this.organization(invite.orgId);
    const now = this.deps.clock.nowSeconds();
    const user: OrgUser = {
      id: newId(),
      orgId: invite.orgId,
      email: invite.email,
      firstName: null,
      lastName: null,
      passwordHash: await hashPassword(password, this.deps.hashing ?? DEFAULT_PASSWORD_HASHING),
      owner: false,
      inviteId: invite.id,
      status: 'ACTIVE',
      createdAt: now,
      updatedAt: now,
    };
    const outcome = await this.deps.invites.accept({ invite, tokenHash: hashSecret(token), user, now });
    switch (outcome) {
      case 'accepted':
        return this.deps.consoleAuth.startSession(user, organization, previousToken);
      case 'email_taken':
        throw emailTaken(invite.email);
      case 'no_groups':
        throw noGroups();
      case 'not_pending': {
        // Accepted meanwhile (a second submit), expired since, or a newer email replaced the token.
        const current = await this.deps.invites.findByTokenHash(hashSecret(token));
        throw (current && refusal(current, this.deps.clock.nowSeconds())) ?? new AppError('not_found', INVITATION_NOT_VALID);
      }
    }
  }

  /**
   * The pending invite of a token. The lookup counts as a failed authentication until it finds the token, so that
   * tokens cannot be guessed faster than passwords; a used or expired token was no guess, and is refused uncounted.
   */
  private async pending(token: string, address: string): Promise<StoredInvite> {
    const invite = await this.deps.throttle.authenticate(
      { realm: 'console', identity: INVITATION_IDENTITY, address },
      { verify: () => this.deps.invites.findByTokenHash(hashSecret(token)) },
    );
    if (!invite) throw new AppError('not_found', INVITATION_NOT_VALID);
    const refused = refusal(invite, this.deps.clock.nowSeconds());
    if (refused) throw refused;
    return invite;
  }

  private async organization(orgId: string): Promise<Organization> {
    const organization = await this.deps.organizations.get(orgId);
    if (!organization) throw new AppError('not_found', INVITATION_NOT_VALID);
    return organization;
  }
}

/** Why an invite's link can no longer be used (410), if it cannot. */
function refusal(invite: Invite, now: number): AppError | undefined {
  switch (inviteStatus(invite, now)) {
    case 'ACCEPTED':
      return acceptedAlready(invite);
    case 'EXPIRED':
      return new AppError('gone', `This invitation expired on ${utc(invite.expiresAt!)}; ask the organization for a new one`);
    case 'PENDING':
      return invite.groups.length === 0 ? noGroups() : undefined;
  }
}

const acceptedAlready = (invite: Invite) => new AppError('gone', `This invitation was accepted already; sign in with ${invite.email}`);

const noGroups = () => new AppError('gone', 'Every group this invitation was to grant has been deleted; ask the organization for a new invitation');

const emailTaken = (email: string) => new AppError('conflict', `${email} already belongs to a user; an email address signs in to one organization only`);

/** The invitation email: who invites, into which groups, the link, and until when it works. */
export function invitationEmail(invite: Invite, organization: Organization, groups: readonly NamedGrant[], link: string): EmailMessage {
  const memberOf = groups.map((group) => `${group.name} (${group.policy})`).join(', ');
  const until = invite.expiresAt === null ? 'The link works once; it does not expire.' : `The link works once, until ${utc(invite.expiresAt)}.`;
  return {
    to: [invite.email],
    subject: `You are invited to join ${organization.name}`,
    text: [
      `You are invited to join ${organization.name} in its compliance console, as ${invite.email}.`,
      '',
      `You will be a member of: ${memberOf}.`,
      '',
      'To accept, open this link and choose your password:',
      link,
      '',
      until,
      'If you did not expect this invitation, ignore this email: nothing happens unless the link is used.',
      '',
    ].join('\n'),
  };
}
