export type UserStatus = 'ACTIVE' | 'INVITED' | 'DISABLED';

/** A person of an organization: signs in to the console, belongs to groups. */
export interface OrgUser {
  id: string;
  orgId: string;
  email: string;
  firstName: string | null;
  lastName: string | null;
  passwordHash: string | null;
  owner: boolean;
  /**
   * The invite the user accepted to join; such a user acts only through their groups. Null (or absent) for the users
   * the server or the operator made.
   */
  inviteId?: string | null;
  status: UserStatus;
  createdAt: number;
  updatedAt: number;
}
