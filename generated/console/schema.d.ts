/**
 * Generated from specs/console/ by `make generate`. Do not edit: change the spec and regenerate.
 */

export interface paths {
    "/api-clients": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List API clients
         * @description One page of the organization's API clients, as the console's table shows them: sortable by name (default,
         *     ascending), client id, secret age and last activity, in either direction, with page sizes 10, 20, 50 and 100.
         *     An `offset` past the end answers an empty page (`count` 0, `is_truncated` false).
         *
         *     Ordering:
         *     - `name`: by name, case-insensitively.
         *     - `client_id`: by client id, byte-wise.
         *     - `secret_age`: by how long the current secret has been active, youngest secret first in `asc`. Clients
         *       without an active secret (`Created`, `Secret Revoked`) count as older than any secret: last in `asc`, first
         *       in `desc`.
         *     - `last_activity`: by `last_activity_at`, least recently used first in `asc`. Never-used clients count as the
         *       oldest: first in `asc`, last in `desc`.
         *
         *     Ties are broken by name and then client id, both ascending, so pages are stable.
         *
         *     Needs read access to the API clients (`access.api_clients` of the session `read` or `manage`; see "Access" in the introduction), else `403 AuthorizationError`.
         */
        get: operations["listApiClients"];
        put?: never;
        /**
         * Create an API client
         * @description Creates an API client with the given name and status `Created`. The server assigns its client id; no secret exists yet, so the client cannot authenticate until generateApiClientSecret is called. With `with_secret: true` the first secret is generated in the same step: the client is created `Active` and the answer carries `client_secret` (with `Cache-Control: no-store`), the only time it is shown; this is how the console creates a client. A name already used by another client of the organization (compared case-insensitively) is answered 409, and nothing is created. An organization has at most 50 API clients, however they were created, a setting of the server (`MAX_API_CLIENTS_PER_ORG`; the operator's `api-clients create` command is not held to it): one more is a 409 `Conflict` naming the setting and its value, e.g. `this organization has 50 API clients, the most it may have (MAX_API_CLIENTS_PER_ORG=50)`, and nothing is created; deleting one makes room. Needs the right to manage API clients (`access.api_clients` of the session `manage`; see "Access" in the introduction), else `403 AuthorizationError` and nothing changes.
         */
        post: operations["createApiClient"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api-clients/{client_id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The API client's id (its Basic-auth user name). An id of another organization's client is answered 404, as is an unknown one.
                 * @example cl_7Hq2Lm9Xz4Rt8Vb1Nc3Kd5
                 */
                client_id: components["parameters"]["client_id"];
            };
            cookie?: never;
        };
        /**
         * Get an API client
         * @description One API client of the organization. The secret is never returned. Needs read access to the API clients (`access.api_clients` of the session `read` or `manage`; see "Access" in the introduction), else `403 AuthorizationError`.
         */
        get: operations["getApiClient"];
        put?: never;
        post?: never;
        /**
         * Delete an API client
         * @description Removes the client in any status. Its secret stops working at once: the next compliance API request with it is answered 401. The client id is not reused. The console asks for confirmation first. Needs the right to manage API clients (`access.api_clients` of the session `manage`; see "Access" in the introduction), else `403 AuthorizationError` and nothing changes.
         */
        delete: operations["deleteApiClient"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api-clients/{client_id}/secret": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The API client's id (its Basic-auth user name). An id of another organization's client is answered 404, as is an unknown one.
                 * @example cl_7Hq2Lm9Xz4Rt8Vb1Nc3Kd5
                 */
                client_id: components["parameters"]["client_id"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Generate an API client secret
         * @description Generates a new secret for the client in any status and returns it, once: only its SHA-256 hash is kept, so it
         *     cannot be shown again (the console shows it with a copy button). The status afterwards is `Active`.
         *
         *     Generating again (regenerate) replaces the previous secret, which stops working at once: the next compliance
         *     API request with it is answered 401. A revoked client becomes `Active` again with the new secret.
         *
         *     Needs the right to manage API clients (`access.api_clients` of the session `manage`; see "Access" in the introduction), else `403 AuthorizationError` and nothing changes.
         *     `last_activity_at` is kept.
         */
        post: operations["generateApiClientSecret"];
        /**
         * Revoke an API client secret
         * @description Revokes the client's active secret, which stops working at once: the next compliance API request with it is answered 401. The status becomes `Secret Revoked`; generateApiClientSecret makes the client usable again. A client without an active secret (`Created` or already `Secret Revoked`) is answered 409. Needs the right to manage API clients (`access.api_clients` of the session `manage`; see "Access" in the introduction), else `403 AuthorizationError` and nothing changes.
         */
        delete: operations["revokeApiClientSecret"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/invitations/{token}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The invitation's token: the part after `#` of the link its email carries (32 random bytes, base64url without padding). The server keeps only its SHA-256 hash, and never writes the token to its log.
                 * @example nkK8UQRVxTZrR53FqglFnCjaLTw2VGtz9n8OQ5iRG8Y
                 */
                token: components["parameters"]["token"];
            };
            cookie?: never;
        };
        /**
         * Read an invitation
         * @description What the invitation behind a link is for: the email address invited (the new user's sign-in name), the
         *     organization, the groups the user will join and when the invitation expires. The console's accept page
         *     (`/console/invitation#<token>`) reads it before showing its form. Needs no session and no CSRF token: the token
         *     is the credential. Reading changes nothing; the link still works afterwards.
         *
         *     - `404 NotFound` (`This invitation link is not valid: …`) when the token names no invitation: it was never
         *       issued, or a later email of the same invite replaced it (each email carries a new link, and only the link of
         *       the latest one works).
         *     - `410 Gone` when the invitation can no longer be accepted, the message saying which: it was accepted already
         *       (the invite is `ACCEPTED`; the person signs in with its email address instead), it expired (its `expires_at`
         *       passed: the invite is `EXPIRED`), or every group it was to grant has been deleted since.
         *
         *     An unknown token counts as a failed authentication, under the same limits and counts as failed sign-ins (with
         *     the email address `invitation`): past a limit the call is answered `429` with `Retry-After`, the token
         *     unchecked. A used or expired token is no guess and is not counted.
         */
        get: operations["getInvitation"];
        put?: never;
        /**
         * Accept an invitation
         * @description Accepts the invitation with the password the person chose, and signs them in. In one transaction: a user of the
         *     invite's organization is created with the invite's email address (lower case), `ACTIVE`, not an owner, without
         *     a name, and with the password's salted scrypt hash (as every console password); they join the invite's groups
         *     that still exist; the invite becomes `ACCEPTED` and its link stops working. The new user is then listed by the
         *     compliance API's `GET /users`. The answer is a session with its `Set-Cookie` header, as signIn's; a session
         *     cookie the browser still sent is ended, as on sign-in. What the user may do in the console then follows their
         *     groups (see "Access" in the introduction). Needs no session and no CSRF token: the token is the credential, and
         *     the body must be JSON (`Content-Type: application/json`), which a cross-site HTML form cannot send.
         *
         *     Two requests with the same token at once make one user: one is answered `200`, the other `410`.
         *
         *     - `400` when the password is missing, shorter than 12 characters (`password: must NOT have fewer than 12
         *       characters`) or longer than 1024; nothing changes and the link still works.
         *     - `404` and `410` as getInvitation; nothing changes.
         *     - `409 Conflict` when the email address already belongs to a user, of this or another organization (an address
         *       signs in to one organization only); nothing changes, and the invite stays `PENDING`.
         *
         *     Unknown tokens count as failed authentications, as for getInvitation (`429`).
         */
        post: operations["acceptInvitation"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/session": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the current session
         * @description Returns the signed-in user, their organization, the session's CSRF token and its expiry, and what the user may do now (`access`, as their groups decide; see "Access" in the introduction). The console calls it on page load to learn whether it is signed in and to recover the CSRF token. Does not extend the session.
         */
        get: operations["getSession"];
        put?: never;
        /**
         * Sign in to the console
         * @description Checks an organization user's email address and password and starts a session: the answer carries the session
         *     (including the CSRF token) and sets the `console_session` cookie. Needs no session and no CSRF token. A session
         *     cookie already present is replaced: a successful sign-in ends the session it named (a failed one leaves it).
         *
         *     A wrong email address and a wrong password give the same `401` (`Invalid email or password`). Failed attempts
         *     are limited per client address and email address together, per client address, and per email address across
         *     the client addresses that failed with it (`429` with `Retry-After`, the password unchecked; see the
         *     introduction). The body must be JSON (`Content-Type: application/json`), which a cross-site HTML form cannot
         *     send.
         */
        post: operations["signIn"];
        /**
         * Sign out of the console
         * @description Ends the current session at once (its cookie and CSRF token stop working) and clears the `console_session` cookie. Needs the CSRF token.
         */
        delete: operations["signOut"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /**
         * @description The password the invited person chooses: at least 12 characters (code points), at most 1024. They sign in with it and the invited email address from then on.
         * @example {
         *       "password": "correct horse battery staple"
         *     }
         */
        AcceptInvitationInput: {
            /** @description The new user's password, at least 12 characters. */
            password: string;
        };
        /**
         * @description An API client: a credential pair for the compliance API (`/v0`), where the client id is the Basic-auth user name
         *     and the client secret the password. A client may read data across all environments of its organization.
         *
         *     Status:
         *     - `Created`: the client exists but no secret has been generated yet; it cannot authenticate. (The client id is
         *       assigned at creation so the client can be addressed; it becomes usable with its first secret.)
         *     - `Active`: a secret has been generated and is usable. Generating a secret again (regenerate) replaces the
         *       previous one, which stops working at once; the status stays `Active`.
         *     - `Secret Revoked`: the secret was revoked and the client cannot authenticate until a new secret is generated,
         *       which makes it `Active` again.
         *
         *     Revoking, regenerating and deleting take effect at once: the old secret fails on the very next request (the
         *     public service allows up to 5 minutes). Only a SHA-256 hash of the secret is stored; it is never shown again
         *     after generation.
         * @example {
         *       "client_id": "cl_7Hq2Lm9Xz4Rt8Vb1Nc3Kd5",
         *       "name": "ci-pipeline",
         *       "status": "Active",
         *       "created_at": 1735689600,
         *       "secret_created_at": 1735693200,
         *       "secret_age": 2592000,
         *       "last_activity_at": 1738281600
         *     }
         */
        ApiClient: {
            /** @description The client's id, assigned by the server at creation (`cl_` followed by 22 random letters and digits; treat it as opaque) and never changed. It is the Basic-auth user name for the compliance API. */
            client_id: string;
            /**
             * Format: int64
             * @description Unix seconds at which the client was created ("Created On").
             */
            created_at: number;
            /**
             * Format: int64
             * @description Unix seconds of the client's last successful authentication against the compliance API, with any of its secrets ("Last Activity"); null when the client has never been used. Kept to the minute: it is updated at most once a minute per client.
             */
            last_activity_at: number | null;
            /** @description The name given at creation, unique within the organization (case-insensitively). */
            name: string;
            /** @description Seconds the current secret has been active, computed when the response is built (now minus `secret_created_at`); null without an active secret. */
            secret_age: number | null;
            /**
             * Format: int64
             * @description Unix seconds at which the current secret was generated; null without an active secret (status `Created` or `Secret Revoked`).
             */
            secret_created_at: number | null;
            /**
             * @description `Created`: no secret generated yet; `Active`: a usable secret exists; `Secret Revoked`: the secret was revoked (see the schema description).
             * @enum {string}
             */
            status: "Created" | "Active" | "Secret Revoked";
        };
        /**
         * @description One page of the organization's API clients, as the console's client table shows them.
         * @example {
         *       "count": 2,
         *       "total": 3,
         *       "is_truncated": true,
         *       "next_offset": 2,
         *       "items": [
         *         {
         *           "client_id": "cl_7Hq2Lm9Xz4Rt8Vb1Nc3Kd5",
         *           "name": "ci-pipeline",
         *           "status": "Active",
         *           "created_at": 1735689600,
         *           "secret_created_at": 1735693200,
         *           "secret_age": 2592000,
         *           "last_activity_at": 1738281600
         *         },
         *         {
         *           "client_id": "cl_Pz8Wd3Kq6Nm1Ys4Tb7Hc2",
         *           "name": "nightly-report",
         *           "status": "Active",
         *           "created_at": 1736899200,
         *           "secret_created_at": 1736902800,
         *           "secret_age": 1382400,
         *           "last_activity_at": 1738252800
         *         }
         *       ]
         *     }
         */
        ApiClients: {
            /** @description Number of items in this page. */
            count: number;
            /** @description Whether more clients exist past this page. */
            is_truncated: boolean;
            /** @description The page, in the requested order. */
            items: components["schemas"]["ApiClient"][];
            /** @description Present only when `is_truncated` is true; the `offset` of the next page. */
            next_offset?: number;
            /** @description Number of API clients of the organization, across all pages. */
            total: number;
        };
        /**
         * @description A newly generated client secret. This is the only time the secret is shown: the server keeps only its SHA-256 hash, and the console shows it once with a copy button.
         * @example {
         *       "client_id": "cl_7Hq2Lm9Xz4Rt8Vb1Nc3Kd5",
         *       "client_secret": "q3Zr8VbN2xLm7Ht4Wc9Kp1Ys6Df0Ga5Je8Uo3Ri2Tn-",
         *       "api_client": {
         *         "client_id": "cl_7Hq2Lm9Xz4Rt8Vb1Nc3Kd5",
         *         "name": "ci-pipeline",
         *         "status": "Active",
         *         "created_at": 1735689600,
         *         "secret_created_at": 1738281600,
         *         "secret_age": 0,
         *         "last_activity_at": 1738278000
         *       }
         *     }
         */
        ApiClientSecret: {
            api_client: components["schemas"]["ApiClient"];
            /** @description The client's id, the Basic-auth user name. */
            client_id: string;
            /** @description The new secret, the Basic-auth password: at least 32 random bytes, base64url without padding (43 characters for 32 bytes). Shown only in this response. */
            client_secret: string;
        };
        /**
         * @description Error body of a 401 answer: no live session (message `Sign in required`), or, for signIn, wrong credentials (message `Invalid email or password`).
         * @example {
         *       "type": "AuthenticationError",
         *       "code": 401,
         *       "message": "Sign in required"
         *     }
         */
        AuthenticationError: {
            /**
             * @description The HTTP status, repeated.
             * @enum {integer}
             */
            code: 401;
            /** @description What went wrong; for invalid input it names the field and the rule broken. */
            message: string;
            /**
             * @description The kind of error.
             * @enum {string}
             */
            type: "AuthenticationError";
        };
        /**
         * @description Error body of a 403 answer: missing or wrong CSRF token (InvalidCsrfToken), or the user may not do this (AuthorizationError).
         * @example {
         *       "type": "InvalidCsrfToken",
         *       "code": 403,
         *       "message": "header.X-CSRF-Token: missing or does not match the session"
         *     }
         */
        AuthorizationError: {
            /**
             * @description The HTTP status, repeated.
             * @enum {integer}
             */
            code: 403;
            /** @description What went wrong; for invalid input it names the field and the rule broken. */
            message: string;
            /**
             * @description The kind of error.
             * @enum {string}
             */
            type: "AuthorizationError" | "InvalidCsrfToken";
        };
        /**
         * @description Error body of a 400 answer.
         * @example {
         *       "type": "InvalidParameterValue",
         *       "code": 400,
         *       "message": "body.name: must be at most 100 characters"
         *     }
         */
        BadRequestError: {
            /**
             * @description The HTTP status, repeated.
             * @enum {integer}
             */
            code: 400;
            /** @description What went wrong; for invalid input it names the field and the rule broken. At most 16384 characters: a longer one (it names what the request sent) is cut, ending in `…`. */
            message: string;
            /**
             * @description The kind of error.
             * @enum {string}
             */
            type: "BadRequest" | "InvalidJSON" | "InvalidParameterValue" | "MissingParameter";
        };
        /**
         * @description Error body of a 409 answer.
         * @example {
         *       "type": "Conflict",
         *       "code": 409,
         *       "message": "body.name: an API client named ci-pipeline already exists"
         *     }
         */
        ConflictError: {
            /**
             * @description The HTTP status, repeated.
             * @enum {integer}
             */
            code: 409;
            /** @description What went wrong; for invalid input it names the field and the rule broken. */
            message: string;
            /**
             * @description The kind of error.
             * @enum {string}
             */
            type: "Conflict";
        };
        /**
         * @description What the signed-in user may do in the console, as their groups decide (see "Access" in the introduction), and why. Read at sign-in and on every getSession; a group change shows on the next read (within a second).
         * @example {
         *       "api_clients": "manage",
         *       "reason": "You own this organization, so you may manage its API clients."
         *     }
         */
        ConsoleAccess: {
            /**
             * @description `manage`: list, create, generate and regenerate secrets, revoke and delete API clients; `read`: list and read them only (the other calls are answered `403`); `none`: not even list them (every API client call is answered `403`).
             * @enum {string}
             */
            api_clients: "manage" | "read" | "none";
            /** @description Why, in a sentence the console shows as it is: the owner's rights, or the user's groups (up to five named) and the policy that would be needed. */
            reason: string;
        };
        /**
         * @description A new API client. Only the name is chosen; the server assigns the client id.
         * @example {
         *       "name": "ci-pipeline"
         *     }
         */
        CreateApiClientInput: {
            /** @description The client's name, unique within the organization (compared case-insensitively), 1 to 100 characters with no leading or trailing whitespace. One client per use case is recommended, so secrets can be rotated individually; name it after the use case. */
            name: string;
            /**
             * @description `true` generates the client's first secret in the same step: the client is created `Active` and the answer carries `client_secret`, shown only there. `false` (the default) creates it `Created`, without a secret, until generateApiClientSecret is called.
             * @default false
             */
            with_secret?: boolean;
        };
        /**
         * @description Error body of a 410 answer: the invitation was accepted already, has expired, or has no group left to grant.
         * @example {
         *       "type": "Gone",
         *       "code": 410,
         *       "message": "This invitation was accepted already; sign in with dana.lee@example.com"
         *     }
         */
        GoneError: {
            /**
             * @description The HTTP status, repeated.
             * @enum {integer}
             */
            code: 410;
            /** @description Why the invitation can no longer be accepted, and what to do instead. */
            message: string;
            /**
             * @description The kind of error.
             * @enum {string}
             */
            type: "Gone";
        };
        /**
         * @description Error body of a 500 answer.
         * @example {
         *       "type": "InternalServerError",
         *       "code": 500,
         *       "message": "Internal server error"
         *     }
         */
        InternalServerError: {
            /**
             * @description The HTTP status, repeated.
             * @enum {integer}
             */
            code: 500;
            /** @description What went wrong; for invalid input it names the field and the rule broken. */
            message: string;
            /**
             * @description The kind of error.
             * @enum {string}
             */
            type: "InternalServerError" | "DatabaseError";
        };
        /**
         * @description An invitation as its link shows it to the person invited, before they accept it: who is invited, into which organization and groups, and until when.
         * @example {
         *       "email": "dana.lee@example.com",
         *       "organization": {
         *         "id": "9b2e4c71-0d3a-4f68-b5e2-7a1c8d9f0e34",
         *         "name": "Example Org"
         *       },
         *       "groups": [
         *         {
         *           "id": "4c6e8a0c-2e4a-4c6e-8a0c-2e4a6c8e0a2c",
         *           "name": "Auditors",
         *           "policy": "builtin:AUDITOR"
         *         }
         *       ],
         *       "expires_at": 1767268800
         *     }
         */
        Invitation: {
            /**
             * Format: email
             * @description The invited email address, in lower case; the user's sign-in name once accepted.
             */
            email: string;
            /**
             * Format: int64
             * @description Unix seconds at which the invitation, and its link, expire (the invite's `expires_at`); `null` when it never expires.
             */
            expires_at: number | null;
            /** @description The groups the user will join, by name (the invite's groups that still exist; at least one). What the user may do follows from their policies (see "Access" in the introduction). */
            groups: components["schemas"]["InvitationGroup"][];
            organization: components["schemas"]["Organization"];
        };
        /**
         * @description A group an invitation makes its user a member of.
         * @example {
         *       "id": "4c6e8a0c-2e4a-4c6e-8a0c-2e4a6c8e0a2c",
         *       "name": "Auditors",
         *       "policy": "builtin:AUDITOR"
         *     }
         */
        InvitationGroup: {
            /**
             * Format: uuid
             * @description The group's id.
             */
            id: string;
            /** @description The group's name. */
            name: string;
            /**
             * @description The policy the group grants over its environments (the compliance API's "Access control").
             * @enum {string}
             */
            policy: "builtin:READONLY" | "builtin:AUDITOR" | "builtin:EDITOR" | "builtin:CONTRIBUTOR" | "builtin:MANAGER" | "builtin:ORGANIZATION_REPORT_VIEWER" | "builtin:IAC_SCANNER";
        };
        /** @description A client just created: the fields of an ApiClient (see there), and, when the request asked for it with `with_secret: true`, its first secret. With it the client is `Active`, and `client_secret` is shown only in this answer (the server keeps only its SHA-256 hash); without it the client is `Created` and there is no `client_secret`. (The fields are listed here rather than combined with ApiClient, so that tools comparing versions of this spec see the same fields as before.) */
        NewApiClient: {
            /** @description The client's id, assigned by the server; the Basic-auth user name for the compliance API. */
            client_id: string;
            /** @description The first secret, the Basic-auth password: at least 32 random bytes, base64url without padding (43 characters for 32 bytes). Present only when the request asked for it with `with_secret: true`. */
            client_secret?: string;
            /**
             * Format: int64
             * @description Unix seconds at which the client was created ("Created On").
             */
            created_at: number;
            /**
             * Format: int64
             * @description Null, as the client has not been used yet.
             */
            last_activity_at: number | null;
            /** @description The name given at creation, unique within the organization (case-insensitively). */
            name: string;
            /** @description Seconds the secret has been active (0); null without one. */
            secret_age: number | null;
            /**
             * Format: int64
             * @description Unix seconds at which the first secret was generated (the creation); null without one.
             */
            secret_created_at: number | null;
            /**
             * @description `Active` with `with_secret: true`, `Created` without; never `Secret Revoked` here.
             * @enum {string}
             */
            status: "Created" | "Active" | "Secret Revoked";
        };
        /**
         * @description Error body of a 404 answer.
         * @example {
         *       "type": "NotFound",
         *       "code": 404,
         *       "message": "path.client_id: no API client cl_7Hq2Lm9Xz4Rt8Vb1Nc3Kd5"
         *     }
         */
        NotFoundError: {
            /**
             * @description The HTTP status, repeated.
             * @enum {integer}
             */
            code: 404;
            /** @description What went wrong; for invalid input it names the field and the rule broken. */
            message: string;
            /**
             * @description The kind of error.
             * @enum {string}
             */
            type: "NotFound";
        };
        /**
         * @description Error body of a 501 answer: the operation's handler has not shipped yet.
         * @example {
         *       "type": "NotImplemented",
         *       "code": 501,
         *       "message": "This operation is not implemented yet"
         *     }
         */
        NotImplementedError: {
            /**
             * @description The HTTP status, repeated.
             * @enum {integer}
             */
            code: 501;
            /** @description What went wrong; for invalid input it names the field and the rule broken. */
            message: string;
            /**
             * @description The kind of error.
             * @enum {string}
             */
            type: "NotImplemented";
        };
        /**
         * @description The organization the signed-in user belongs to; every API client listed belongs to it.
         * @example {
         *       "id": "9b2e4c71-0d3a-4f68-b5e2-7a1c8d9f0e34",
         *       "name": "Example Org"
         *     }
         */
        Organization: {
            /**
             * Format: uuid
             * @description The organization's id.
             */
            id: string;
            /** @description The organization's name. */
            name: string;
        };
        /**
         * @description Error body of a 503 answer: the service cannot serve the request now; retry after `Retry-After` seconds.
         * @example {
         *       "type": "ServiceUnavailable",
         *       "code": 503,
         *       "message": "The database did not answer in time; try again shortly"
         *     }
         */
        ServiceUnavailableError: {
            /**
             * @description The HTTP status, repeated.
             * @enum {integer}
             */
            code: 503;
            /** @description What is unavailable (the database, or the server's capacity). */
            message: string;
            /**
             * @description The kind of error.
             * @enum {string}
             */
            type: "ServiceUnavailable";
        };
        /**
         * @description The current console session. Returned by signIn and getSession; the session itself travels in the `console_session` cookie, never in this body.
         * @example {
         *       "user": {
         *         "id": "3f6c2a9e-8b41-4d57-9a0e-5c1d7b2e4f80",
         *         "email": "admin@example.org",
         *         "name": "Organization Admin"
         *       },
         *       "organization": {
         *         "id": "9b2e4c71-0d3a-4f68-b5e2-7a1c8d9f0e34",
         *         "name": "Example Org"
         *       },
         *       "csrf_token": "Xk3vR9pLq2Wm8Tn5Yb7Hc1Jd4Fs6Ga0Ze3Uo9Ri2Tq5",
         *       "expires_at": 1767268800,
         *       "access": {
         *         "api_clients": "manage",
         *         "reason": "You own this organization, so you may manage its API clients."
         *       }
         *     }
         */
        Session: {
            access: components["schemas"]["ConsoleAccess"];
            /** @description The session's CSRF token (at least 32 random bytes, base64url without padding). It stays the same for the whole session; send it in the `X-CSRF-Token` header on every state-changing call. */
            csrf_token: string;
            /**
             * Format: int64
             * @description Unix seconds at which the session ends: 12 hours after sign-in, not extended by activity. After it every call answers 401 until the user signs in again.
             */
            expires_at: number;
            organization: components["schemas"]["Organization"];
            user: components["schemas"]["User"];
        };
        /**
         * @description Credentials of an organization user. The email address is compared case-insensitively; the password exactly.
         * @example {
         *       "email": "admin@example.org",
         *       "password": "correct horse battery staple"
         *     }
         */
        SignInInput: {
            /**
             * Format: email
             * @description The user's email address.
             */
            email: string;
            /** @description The user's password. */
            password: string;
        };
        /**
         * @description Error body of a 429 answer (too many failed authentications).
         * @example {
         *       "type": "TooManyRequests",
         *       "code": 429,
         *       "message": "Too many failed authentication attempts; try again in 600 seconds"
         *     }
         */
        TooManyRequestsError: {
            /**
             * @description The HTTP status, repeated.
             * @enum {integer}
             */
            code: 429;
            /** @description What went wrong; for invalid input it names the field and the rule broken. */
            message: string;
            /**
             * @description The kind of error.
             * @enum {string}
             */
            type: "TooManyRequests";
        };
        /**
         * @description The signed-in organization user.
         * @example {
         *       "id": "3f6c2a9e-8b41-4d57-9a0e-5c1d7b2e4f80",
         *       "email": "admin@example.org",
         *       "name": "Organization Admin"
         *     }
         */
        User: {
            /**
             * Format: email
             * @description The user's email address (as stored; sign-in compares it case-insensitively).
             */
            email: string;
            /**
             * Format: uuid
             * @description The user's id.
             */
            id: string;
            /** @description The user's display name. */
            name: string;
        };
    };
    responses: {
        /**
         * @description The request is malformed: the body is not valid JSON (`InvalidJSON`), a required field or parameter is missing
         *     (`MissingParameter`), a value breaks its rule, e.g. is too long, not in the allowed list or an unknown body
         *     field (`InvalidParameterValue`), or anything else is wrong with the request (`BadRequest`). Nothing changed.
         */
        BadRequest: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["BadRequestError"];
            };
        };
        /** @description The request conflicts with the current state of the resource (see the operation). Nothing changed. */
        Conflict: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ConflictError"];
            };
        };
        /**
         * @description The `X-CSRF-Token` header is missing or does not match the session's token (`InvalidCsrfToken`), or the
         *     signed-in user's groups do not allow the operation (`AuthorizationError`, its message naming what is
         *     missing; see "Access" in the introduction). Nothing changed.
         */
        Forbidden: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["AuthorizationError"];
            };
        };
        /** @description The invitation can no longer be accepted: it was accepted already, it expired, or every group it was to grant has been deleted. The message says which, and what to do instead. Nothing changed. */
        Gone: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["GoneError"];
            };
        };
        /** @description The server failed (`InternalServerError`) or its database did (`DatabaseError`). The request may be retried. */
        InternalServerError: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["InternalServerError"];
            };
        };
        /** @description The token names no invitation: it was never issued, or a later email of the same invite replaced it. Nothing changed. Counted as a failed authentication. */
        InvitationNotFound: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["NotFoundError"];
            };
        };
        /** @description The resource does not exist in the signed-in user's organization (another organization's resources are reported the same way). */
        NotFound: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["NotFoundError"];
            };
        };
        /** @description The operation is specified but its handler has not shipped yet. */
        NotImplemented: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["NotImplementedError"];
            };
        };
        /**
         * @description The service is temporarily unavailable (its database does not answer in time, or the server is shedding
         *     load); retry after the number of seconds in `Retry-After`.
         */
        ServiceUnavailable: {
            headers: {
                /** @description Seconds to wait before retrying. */
                "Retry-After"?: number;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ServiceUnavailableError"];
            };
        };
        /**
         * @description Too many failed authentications (failed sign-ins, and unknown invitation tokens, counted as failed sign-ins
         *     with the email address `invitation`); nothing was checked. Failures in any window (the server's settings; by default
         *     15 minutes) are limited to 10 per client address and email address together, 50 per client address (failed
         *     sign-ins here and failed Basic authentications on the compliance and conductor APIs together) and 100 per
         *     email address across all client addresses. The last counts against an address only once that address has
         *     failed with that email in the window, so a user with the right password, from an address that has not failed,
         *     is never refused because of guesses from elsewhere, while a guess spread over many addresses gets one try per
         *     address once the email's ceiling is reached. Past a limit every sign-in it covers is refused, even with the
         *     right password, and once an address reaches its own limit so is every call from it that needs a session,
         *     until the window has room again; a successful sign-in never clears the failures of other addresses.
         *     `Retry-After` gives the seconds to wait.
         */
        TooManyRequests: {
            headers: {
                /** @description Seconds to wait before trying again (at most the window, which is at most a day). */
                "Retry-After"?: number;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["TooManyRequestsError"];
            };
        };
        /**
         * @description No live session: the `console_session` cookie is missing, unknown, expired or signed out
         *     (message `Sign in required`), or, for signIn, the email address and password do not match an organization
         *     user (message `Invalid email or password`; the same for an unknown email and a wrong password).
         */
        Unauthorized: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["AuthenticationError"];
            };
        };
    };
    parameters: {
        /**
         * @description The API client's id (its Basic-auth user name). An id of another organization's client is answered 404, as is an unknown one.
         * @example cl_7Hq2Lm9Xz4Rt8Vb1Nc3Kd5
         */
        client_id: string;
        /**
         * @description The invitation's token: the part after `#` of the link its email carries (32 random bytes, base64url without padding). The server keeps only its SHA-256 hash, and never writes the token to its log.
         * @example nkK8UQRVxTZrR53FqglFnCjaLTw2VGtz9n8OQ5iRG8Y
         */
        token: string;
    };
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    listApiClients: {
        parameters: {
            query?: {
                /** @description Page size; the console table's page sizes 10, 20, 50 and 100. Other values are answered 400. */
                max_items?: 10 | 20 | 50 | 100;
                /** @description Number of clients to skip, in the requested order; at most 2^53 - 1 (a larger value is a 400). */
                offset?: number;
                /** @description The column to sort by (see the operation description). */
                order_by?: "name" | "client_id" | "secret_age" | "last_activity";
                /** @description Sort direction. */
                order_direction?: "asc" | "desc";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of API clients. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiClients"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    createApiClient: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateApiClientInput"];
            };
        };
        responses: {
            /** @description The new client: status `Created` without a secret, or, with `with_secret: true`, `Active` with `client_secret`. */
            201: {
                headers: {
                    /** @description The answer may carry a secret and must not be cached. */
                    "Cache-Control"?: "no-store";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NewApiClient"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getApiClient: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The API client's id (its Basic-auth user name). An id of another organization's client is answered 404, as is an unknown one.
                 * @example cl_7Hq2Lm9Xz4Rt8Vb1Nc3Kd5
                 */
                client_id: components["parameters"]["client_id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The API client. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiClient"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    deleteApiClient: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The API client's id (its Basic-auth user name). An id of another organization's client is answered 404, as is an unknown one.
                 * @example cl_7Hq2Lm9Xz4Rt8Vb1Nc3Kd5
                 */
                client_id: components["parameters"]["client_id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    generateApiClientSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The API client's id (its Basic-auth user name). An id of another organization's client is answered 404, as is an unknown one.
                 * @example cl_7Hq2Lm9Xz4Rt8Vb1Nc3Kd5
                 */
                client_id: components["parameters"]["client_id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The new secret, shown only here, and the client, now `Active`. */
            201: {
                headers: {
                    /** @description The answer carries a secret and must not be cached. */
                    "Cache-Control"?: "no-store";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiClientSecret"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    revokeApiClientSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The API client's id (its Basic-auth user name). An id of another organization's client is answered 404, as is an unknown one.
                 * @example cl_7Hq2Lm9Xz4Rt8Vb1Nc3Kd5
                 */
                client_id: components["parameters"]["client_id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The client, now `Secret Revoked`. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiClient"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getInvitation: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The invitation's token: the part after `#` of the link its email carries (32 random bytes, base64url without padding). The server keeps only its SHA-256 hash, and never writes the token to its log.
                 * @example nkK8UQRVxTZrR53FqglFnCjaLTw2VGtz9n8OQ5iRG8Y
                 */
                token: components["parameters"]["token"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The invitation, still `PENDING`. */
            200: {
                headers: {
                    /** @description The answer is one person's invitation and must not be cached. */
                    "Cache-Control"?: "no-store";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Invitation"];
                };
            };
            400: components["responses"]["BadRequest"];
            404: components["responses"]["InvitationNotFound"];
            410: components["responses"]["Gone"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    acceptInvitation: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The invitation's token: the part after `#` of the link its email carries (32 random bytes, base64url without padding). The server keeps only its SHA-256 hash, and never writes the token to its log.
                 * @example nkK8UQRVxTZrR53FqglFnCjaLTw2VGtz9n8OQ5iRG8Y
                 */
                token: components["parameters"]["token"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AcceptInvitationInput"];
            };
        };
        responses: {
            /** @description Accepted. The body is the new user's session; `Set-Cookie` carries the session cookie. */
            200: {
                headers: {
                    /** @description The answer carries the CSRF token and must not be cached. */
                    "Cache-Control"?: "no-store";
                    /** @description `console_session=<opaque>; Max-Age=43200; Path=/console; HttpOnly; SameSite=Strict`, plus `Secure` over TLS, as signIn's. The `default` shown is what the Prism mock sends. */
                    "Set-Cookie"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Session"];
                };
            };
            400: components["responses"]["BadRequest"];
            404: components["responses"]["InvitationNotFound"];
            /** @description The invited email address already belongs to a user. Nothing changed; the invite stays `PENDING`. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConflictError"];
                };
            };
            410: components["responses"]["Gone"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getSession: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The current session. */
            200: {
                headers: {
                    /** @description The answer carries the CSRF token and must not be cached. */
                    "Cache-Control"?: "no-store";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Session"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    signIn: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SignInInput"];
            };
        };
        responses: {
            /** @description Signed in. The body is the new session; `Set-Cookie` carries the session cookie. */
            200: {
                headers: {
                    /** @description The answer carries the CSRF token and must not be cached. */
                    "Cache-Control"?: "no-store";
                    /** @description `console_session=<opaque>; Max-Age=43200; Path=/console; HttpOnly; SameSite=Strict`, plus `Secure` when the request came over TLS (behind a proxy that terminates TLS, when the server trusts that proxy's `X-Forwarded-Proto`: the `TRUST_PROXY` setting). The `default` shown is what the Prism mock sends. */
                    "Set-Cookie"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Session"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    signOut: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Signed out; the session cookie is cleared. */
            204: {
                headers: {
                    /** @description `console_session=; Max-Age=0; Path=/console; HttpOnly; SameSite=Strict` (clears the cookie), plus `Secure` as on sign-in. */
                    "Set-Cookie"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
}
