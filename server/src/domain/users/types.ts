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
  status: UserStatus;
  createdAt: number;
  updatedAt: number;
}
