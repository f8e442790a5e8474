/**
 * Generated from specs/compliance/ by `make generate`. Do not edit: change the spec and regenerate.
 */

export interface paths {
    "/environments": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List environments
         * @description Lists the organization's environments (those the caller's groups cover), sorted by `order_by` and
         *     `order_direction` (default newest first), optionally filtered by `query`.
         */
        get: operations["listEnvironments"];
        put?: never;
        /**
         * Create an environment
         * @description Creates an environment. See `CreateEnvironmentInput` for the validation rules. `scan_interval` and
         *     `scan_schedule_enabled` may be sent as strings; they are answered as an integer and a boolean. The environment
         *     has no baseline, drift detection and remediation are off, and no scan has run (`scan_status` is `null`).
         *     An organization has at most 500 environments, a setting of the server (`MAX_ENVIRONMENTS_PER_ORG`): one more
         *     is a 409 `Conflict` naming the setting and its value, e.g. `this organization has 500 environments, the most it
         *     may have (MAX_ENVIRONMENTS_PER_ORG=500)`, and nothing is created; deleting one makes room.
         */
        post: operations["createEnvironment"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/environments/{environment_id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description Id of the environment.
                 * @example 3f1c2a9e-8b7d-4c6e-9f10-2a3b4c5d6e7f
                 */
                environment_id: components["parameters"]["environment_id_path"];
            };
            cookie?: never;
        };
        /**
         * Get an environment
         * @description Returns one environment with the compliance summary of its latest successful scan (`null` before the first one).
         */
        get: operations["getEnvironment"];
        put?: never;
        post?: never;
        /**
         * Delete an environment
         * @description Deletes the environment with its scans, results and events; a scan in progress is stopped, and the environment
         *     is removed from notifications and groups. No body is returned.
         */
        delete: operations["deleteEnvironment"];
        options?: never;
        head?: never;
        /**
         * Update an environment
         * @description Changes the fields sent; absent fields are unchanged. Also sets or clears the baseline (`baseline_id`, which
         *     turns drift detection on or off) and switches remediation. See `UpdateEnvironmentInput` for the rules: the
         *     region list is replaced as a whole; only environments created after 28 April 2020 that show `regions` can
         *     change regions (one created with the deprecated `region`, or earlier, cannot); standard and government
         *     regions cannot be swapped; `scan_interval` is at least 600 seconds and its change
         *     reschedules the next scan at once (next scan = max(end of last scan, this change) + interval).
         */
        patch: operations["updateEnvironment"];
        trace?: never;
    };
    "/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List events of an environment
         * @description Lists the compliance, drift and remediation (baseline enforcement) events recorded by the scans of one
         *     environment, newest first. Events are pulled: there is no inbound push channel (see notifications for
         *     outbound delivery). Filters combine with AND; values of one repeatable filter combine with OR. `change` and
         *     `resource_type` match the event's `resource_diff` or `compliance_diff`.
         */
        get: operations["listEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/groups": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List groups
         * @description Lists the organization's groups by name (ascending by default), 10 per page by default. A caller in groups lists
         *     only the groups over named environments its groups let it read, every one of them (not those over `"*"` unless
         *     its groups cover `"*"`); offsets count only what it sees.
         */
        get: operations["listGroups"];
        put?: never;
        /**
         * Create a group
         * @description Creates a group granting `policy` over `environment_ids` (`["*"]` = all current and future environments) to
         *     its future members. It starts without users or API clients; add users with `PATCH /users`. A 400 `BadRequest`
         *     when a group of that name (compared case-insensitively) exists; 404 when an environment id is unknown, naming it; `*` mixed
         *     with environment ids is a 400. A caller in groups needs `builtin:MANAGER` in one of them, and its groups must
         *     grant at least `policy` over every environment in `environment_ids` (over all of them for `["*"]`), else 403
         *     (see Access control): it cannot give itself, or anyone, more than it holds. An organization has at most 100
         *     groups, a setting of the server (`MAX_GROUPS_PER_ORG`): one more is a 409 `Conflict` naming the setting and its
         *     value, e.g. `this organization has 100 groups, the most it may have (MAX_GROUPS_PER_ORG=100)`, and nothing is
         *     created.
         */
        post: operations["createGroup"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/invites": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List invites
         * @description Lists the organization's invites by `created_at`, newest first by default, optionally only those of one email address.
         */
        get: operations["listInvites"];
        put?: never;
        /**
         * Invite a person
         * @description Invites an email address (compared case-insensitively, stored in lower case) into the organization with the
         *     given groups; the invited person accepts it in the web console. It expires 7 days after creation unless
         *     `expires` is `false`. A 400 `AlreadyInvitedError` when a `PENDING` invite for that address exists (an `EXPIRED`
         *     invite does not block a new one), a 400 `AlreadyAttachedToTenantError` when the address already belongs to a
         *     user of the organization; 404 when a group id is unknown, naming
         *     it. A caller in groups needs `builtin:MANAGER` in one of them, and its groups must grant at least each group's
         *     policy over every environment of that group (over all of them for a group covering `*`), else 403 (see Access
         *     control).
         *
         *     Delivery: when the server has an SMTP server (its `SMTP_URL` setting), the invite is emailed to the address in
         *     the background, right after the answer (the answer does not wait for it): the message names the organization,
         *     the groups and the expiry, and carries a one-time link into the web console,
         *     `<server>/console/invitation#<token>`, where `<server>` is the server's `PUBLIC_URL` setting or else the scheme
         *     and host this request was sent to, and `<token>` 32 random bytes (base64url) of which only the SHA-256 hash is
         *     kept. A failed send is retried with growing delays, 5 attempts in all; each attempt carries a new link, and only
         *     the latest works. When the last attempt fails too, the invite expires at once with the reason in its
         *     `delivery_error`, so that the address may be invited again. Without an SMTP server nothing is sent.
         *
         *     Acceptance: the link's page (the console API's getInvitation and acceptInvitation) lets the person choose a
         *     password (at least 12 characters) while the invite is `PENDING`. Accepting creates, in one transaction, a user
         *     of the organization with the invite's email, `ACTIVE` and not an owner, in the invite's groups that still exist
         *     (listed by `GET /users` from then on); the invite becomes `ACCEPTED` (`updated_at` the time of acceptance) and
         *     the link stops working; the person is signed in to the console, where what they may do follows their groups.
         *     An accepted invite's link is answered `410`, as is an expired one, or one whose groups were all deleted. An
         *     address that belongs to a user of another organization cannot accept (an address signs in to one organization
         *     only): the console answers `409` and the invite stays `PENDING`.
         */
        post: operations["createInvite"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/invites/{invite_id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description Id of the invite.
                 * @example 8e0a2c4e-6a8c-4e0a-8c2e-4a6c8e0a2c4e
                 */
                invite_id: components["parameters"]["invite_id_path"];
            };
            cookie?: never;
        };
        /**
         * Get an invite
         * @description Returns one invite.
         */
        get: operations["getInviteById"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metadata/{provider}/permissions": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The provider (`provider_b` has no role policy to generate).
                 * @example provider_a
                 */
                provider: "provider_a" | "provider_a_gov";
            };
            cookie?: never;
        };
        /**
         * Get the permissions needed to scan and remediate
         * @description Returns the role policy document and trust relationship the role named by an environment's `role_arn` needs,
         *     for scanning `survey_resource_type` types and remediating `remediate_resource_type` types (default: every
         *     supported type of the provider for both). Types not supported by the provider are a 400. (The public service
         *     offered this as `POST` with a body; here it is `GET` with query parameters.)
         */
        get: operations["getPermissions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metadata/{provider}/resource_types": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The provider.
                 * @example provider_a
                 */
                provider: "provider_a" | "provider_a_gov" | "provider_b";
            };
            cookie?: never;
        };
        /**
         * List supported resource types of a provider
         * @description Lists the resource types the provider supports, computed from the service's catalog, and the subset recommended
         *     for scanning. For `provider_a` and `provider_a_gov`, most types are regional: send `region` to list the types
         *     of that region too (`*` = types of any region of the provider); global (non-regional) types are always listed,
         *     with or without `region`. A region of another provider's partition (e.g. a government region for `provider_a`)
         *     is a 400. `provider_b` types do not depend on the region.
         */
        get: operations["getResourceTypes"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/notifications": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List notifications
         * @description Lists the organization's notifications, oldest first. There is no operation to get a single notification; page
         *     through this list. A caller in groups lists only the notifications that watch named environments its groups let
         *     it read, every one of them (not those over `"*"` unless its groups cover `"*"`): what is sent about other
         *     environments, and their ids, stay hidden; offsets count only what it sees. The delivery attempts of one notification are listed by `GET /notifications/{notification_id}/deliveries`.
         */
        get: operations["listNotifications"];
        put?: never;
        /**
         * Create a notification
         * @description Creates a notification. After each scan of a watched environment, the scan's events of the chosen kinds are
         *     delivered: by email to `emails` through the configured SMTP server, and by webhook as an HTTP POST to
         *     `webhook_url` signed with the header `X-Signature-256: sha256=<hex HMAC-SHA256 of the raw body, keyed with
         *     webhook_secret>`. Failed deliveries are retried with exponential backoff (up to 5 attempts); the outcome shows in
         *     `last_error` and `last_delivery_at`, and every attempt in `GET /notifications/{notification_id}/deliveries`. At
         *     least one of `emails` or `webhook_url` is required. An environment id that does not name an environment of the
         *     organization is a 400 naming the id. A `webhook_url` on an IP address outside public unicast space is a 400
         *     unless the server runs with `WEBHOOK_ALLOW_PRIVATE=true`. A caller in groups needs `builtin:EDITOR` or more over
         *     every environment in `environments` (from a group covering `*` for `["*"]`), else 403 (see Access control).
         *     An organization has at most 100 notifications, a setting of the server (`MAX_NOTIFICATIONS_PER_ORG`), each with
         *     at most 100 `emails` and one `webhook_url`: one more notification is a 409 `Conflict` naming the setting and its
         *     value, e.g. `this organization has 100 notifications, the most it may have (MAX_NOTIFICATIONS_PER_ORG=100)`, and
         *     nothing is created; deleting one makes room.
         */
        post: operations["createNotification"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/notifications/{notification_id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description Id of the notification (its `notification_id`).
                 * @example 2c4e6a8b-0d1f-4a3c-8e5b-7d9f1a3c5e7b
                 */
                notification_id: components["parameters"]["notification_id_path"];
            };
            cookie?: never;
        };
        get?: never;
        /**
         * Replace a notification
         * @description Replaces the notification with the body (PUT: a full replace; absent optional fields become empty), except
         *     that an absent `webhook_secret` keeps the stored secret, since it cannot be read back. Same rules as creation.
         *     Deliveries already queued use the notification as it is when they are sent. Another organization's
         *     notification is a 404. A caller in groups needs `builtin:EDITOR` or more over every environment the
         *     notification watches now and over every one in `environments`, else 403 (see Access control).
         */
        put: operations["updateNotification"];
        post?: never;
        /**
         * Delete a notification
         * @description Deletes the notification and its recorded delivery attempts; deliveries not yet sent are dropped. No body is
         *     returned. A caller in groups needs `builtin:EDITOR` or more over every environment the notification watches,
         *     else 403 (see Access control).
         */
        delete: operations["deleteNotification"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/notifications/{notification_id}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description Id of the notification (its `notification_id`).
                 * @example 2c4e6a8b-0d1f-4a3c-8e5b-7d9f1a3c5e7b
                 */
                notification_id: components["parameters"]["notification_id_path"];
            };
            cookie?: never;
        };
        /**
         * List delivery attempts of a notification
         * @description Lists every recorded attempt to deliver the notification, newest first: one entry per attempt, per transport
         *     (`webhook`, `email`), with its outcome. Attempts of one delivery share a `delivery_id`, which is also the
         *     `X-Delivery-Id` header of its webhook requests. Attempts still waiting for their backoff to end are not listed
         *     until they are made. Another organization's notification is a 404. A caller in groups needs `builtin:READONLY`
         *     or more over every environment the notification watches, else 403 (see Access control).
         */
        get: operations["listNotificationDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/rules": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List custom rules
         * @description Lists the organization's custom rules by name, optionally filtered by `query` and `status`.
         */
        get: operations["listCustomRules"];
        put?: never;
        /**
         * Create a custom rule
         * @description Creates a custom rule, `ENABLED`: a CEL (Common Expression Language) expression evaluated per resource of
         *     `resource_type` with the variable `resource` bound to the resource's JSON document (see
         *     `GET /rules/test/input`); `true` passes, `false` fails. It joins every later scan of environments of its
         *     providers. A `rule_text` that does not compile, or does not yield a bool, is a 400 whose message carries the
         *     compiler's message and its `line:column`, e.g. `rule_text: 1:1: Unknown variable: resourc`. Warnings (the text
         *     compiles but probably does not do what was meant) are returned in `errors`. 409 when a custom rule of that name
         *     (compared case-insensitively) exists in the organization. An organization has at most 200 custom rules, a
         *     setting of the server (`MAX_CUSTOM_RULES_PER_ORG`), each `rule_text` at most 65 536 characters and all of them
         *     together at most 2 097 152 characters (`MAX_CUSTOM_RULE_TEXT_PER_ORG`): a rule past either is a 409 `Conflict`
         *     naming the setting and its value, e.g. `this organization has 200 custom rules, the most it may have
         *     (MAX_CUSTOM_RULES_PER_ORG=200)` or `this organization would have 2097200 characters of rule text, more than the
         *     2097152 it may have (MAX_CUSTOM_RULE_TEXT_PER_ORG=2097152)`, and nothing is created; deleting one, or shortening
         *     one's text, makes room.
         */
        post: operations["createCustomRule"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/rules/{rule_id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description Id of the custom rule.
                 * @example 5d7f9b1d-3f5a-4c7e-9a0c-2e4a6c8e0a2c
                 */
                rule_id: components["parameters"]["rule_id_path"];
            };
            cookie?: never;
        };
        /**
         * Get a custom rule
         * @description Returns one custom rule.
         */
        get: operations["getCustomRule"];
        put?: never;
        post?: never;
        /**
         * Delete a custom rule
         * @description Deletes the rule; scans that start afterwards no longer evaluate it. Compliance results list the custom rules
         *     the organization has enabled when they are read, so the results of earlier scans no longer list it either. No
         *     body is returned.
         */
        delete: operations["deleteCustomRule"];
        options?: never;
        head?: never;
        /**
         * Update a custom rule
         * @description Changes the fields sent; absent fields are unchanged. The rule as it ends up must be valid as on create: its
         *     text must compile (400 with the compiler's message and `line:column` otherwise), its providers must match the
         *     prefix of its resource type and its families must be valid for its providers. A new `name` must not be taken by
         *     another custom rule of the organization (409). A new `rule_text` that makes the organization's rules hold more
         *     than `MAX_CUSTOM_RULE_TEXT_PER_ORG` characters together is a 409 naming the setting, as on create, and changes
         *     nothing; a change that does not lengthen the text is never refused for it. `status` enables or disables the rule; the change applies to
         *     scans that start afterwards (and, as compliance results list the rules enabled when they are read, to the
         *     results shown for earlier scans).
         */
        patch: operations["updateCustomRule"];
        trace?: never;
    };
    "/rules/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Test a custom rule against a scan
         * @description Evaluates a CEL rule text, without saving it, on every resource of `resource_type` in the scan `scan_id`, with the
         *     variable `resource` bound to each resource's JSON document (the documents `GET /rules/test/input` returns).
         *     A `rule_text` that does not compile is a 400 whose message carries the compiler's message and position
         *     (`line:column`), e.g. `rule_text: 1:1: Unknown variable: resourc`. The scan must be a `SUCCESS` scan of the
         *     caller's organization: an unknown scan is a 404, a scan that did not succeed a 400; a caller in groups needs
         *     `builtin:EDITOR` or more over the scan's environment, else 403 (see Access control). A resource type the scan's
         *     provider does not support is a 400. Every resource of the type is evaluated and counts in `result` and
         *     `resource_count`; `resources` lists the first 1000 by resource id (`is_truncated` tells whether more exist).
         *
         *     Regular expressions (`matches`) follow RE2 syntax and run in time linear in the text, as CEL specifies: a
         *     constant pattern RE2 does not accept (backreferences, lookaround) is a 400 at its position. Each evaluation has
         *     a budget of work (characters scanned or built by `matches`, `split` and `join`) and of time (250 ms); a rule
         *     over it on any resource is a 400 `rule_text: the rule exceeded its evaluation budget …`, and in a scan its
         *     result for that resource is `ERROR`.
         *
         *     With `via_download=true` the answer also carries `links.output`, a URL relative to the server's root (e.g.
         *     `/v0/rules/test/outputs/…`) where a `GET` downloads the same document (`getCustomRuleTestOutput`) for an hour,
         *     by any caller of the organization with `builtin:EDITOR` or more over the scan's environment. The answer is kept
         *     for that: an organization keeps its 20 newest, so a 21st replaces the oldest.
         */
        post: operations["testCustomRule"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/rules/test/input": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the input of a custom rule test
         * @description Returns the JSON documents of the resources of `resource_type` in the scan `scan_id`: exactly what a CEL rule
         *     sees as the variable `resource`, one evaluation per document. Use it to write and debug `rule_text`. Without
         *     `resource_type`, the documents of every resource type of the scan (`resource_type` is `null` in the answer). At
         *     most 1000 documents are returned, the first by resource id; `is_truncated` tells whether the scan holds more.
         *
         *     With `via_download=true` the answer also carries `links.output`, a URL relative to the server's root (e.g.
         *     `/v0/rules/test/input?scan_id=…&resource_type=…`) where a `GET` with the same credentials downloads the same
         *     JSON document. Nothing is stored: the link asks this operation again, without `via_download`, so it stays
         *     valid as long as the scan exists and answers what the scan holds then (a scan's resources never change). The
         *     scan must be a `SUCCESS` scan of the caller's organization: an unknown scan is a 404, a scan that did not
         *     succeed a 400. A caller in groups needs `builtin:EDITOR` or more over the scan's environment, else 403 (see
         *     Access control). A resource type the scan's provider does not support is a 400.
         */
        get: operations["testCustomRuleInput"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/rules/test/outputs/{output_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Download the answer of a custom rule test
         * @description Returns the answer of a `POST /rules/test?via_download=true`, as that request was answered but for `links`: the
         *     URL its `links.output` named. An answer is kept an hour after the test, and an organization keeps its 20 newest;
         *     past that, or for an id the organization never had, a 404. A caller in groups needs `builtin:EDITOR` or more
         *     over the tested scan's environment, as the test did, else 403 (see Access control).
         */
        get: operations["getCustomRuleTestOutput"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/scans": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List scans of an environment
         * @description Lists the scans of one environment, newest first by default, optionally filtered by status and by a `created_at` range.
         */
        get: operations["listScans"];
        put?: never;
        /**
         * Start a scan
         * @description Starts an on-demand scan of the environment at once, whatever its schedule; the answer is the new scan with
         *     status `IN_PROGRESS`. Poll `GET /scans/{scan_id}` until it is `SUCCESS` or `ERROR`. Only one scan of an
         *     environment runs at a time: while one is in progress (on demand or scheduled) this is a 400
         *     `WorkAlreadyStartedException` (400, as the public service answers it, so that clients generated from its spec
         *     show the message). When the scan ends, the next scheduled scan is planned `scan_interval` seconds later.
         */
        post: operations["createScan"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/scans/{scan_id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description Id of the scan.
                 * @example 7b2e4f6a-1c3d-4e5f-8a9b-0c1d2e3f4a5b
                 */
                scan_id: components["parameters"]["scan_id_path"];
            };
            cookie?: never;
        };
        /**
         * Get a scan
         * @description Returns one scan with its compliance summary (`null` unless `SUCCESS`) and the resource types that could not be scanned.
         */
        get: operations["getScan"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/scans/{scan_id}/compliance_by_resource_types": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description Id of the scan.
                 * @example 7b2e4f6a-1c3d-4e5f-8a9b-0c1d2e3f4a5b
                 */
                scan_id: components["parameters"]["scan_id_path"];
            };
            cookie?: never;
        };
        /**
         * List compliance results of a scan by resource type
         * @description Lists, for a `SUCCESS` scan, per resource type: how many resources were evaluated and passed, and each failing
         *     resource with the rules it fails, sorted by resource type. `family` limits the rules considered. A scan that is
         *     not `SUCCESS` has no results: its page is empty.
         */
        get: operations["getComplianceByResourceTypes"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/scans/{scan_id}/compliance_by_rules": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description Id of the scan.
                 * @example 7b2e4f6a-1c3d-4e5f-8a9b-0c1d2e3f4a5b
                 */
                scan_id: components["parameters"]["scan_id_path"];
            };
            cookie?: never;
        };
        /**
         * List compliance results of a scan by rule
         * @description Lists, for a `SUCCESS` scan, the result of every rule per control of the environment's compliance families
         *     (a control maps to one or more rules; a control passes when all its rules pass), sorted by family and control.
         *     A scan that is not `SUCCESS` has no results: its page is empty.
         */
        get: operations["getComplianceByRules"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/swagger": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the API description
         * @description Returns this API's description, the bundled Swagger 2.0 (OpenAPI 2.0) document from which clients can be
         *     generated: as YAML (`application/yaml`, byte for byte the published bundle) unless the request's `Accept`
         *     header prefers `application/json`, which answers the same document as a JSON object. No authentication. An
         *     unknown query parameter is a 400.
         */
        get: operations["getSwagger"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/users": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List users
         * @description Lists the organization's users by creation time, newest first by default, optionally only the user with one email address. A person invited (`POST /invites`) is listed once they accepted the invite in the web console, with the invite's groups, and not before.
         */
        get: operations["listUsers"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Edit users' group assignments
         * @description Sets the group memberships of several users at once: each user in `user_ids` ends up in exactly the groups in
         *     `group_ids` (`[]` removes them from every group). All or nothing: an unknown user or group id is a 404 and
         *     nothing changes. Answers 200 with an empty body. A caller in groups needs `builtin:MANAGER` in one of them, and
         *     its groups must grant at least the policy of each group in `group_ids`, and of each group the users are in now
         *     (which they may leave), over every environment of that group (over all of them for a group covering `*`), else
         *     403 and nothing changes (see Access control).
         */
        patch: operations["editUsersGroupAssignments"];
        trace?: never;
    };
    "/users/{user_id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description Id of the user.
                 * @example 1f3b5d7f-9b1d-4f3b-8d5f-7b9d1f3b5d7f
                 */
                user_id: components["parameters"]["user_id_path"];
            };
            cookie?: never;
        };
        /**
         * Get a user
         * @description Returns one user of the organization.
         */
        get: operations["getUserById"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** @description One attribute change of a resource. */
        Attribute: {
            /**
             * @description `input`: a configurable attribute; `output`: a value computed by the provider.
             * @enum {string}
             */
            attr_type: "input" | "output";
            /** @description Attribute path, dot-separated for nested values (e.g. `versioning.enabled`). */
            name: string;
            /** @description Value after the change, JSON-encoded; `null` when removed or `sensitive`. At most 1 MiB of JSON text, like a request body. */
            new: string | null;
            /** @description Value before the change, JSON-encoded; `null` when absent before or `sensitive`. */
            old: string | null;
            /** @description The attribute was removed. */
            removed: boolean;
            /** @description Reverting this change needs the resource to be deleted and re-created. */
            requires_new: boolean;
            /** @description The value is secret; `old` and `new` are `null`. */
            sensitive: boolean;
        };
        /** @description Body of a 401 answer: credentials are missing or invalid. */
        AuthenticationError: {
            /**
             * Format: int32
             * @description The HTTP status, repeated.
             * @enum {integer}
             */
            code: 401;
            /** @description Human-readable detail; names the offending field or parameter and the rule it broke. */
            message: string;
            /**
             * @description Kind of error.
             * @enum {string}
             */
            type: "AuthenticationError";
        };
        /** @description Body of a 403 answer: the caller's group policy does not allow the operation. */
        AuthorizationError: {
            /**
             * Format: int32
             * @description The HTTP status, repeated.
             * @enum {integer}
             */
            code: 403;
            /** @description Human-readable detail; names the offending field or parameter and the rule it broke. */
            message: string;
            /**
             * @description Kind of error.
             * @enum {string}
             */
            type: "AuthorizationError" | "EnvironmentAccessDenied";
        };
        /** @description Body of a 400 answer: the request is invalid. */
        BadRequestError: {
            /**
             * Format: int32
             * @description The HTTP status, repeated.
             * @enum {integer}
             */
            code: 400;
            /** @description Human-readable detail: every problem the request validation found (at most 100, then `and N more problems`), each as `field: rule`, separated by `; `. A rule checked after validation (e.g. a baseline that is not a SUCCESS scan) is reported alone. At most 16384 characters: a longer one (it names what the request sent) is cut, ending in `…`. */
            message: string;
            /**
             * @description Kind of error.
             * @enum {string}
             */
            type: "BadRequest" | "InvalidJSON" | "InvalidParameterValue" | "MissingParameter" | "AlreadyInvitedError" | "AlreadyAttachedToTenantError" | "WorkAlreadyStartedException";
        };
        /** @description Compliance of the resources of one type in a scan. */
        ComplianceByResourceType: {
            /**
             * Format: int64
             * @description Number of resources passing every evaluated rule.
             */
            compliant: number;
            /** @description The failing resources (a list, not a count): the first 100 by resource id, each with the rules it fails; see `noncompliant_count` for how many there are. */
            noncompliant: components["schemas"]["NonCompliantResource"][];
            /**
             * Format: int64
             * @description How many resources of the type fail at least one rule (of the requested families).
             */
            noncompliant_count: number;
            resource_type: components["schemas"]["ResourceType"];
            /**
             * Format: int64
             * @description Resources of this type evaluated.
             */
            total: number;
        };
        /** @description A page of compliance results by resource type. */
        ComplianceByResourceTypeOutput: {
            /**
             * Format: int64
             * @description Number of items in this page.
             */
            count: number;
            /** @description Whether more items exist past this page. */
            is_truncated: boolean;
            /** @description The page. At most 1000, the largest `max_items`. */
            items: components["schemas"]["ComplianceByResourceType"][];
            /**
             * Format: int64
             * @description Present only when `is_truncated` is true; the `offset` of the next page.
             */
            next_offset?: number;
        };
        /**
         * @description The result of one rule for one control of a compliance family in a scan. `PASS` when the rule passes on every
         *     resource of its types, `FAIL` when a resource fails it (`failed_resources`) or a required resource type has no
         *     resource (`failed_resource_types`), `UNKNOWN` when some of its types were not in the environment's
         *     `survey_resource_types` (`unsurveyed_resource_types`).
         */
        ComplianceByRule: {
            /**
             * Format: int64
             * @description How many resources fail the rule. `failed_resources` lists the first 100 of them by resource id, so that a page stays small even for accounts with many thousands of failing resources.
             */
            failed_resource_count: number;
            /** @description Failures caused by a required resource being missing. */
            failed_resource_types: {
                /** @description Failure messages. */
                messages: string[];
                resource_type: components["schemas"]["ResourceType"];
            }[];
            /** @description Resources that fail the rule, with the rule's messages (at most 100, by resource id; see `failed_resource_count`). */
            failed_resources: {
                /** @description Failure messages. */
                messages: string[];
                resource: components["schemas"]["Resource"];
            }[];
            family: components["schemas"]["ComplianceFamily"];
            /**
             * @description Result of the rule.
             * @enum {string}
             */
            result: "PASS" | "FAIL" | "UNKNOWN";
            /** @description Name of the control, e.g. `CIS 2.1.1`, `NIST AC-3`. */
            rule: string;
            /** @description Id of the rule evaluated for the control (a built-in rule id, or a custom rule's UUID). */
            rule_id: string;
            severity: components["schemas"]["RuleSeverity"];
            /** @description Types the rule needs that were not scanned, causing `UNKNOWN`. */
            unsurveyed_resource_types: components["schemas"]["ResourceType"][];
        };
        /** @description A page of compliance results by rule (control). */
        ComplianceByRules: {
            /**
             * Format: int64
             * @description Number of items in this page.
             */
            count: number;
            /** @description Whether more items exist past this page. */
            is_truncated: boolean;
            /** @description The page. At most 1000, the largest `max_items`. */
            items: components["schemas"]["ComplianceByRule"][];
            /**
             * Format: int64
             * @description Present only when `is_truncated` is true; the `offset` of the next page.
             */
            next_offset?: number;
        };
        /** @description How a resource's compliance changed since the previous scan. */
        ComplianceDiff: {
            /** @description Compliance of the resource in this scan, `COMPLIANT`, `NONCOMPLIANT` or `UNKNOWN`; `null` when it no longer exists. */
            new_state: string | null;
            /** @description Compliance of the resource in the previous scan, `COMPLIANT`, `NONCOMPLIANT` or `UNKNOWN`; `null` when it did not exist then. */
            old_state: string | null;
            /** @description The provider's id of the resource. */
            resource_id: string;
            resource_type: components["schemas"]["ResourceType"];
            /** @description Rule evaluations that changed. At most 10000: the built-in rules of the resource's type (at most 10 today) and the organization's custom rules for it. */
            rules: {
                /** @description Families whose controls map to the rule. */
                compliance_families: components["schemas"]["ComplianceFamily"][];
                /** @description Controls that map to the rule, e.g. `CIS 2.1.1`. At most 100 (a built-in rule maps to at most 13 today, a custom rule to one per family). */
                controls: string[];
                /** @description Failure message now; `null` unless it fails. A failure message: a rule's message or description (at most 4096 characters), or why the rule could not be evaluated, which may quote the rule text (at most 65536). */
                new_message: string | null;
                /** @description Result now, `PASS`, `FAIL` or `UNKNOWN`; `null` when the rule no longer evaluates the resource. */
                new_state: string | null;
                /** @description Failure message before; `null` unless it failed. */
                old_message: string | null;
                /** @description Result before, `PASS`, `FAIL` or `UNKNOWN`; `null` when the rule did not evaluate the resource then. */
                old_state: string | null;
                /** @description Id of the rule (built-in id or custom rule UUID). */
                rule_id: string;
                /** @description Summary (title) of the rule. */
                summary: string;
            }[];
        };
        /**
         * @description A compliance family (a framework whose controls the scan evaluates). Families valid per provider:
         *     `provider_a` and `provider_a_gov`: `CIS`, `CISCONTROLS`, `CSACCM`, `FBP`, `GDPR`, `HIPAA`, `ISO27001`, `NIST`,
         *     `PCI`, `SOC2`. `provider_b`: `CSACCM`, `CISPROVB`, `CISCONTROLSPROVB`, `GDPRPROVB`, `HIPAAPROVB`,
         *     `ISO27001PROVB`, `NISTPROVB`, `PCIPROVB`, `SOC2PROVB`. A family not valid for the environment's provider is a 400.
         * @example CIS
         * @enum {string}
         */
        ComplianceFamily: "CIS" | "CISCONTROLS" | "CSACCM" | "FBP" | "GDPR" | "HIPAA" | "ISO27001" | "NIST" | "PCI" | "SOC2" | "CISPROVB" | "CISCONTROLSPROVB" | "GDPRPROVB" | "HIPAAPROVB" | "ISO27001PROVB" | "NISTPROVB" | "PCIPROVB" | "SOC2PROVB";
        /** @description Body of a 409 answer: the request conflicts with the current state. */
        ConflictError: {
            /**
             * Format: int32
             * @description The HTTP status, repeated.
             * @enum {integer}
             */
            code: 409;
            /** @description Human-readable detail; names the offending field or parameter and the rule it broke. */
            message: string;
            /**
             * @description Kind of error.
             * @enum {string}
             */
            type: "Conflict";
        };
        /**
         * @description A new custom rule; it starts `ENABLED`. `rule_text` is a CEL expression over the variable `resource`; text that
         *     does not compile is a 400 whose message carries the compiler's message and position (`line:column`), and an
         *     expression that is not boolean is a 400 too. `providers` must match the prefix of `resource_type`
         *     (`PROVA` for `PROVIDER_A` / `PROVIDER_A_GOV`, `PROVB` for `PROVIDER_B`), and every one of them must support
         *     `resource_type`; when neither `providers` nor the deprecated `provider` is sent, it defaults to every provider of
         *     that prefix. `severity` defaults to `Medium`. `families` must be valid for every provider of the rule.
         * @example {
         *       "name": "Bucket versioning enabled",
         *       "description": "S3 buckets must keep versioning enabled so deleted objects can be recovered.",
         *       "providers": [
         *         "PROVIDER_A",
         *         "PROVIDER_A_GOV"
         *       ],
         *       "resource_type": "PROVA.S3.Bucket",
         *       "rule_text": "resource.properties.versioning == \"Enabled\"",
         *       "severity": "Medium",
         *       "source": "CUSTOM",
         *       "families": [
         *         "CIS"
         *       ]
         *     }
         */
        CreateCustomRuleInput: {
            /**
             * @description What the rule checks and how to fix a failure.
             * @default
             */
            description?: string;
            /**
             * @description Compliance families whose results include this rule, under the control `<family> CUSTOM <name>`. `[]` (the
             *     default): every family an environment's scan evaluates.
             *     `null` means not given: the default, as when the field is absent.
             */
            families?: components["schemas"]["ComplianceFamily"][] | null;
            /** @description Name of the rule. */
            name: string;
            provider?: components["schemas"]["CustomRuleProvider"];
            /** @description Providers the rule applies to (replaces the deprecated `provider`; when both are sent, `provider` must be in `providers`). `null` means not given: the default, as when the field is absent. */
            providers?: components["schemas"]["CustomRuleProvider"][] | null;
            resource_type: components["schemas"]["ResourceType"];
            /** @description The CEL expression; `resource` is the resource's JSON document. */
            rule_text: string;
            severity?: components["schemas"]["RuleSeverity"];
            /**
             * @description Origin of the rule; only `CUSTOM`.
             * @default CUSTOM
             * @enum {string}
             */
            source?: "CUSTOM";
        };
        /**
         * @description A new environment. Validation (each failure is a 400 naming the field):
         *     - `provider` and the single key of `provider_options` must agree.
         *     - `provider_a` / `provider_a_gov` need `role_arn` (partition `prova` resp. `prova-us-gov`) and either `regions`
         *       (preferred) or the deprecated `region` (one region, or `*`); regions must belong to the provider (government
         *       regions only for `provider_a_gov`), or be `*` alone. `provider_b` needs `subscription_id`.
         *     - `compliance_families` must be valid for the provider; resource types must be supported by the provider.
         *     - `scan_interval` is at least 600 seconds.
         *     - The baseline fields of seed section 2.2 are accepted with the state a new environment can have: it has no
         *       scans yet, so `baseline_id` can only be `null` or `""` (no baseline; a scan id is a 400 saying why), and
         *       `drift`, which is on exactly while a baseline is set, can only be `false`. Set a baseline with
         *       `PATCH /environments/{environment_id}` once a scan has succeeded. `remediation` (`provider_a` /
         *       `provider_a_gov` only) may be `true` at once, as a PATCH may turn it on in any state; it acts only while a
         *       baseline is set.
         *     - `id`, `tenant_id` and the other fields the server fills in (see `Environment`) are not accepted: a 400 naming
         *       the field.
         *     Creating an environment does not start a scan; with the schedule on, the first scheduled scan starts
         *     `scan_interval` seconds after creation (start one at once with `POST /scans`).
         * @example {
         *       "name": "production-us",
         *       "provider": "provider_a",
         *       "provider_options": {
         *         "provider_a": {
         *           "role_arn": "arn:prova:iam::123456789012:role/compliance-scanner",
         *           "regions": [
         *             "us-east-1",
         *             "us-west-2"
         *           ]
         *         }
         *       },
         *       "compliance_families": [
         *         "CIS",
         *         "NIST"
         *       ],
         *       "survey_resource_types": [
         *         "PROVA.S3.Bucket",
         *         "PROVA.EC2.SecurityGroup",
         *         "PROVA.IAM.User"
         *       ],
         *       "remediate_resource_types": [
         *         "PROVA.S3.Bucket"
         *       ],
         *       "scan_interval": "3600",
         *       "scan_schedule_enabled": "true"
         *     }
         */
        CreateEnvironmentInput: {
            /**
             * @description `null` or `""`: no baseline, the default and the only state of a new environment. Any scan id is a 400: a
             *     new environment has no scans yet. Set the baseline with `PATCH /environments/{environment_id}` once a scan
             *     of the environment has succeeded.
             */
            baseline_id?: string | null;
            /**
             * @description Compliance families to evaluate (valid for the provider, see `ComplianceFamily`). Default `[]`, which scans evaluate as every family of the provider. At most 18: each family of `ComplianceFamily` once. `null` means not given: the default, as when the field is absent.
             * @default []
             */
            compliance_families?: components["schemas"]["ComplianceFamily"][] | null;
            /**
             * @description Read-only in effect: drift detection is on exactly while a baseline is set, so a new environment has it off.
             *     `false` is accepted; `true` is a 400 saying to set a baseline instead.
             */
            drift?: boolean;
            /** @description Name of the environment. */
            name: string;
            provider: components["schemas"]["Provider"];
            provider_options: components["schemas"]["ProviderOptions"];
            /** @description Resource types the service may correct once remediation is turned on. Default `[]`. At most 100 (a provider's catalogue has 30 types; the bound leaves it room to grow). `null` means not given: the default, as when the field is absent. */
            remediate_resource_types?: components["schemas"]["ResourceType"][] | null;
            /**
             * @description Baseline enforcement, `provider_a` and `provider_a_gov` only (400 for `provider_b`). Default `false`. `true`
             *     turns it on at once; it acts only while a baseline is set, so nothing is corrected before one is.
             */
            remediation?: boolean;
            /**
             * @description Seconds between scheduled scans, at least 600, default 86400, at most 2^53 - 1 (9007199254740991); an integer or a string of digits; always answered as an integer.
             * @default 86400
             */
            scan_interval?: number | string;
            /**
             * @description Whether scheduled scans run; a boolean or the string `true` / `false`; always answered as a boolean. Default `true`.
             * @default true
             */
            scan_schedule_enabled?: boolean | ("true" | "false");
            /**
             * @description `provider_b` only (400 otherwise): resource groups to scan. Also accepted as
             *     `provider_options.provider_b.survey_resource_groups`; when both are sent they must be equal. Default `["*"]`:
             *     all resource groups, including ones created later.
             *     At most 980, the most resource groups a `provider_b` subscription holds.
             */
            survey_resource_groups?: string[];
            /** @description Resource types to scan. Default every type the provider supports (`resource_types` of `GET /metadata/{provider}/resource_types?region=*`), not only the `recommended_types`. At most 100 (a provider's catalogue has 30 types; the bound leaves it room to grow). `null` means not given: the default, as when the field is absent. */
            survey_resource_types?: components["schemas"]["ResourceType"][] | null;
        };
        /**
         * @description A new group. 409 when a group of that name exists; 404 when an environment id or API client id is unknown.
         * @example {
         *       "name": "Auditors",
         *       "policy": "builtin:AUDITOR",
         *       "environment_ids": [
         *         "*"
         *       ]
         *     }
         */
        CreateGroupInput: {
            /**
             * @description API clients in the group (at most 1000): from the next request on, each may do only what its groups grant
             *     (see Access control). 404 when a client id is unknown in the organization. Default `[]`.
             * @default []
             */
            api_client_ids?: string[];
            /**
             * @description Environments covered (at most 1000); `["*"]` alone means all current and future environments. Default `[]`.
             * @default []
             */
            environment_ids?: string[];
            /** @description Name of the group (unique in the organization). */
            name: string;
            /**
             * @description The policy the group grants (see `Group`).
             * @enum {string}
             */
            policy: "builtin:READONLY" | "builtin:AUDITOR" | "builtin:EDITOR" | "builtin:CONTRIBUTOR" | "builtin:MANAGER" | "builtin:ORGANIZATION_REPORT_VIEWER" | "builtin:IAC_SCANNER";
        };
        /**
         * @description A new invite. 400 (`AlreadyInvitedError`) when a `PENDING` invite for the address exists, 400
         *     (`AlreadyAttachedToTenantError`) when the address already belongs to a user of the organization; 404 when a group
         *     id is unknown.
         * @example {
         *       "email": "dana.lee@example.com",
         *       "group_ids": [
         *         "4c6e8a0c-2e4a-4c6e-8a0c-2e4a6c8e0a2c"
         *       ],
         *       "expires": true
         *     }
         */
        CreateInviteInput: {
            /**
             * Format: email
             * @description Address to invite.
             */
            email: string;
            /**
             * @description Whether the invite, and the link its email carries, expire (7 days after creation); `false` = they never expire.
             * @default true
             */
            expires?: boolean;
            /** @description Groups granted on acceptance (at most 100). */
            group_ids: string[];
        };
        /**
         * @description A new notification. At least one of `emails` (non-empty) or `webhook_url` is required (400 otherwise). With a `webhook_url`, `webhook_secret` is required; without one, a `webhook_secret` is ignored.
         * @example {
         *       "name": "Production drift",
         *       "events": [
         *         "drift",
         *         "remediation"
         *       ],
         *       "environments": [
         *         "3f1c2a9e-8b7d-4c6e-9f10-2a3b4c5d6e7f"
         *       ],
         *       "emails": [
         *         "secops@example.com"
         *       ],
         *       "webhook_url": "https://hooks.example.com/compliance",
         *       "webhook_secret": "9f8e7d6c5b4a39281706f5e4d3c2b1a0"
         *     }
         */
        CreateNotificationInput: {
            /** @description Email recipients. */
            emails?: string[];
            /** @description Ids of the environments to watch, or `["*"]` alone for all environments, including future ones. An id that names no environment of the organization is a 400. At most 1000, like the environments of a group. */
            environments: string[];
            /** @description Event kinds that trigger it. */
            events: ("compliance" | "drift" | "remediation")[];
            /** @description Name of the notification. */
            name: string;
            /** @description HMAC-SHA256 key for the `X-Signature-256` header of webhook deliveries; required with `webhook_url`. Write-only, never returned. */
            webhook_secret?: string;
            /**
             * Format: uri
             * @description URL that receives a signed HTTP POST per delivery. A URL whose host is an IP address outside public unicast space is refused: every range of IANA's IPv4 and IPv6 special-purpose address registries (loopback, private, link-local, carrier-grade NAT, benchmarking `198.18.0.0/15`, documentation, multicast, broadcast, reserved) and the prefixes that reach IPv4 hosts from IPv6 (IPv4-mapped `::ffff:0:0/96`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`, Teredo `2001::/32`) whatever address they embed — with a 400 saying why, unless the server runs with `WEBHOOK_ALLOW_PRIVATE=true` (for local use). A host name is checked at each delivery against every address it resolves to, and the delivery connects only to an address that passed; one that resolves to such addresses only fails the delivery.
             */
            webhook_url?: string;
        };
        /**
         * @description A custom compliance rule: a CEL (Common Expression Language) expression evaluated once per resource of
         *     `resource_type`, with the variable `resource` bound to the resource's JSON document (the documents
         *     `GET /rules/test/input` returns). It must evaluate to a boolean: `true` = PASS, `false` = FAIL. A resource the
         *     rule cannot be evaluated on (e.g. a field it reads is missing) fails it in a scan, with the reason as message;
         *     `POST /rules/test` tells these apart (`UNKNOWN`, `ERROR`). Evaluation is bounded in cost and time. `ENABLED`
         *     rules join every later scan of environments of their providers; `DISABLED` rules do not run; `INVALID` rules (the
         *     text no longer compiles, or the resource type is no longer supported) do not run until fixed.
         */
        CustomRule: {
            /**
             * @description Controls the rule is reported under: `<family> CUSTOM <name>` for each of its `families` (the name cut to 200
             *     characters). A rule without families is reported under `<family> CUSTOM <name>` of every family a scan
             *     evaluates, and lists none here.
             */
            compliance_controls: string[];
            /**
             * Format: int64
             * @description Creation time (Unix seconds).
             */
            created_at: number;
            /** @description Principal that created it (API client id or user id). */
            created_by: string;
            /** @description Display name of that principal. */
            created_by_display_name?: string;
            /** @description What the rule checks and how to fix a failure. */
            description: string;
            /** @description Compliance families whose results include this rule (valid for its providers); `[]`: every family a scan evaluates. */
            families: components["schemas"]["ComplianceFamily"][];
            /**
             * Format: uuid
             * @description Id of the rule.
             */
            id: string;
            /** @description Name of the rule. */
            name: string;
            provider?: components["schemas"]["CustomRuleProvider"];
            /** @description Providers whose environments the rule applies to. Replaces the deprecated `provider` (which, when shown, is the first entry). */
            providers: components["schemas"]["CustomRuleProvider"][];
            resource_type: components["schemas"]["ResourceType"];
            /** @description The CEL expression, e.g. `resource.properties.versioning == "Enabled"`. */
            rule_text: string;
            severity: components["schemas"]["RuleSeverity"];
            /**
             * @description Origin of the rule; always `CUSTOM`.
             * @enum {string}
             */
            source: "CUSTOM";
            /**
             * @description `ENABLED` rules run in scans; `DISABLED` ones do not; `INVALID` ones cannot run until fixed.
             * @enum {string}
             */
            status: "ENABLED" | "DISABLED" | "INVALID";
            /**
             * Format: int64
             * @description Last change (Unix seconds).
             */
            updated_at: number;
            /** @description Principal that last changed it. */
            updated_by: string;
            /** @description Display name of that principal. */
            updated_by_display_name?: string;
        };
        /** @description A problem found in a rule's CEL text, with its position. */
        CustomRuleError: {
            /**
             * Format: int32
             * @description Column of the problem in `rule_text` (1-based).
             */
            column?: number;
            /**
             * Format: int32
             * @description Line of the problem in `rule_text` (1-based).
             */
            line?: number;
            /**
             * @description `error`: the rule cannot be evaluated; `warning`: it can, but probably not as intended.
             * @enum {string}
             */
            severity: "error" | "warning";
            /** @description The compiler's or checker's message. */
            text: string;
        };
        /**
         * @description Provider a custom rule applies to (upper case, unlike environments' `provider`).
         * @example PROVIDER_A
         * @enum {string}
         */
        CustomRuleProvider: "PROVIDER_A" | "PROVIDER_A_GOV" | "PROVIDER_B";
        /** @description A page of custom rules. */
        CustomRules: {
            /**
             * Format: int64
             * @description Number of items in this page.
             */
            count: number;
            /** @description Whether more items exist past this page. */
            is_truncated: boolean;
            /** @description The page. At most 1000, the largest `max_items`. */
            items: components["schemas"]["CustomRule"][];
            /**
             * Format: int64
             * @description Present only when `is_truncated` is true; the `offset` of the next page.
             */
            next_offset?: number;
        };
        /** @description A custom rule with the warnings found in its text (text that does not compile is refused with a 400, so entries here are `warning`s). */
        CustomRuleWithErrors: components["schemas"]["CustomRule"] & {
            /** @description Problems found in `rule_text`; empty when none. At most 100. */
            errors: components["schemas"]["CustomRuleError"][];
        };
        /**
         * @description New group assignments: each user in `user_ids` becomes a member of exactly the groups in `group_ids` (memberships
         *     not listed are removed; `[]` removes the users from every group). Unknown ids are a 404; nothing changes then.
         * @example {
         *       "user_ids": [
         *         "1f3b5d7f-9b1d-4f3b-8d5f-7b9d1f3b5d7f"
         *       ],
         *       "group_ids": [
         *         "4c6e8a0c-2e4a-4c6e-8a0c-2e4a6c8e0a2c"
         *       ]
         *     }
         */
        EditUsersGroupAssignmentsInput: {
            /** @description Groups the users belong to afterwards (at most 100). */
            group_ids: string[];
            /** @description Users to update (at most 1000). */
            user_ids: string[];
        };
        /**
         * @description A cloud environment: an account at a provider (its regions or resource groups), what to scan, how often, its
         *     baseline, drift detection and remediation (baseline enforcement) state. Server-filled fields: `id`, `tenant_id`,
         *     `drift`, `scan_status`, `last_scan_at`, `next_scan_at`, `created_at`, `updated_at`.
         */
        Environment: {
            /**
             * Format: uuid
             * @description Id of the scan used as baseline; `null` when no baseline is set.
             */
            baseline_id: string | null;
            /** @description Compliance families evaluated by scans of this environment; may be empty. At most 18: each family of `ComplianceFamily` once. */
            compliance_families: components["schemas"]["ComplianceFamily"][];
            /**
             * Format: int64
             * @description Creation time (Unix seconds).
             */
            created_at: number;
            /** @description Drift detection state; `true` exactly while a baseline is set. */
            drift: boolean;
            /**
             * Format: uuid
             * @description Id of the environment.
             */
            id: string;
            /**
             * Format: int64
             * @description Start of the current or latest scan (Unix seconds); `null` before the first scan.
             */
            last_scan_at: number | null;
            /** @description Name of the environment. */
            name: string;
            /**
             * Format: int64
             * @description Planned start of the next scheduled scan (Unix seconds): max(end of the last scan, last change of
             *     `scan_interval`) + `scan_interval`. `null` when the schedule is off.
             */
            next_scan_at: number | null;
            provider: components["schemas"]["Provider"];
            provider_options: components["schemas"]["ProviderOptions"];
            /** @description Resource types the service may correct while remediation is on and a baseline is set. At most 100 (a provider's catalogue has 30 types; the bound leaves it room to grow). */
            remediate_resource_types: components["schemas"]["ResourceType"][];
            /**
             * @description Baseline enforcement (`provider_a` / `provider_a_gov` only; always `false` for `provider_b`). While on and a
             *     baseline is set, scans revert drifted resources of `remediate_resource_types` to the baseline.
             */
            remediation: boolean;
            /**
             * Format: int64
             * @description Seconds between the end of one scheduled scan (or the last interval change) and the start of the next.
             */
            scan_interval: number;
            /** @description Whether scheduled scans run. */
            scan_schedule_enabled: boolean;
            /**
             * @description Status of the current or latest scan, `IN_PROGRESS`, `SUCCESS` or `ERROR` (see `ScanStatus`); `null` before the first scan.
             * @enum {string|null}
             */
            scan_status: "IN_PROGRESS" | "SUCCESS" | "ERROR" | null;
            /**
             * @description `provider_b` only (absent otherwise): resource groups scanned; `["*"]` means all, and new resource groups
             *     are picked up automatically.
             *     At most 980, the most resource groups a `provider_b` subscription holds.
             */
            survey_resource_groups?: string[];
            /** @description Resource types scanned. At most 100 (a provider's catalogue has 30 types; the bound leaves it room to grow). */
            survey_resource_types: components["schemas"]["ResourceType"][];
            /**
             * Format: uuid
             * @description Id of the organization that owns the environment.
             */
            tenant_id: string;
            /**
             * Format: int64
             * @description Last change (Unix seconds).
             */
            updated_at: number;
        };
        /** @description A page of environments. */
        Environments: {
            /**
             * Format: int64
             * @description Number of items in this page.
             */
            count: number;
            /** @description Whether more items exist past this page. */
            is_truncated: boolean;
            /** @description The page. At most 1000, the largest `max_items`. */
            items: components["schemas"]["Environment"][];
            /**
             * Format: int64
             * @description Present only when `is_truncated` is true; the `offset` of the next page.
             */
            next_offset?: number;
        };
        /** @description An environment with the compliance summary of its latest successful scan. */
        EnvironmentWithSummary: components["schemas"]["Environment"] & {
            resource_summary: components["schemas"]["ResourceSummary"];
        };
        /**
         * @description Something a scan recorded. `COMPLIANCE`: a resource's rule results changed since the previous scan
         *     (`compliance_diff`). `DRIFT`: a resource differs from the baseline (`resource_diff`), only while a baseline is
         *     set. `REMEDIATION` (baseline enforcement): the scan reverted, or failed to revert, a drifted resource
         *     (`resource_diff`, `remediated`, `error`).
         */
        Event: {
            compliance_diff?: components["schemas"]["ComplianceDiff"];
            /**
             * Format: int64
             * @description When it was recorded (Unix seconds).
             */
            created_at: number;
            /**
             * Format: uuid
             * @description Environment the event belongs to.
             */
            environment_id: string;
            /** @description Why a remediation failed; `null` otherwise. */
            error?: string | null;
            /**
             * @description Kind of event.
             * @enum {string}
             */
            event_type: "COMPLIANCE" | "DRIFT" | "REMEDIATION";
            /**
             * Format: uuid
             * @description Id of the event.
             */
            id: string;
            /** @description `REMEDIATION` events only: whether the resource was reverted to the baseline. */
            remediated?: boolean;
            resource_diff?: components["schemas"]["ResourceDiff"];
            /**
             * Format: uuid
             * @description Scan that recorded the event.
             */
            scan_id: string;
        };
        /** @description A page of events. */
        Events: {
            /**
             * Format: int64
             * @description Number of items in this page.
             */
            count: number;
            /** @description Whether more items exist past this page. */
            is_truncated: boolean;
            /** @description The page. At most 1000, the largest `max_items`. */
            items: components["schemas"]["Event"][];
            /**
             * Format: int64
             * @description Present only when `is_truncated` is true; the `offset` of the next page.
             */
            next_offset?: number;
        };
        /**
         * @description A group grants its policy over its environments to its users and API clients. Built-in policies, from least to
         *     most privileged: `builtin:READONLY` and `builtin:AUDITOR` read everything in the covered environments;
         *     `builtin:EDITOR` also changes environments, starts scans and manages custom rules and notifications;
         *     `builtin:CONTRIBUTOR` also creates and deletes environments; `builtin:MANAGER` also manages users, groups and
         *     invites. `builtin:ORGANIZATION_REPORT_VIEWER` and `builtin:IAC_SCANNER` exist for compatibility with the public
         *     service and grant read access to compliance results only.
         */
        Group: {
            /** @description API clients in the group, client id to name. At most 100000, more API clients than an organization has; names at most 100 characters. */
            api_clients: {
                [key: string]: string;
            };
            /** @description Environments covered, id to name; `{"*": "All environments"}` for all current and future ones. At most 1000 (a group covers at most 1000 environments); names at most 255 characters. */
            environments: {
                [key: string]: string;
            };
            /**
             * Format: uuid
             * @description Id of the group.
             */
            id: string;
            /** @description Name of the group (unique in the organization). */
            name: string;
            /** @description The policy granted, e.g. `builtin:READONLY`. */
            policy: string;
            /** @description Members, user id to name (first and last name, or the email address of a user without a name). At most 100000, more users than an organization has; names at most 254 characters. */
            users: {
                [key: string]: string;
            };
        };
        /** @description A page of groups. */
        Groups: {
            /**
             * Format: int64
             * @description Number of items in this page.
             */
            count: number;
            /** @description Whether more items exist past this page. */
            is_truncated: boolean;
            /** @description The page. At most 1000, the largest `max_items`. */
            items: components["schemas"]["Group"][];
            /**
             * Format: int64
             * @description Present only when `is_truncated` is true; the `offset` of the next page.
             */
            next_offset?: number;
        };
        /** @description Body of a 500 answer: an unexpected server or storage error. */
        InternalServerError: {
            /**
             * Format: int32
             * @description The HTTP status, repeated.
             * @enum {integer}
             */
            code: 500;
            /** @description Human-readable detail; names the offending field or parameter and the rule it broke. */
            message: string;
            /**
             * @description Kind of error.
             * @enum {string}
             */
            type: "InternalServerError" | "DatabaseError";
        };
        /**
         * @description An invitation of an email address into the organization, emailed to it with a one-time link into the web console
         *     (see `POST /invites`). `PENDING` until the person accepts it there (`ACCEPTED`: they chose a password and became
         *     an `ACTIVE` user of the organization in the invite's groups) or until `expires_at` passes (`EXPIRED`: the link is
         *     refused, and a new invite of the address may be made). An invite whose email the server gave up sending (see
         *     `delivery_error`) expires at that moment. An accepted or expired invite never changes again.
         */
        Invite: {
            /**
             * Format: int64
             * @description Creation time (Unix seconds).
             */
            created_at: number;
            /** @description Why the invitation email could not be sent, once the server gave up sending it (5 failed attempts, see `POST /invites`): the invite expired then (`expires_at` and `updated_at` are that time, `status` is `EXPIRED`), no link of it works, and a new invite of the address may be made at once. `null` otherwise. */
            delivery_error?: string | null;
            /**
             * Format: email
             * @description Invited address.
             */
            email: string;
            /**
             * Format: int64
             * @description Expiry (Unix seconds), 7 days after creation; `null` when the invite never expires.
             */
            expires_at: number | null;
            /** @description Groups granted on acceptance, group id to group name. At most 1000 groups. A group deleted since is no longer listed, and not granted. */
            groups?: {
                [key: string]: string;
            };
            /**
             * Format: uuid
             * @description Id of the invite.
             */
            id: string;
            /**
             * @description Kind of record; always `invite`.
             * @enum {string}
             */
            resource_type?: "invite";
            /**
             * @description State of the invite.
             * @enum {string}
             */
            status: "PENDING" | "ACCEPTED" | "EXPIRED";
            /**
             * Format: int64
             * @description Last change (Unix seconds); for an `ACCEPTED` invite, when it was accepted.
             */
            updated_at?: number;
        };
        /** @description A page of invites. */
        Invites: {
            /**
             * Format: int64
             * @description Number of items in this page.
             */
            count: number;
            /** @description Whether more items exist past this page. */
            is_truncated: boolean;
            /** @description The page. At most 1000, the largest `max_items`. */
            items: components["schemas"]["Invite"][];
            /**
             * Format: int64
             * @description Present only when `is_truncated` is true; the `offset` of the next page.
             */
            next_offset?: number;
        };
        /** @description A resource failing at least one rule, with the rules it fails. */
        NonCompliantResource: {
            /** @description The rules the resource fails. At most 10000: the built-in rules of the type and the organization's custom rules for it, per family. */
            failed_rules: {
                family: components["schemas"]["ComplianceFamily"];
                /** @description Failure messages. */
                messages: string[];
                /** @description Id of the failed rule (not the control name). */
                rule: string;
            }[];
            /** @description The provider's id of the resource. */
            resource_id: string;
        };
        /** @description Body of a 404 answer: an id does not name a record of the caller's organization. */
        NotFoundError: {
            /**
             * Format: int32
             * @description The HTTP status, repeated.
             * @enum {integer}
             */
            code: 404;
            /** @description Human-readable detail; names the offending field or parameter and the rule it broke. */
            message: string;
            /**
             * @description Kind of error.
             * @enum {string}
             */
            type: "NotFound";
        };
        /**
         * @description A notification: after each successful scan of an environment in `environments` that recorded events of a kind in
         *     `events`, one delivery per transport is made: an email to `emails` (through the SMTP server the operator
         *     configured with `SMTP_URL`) and/or a webhook to `webhook_url`. A scan that recorded no such event delivers nothing.
         *
         *     The webhook is an HTTP POST of JSON `{notification_id, environment_id, scan_id, events: [Event...]}`, listing
         *     every event of the scan whose kind is in `events` (each as `GET /events` shows it, in the order the scan recorded
         *     them), with the headers `X-Signature-256: sha256=<hex HMAC-SHA256 of the raw body keyed with webhook_secret>` and
         *     `X-Delivery-Id: <uuid>`, the same on every attempt of one delivery so that a receiver can drop repeats. It fails
         *     on a network error, after 10 seconds without an answer, or on a non-2xx answer. Webhooks never reach loopback,
         *     private or link-local addresses (IPv4 and IPv6, IPv4-mapped included; see `webhook_url` of the create input): a
         *     host name is resolved at each delivery, and the delivery connects only to an address that passed the check, or
         *     fails; the operator may allow such addresses for local use with `WEBHOOK_ALLOW_PRIVATE=true`.
         *
         *     The email's subject names the event kinds and the environment (`[compliance] DRIFT, COMPLIANCE events in
         *     production-us`), its text the number of events of each kind and the scan id.
         *
         *     A failed attempt is retried with exponential backoff, up to 5 attempts per delivery; every attempt is recorded
         *     (`GET /notifications/{notification_id}/deliveries`). `last_delivery_at` is the time of the latest attempt;
         *     `last_error` is the error of the latest delivery that gave up after its last attempt, cleared by the next
         *     delivery that succeeds.
         */
        Notification: {
            /**
             * Format: int64
             * @description Creation time (Unix seconds).
             */
            created_at: number;
            /** @description Principal that created it (API client id or user id). */
            created_by: string;
            /** @description Email recipients (may be empty when a webhook is set). */
            emails: string[];
            /**
             * @description Environments it watches, each entry mapping one environment id to its name. A notification for all
             *     environments (created with `["*"]`) shows the single entry `{"*": "All environments"}`. An environment
             *     deleted since is no longer listed (nor watched).
             *     At most 1000, as on create.
             */
            environments: {
                [key: string]: string;
            }[];
            /** @description Event kinds that trigger it. */
            events: ("compliance" | "drift" | "remediation")[];
            /**
             * Format: int64
             * @description Time of the latest delivery attempt (Unix seconds); `null` when nothing was delivered yet.
             */
            last_delivery_at: number | null;
            /** @description Error of the latest delivery that failed on its last attempt, prefixed with its transport (`webhook:` or `email:`); `null` when nothing failed yet or a later delivery succeeded. */
            last_error: string | null;
            /** @description Name of the notification. */
            name: string;
            /**
             * Format: uuid
             * @description Id of the notification.
             */
            notification_id: string;
            /**
             * Format: int64
             * @description Last change (Unix seconds).
             */
            updated_at: number;
            /** @description Principal that last changed it. */
            updated_by: string;
            /**
             * Format: uri
             * @description Webhook URL; `null` when none.
             */
            webhook_url: string | null;
        };
        /** @description A page of delivery attempts. */
        NotificationDeliveries: {
            /**
             * Format: int64
             * @description Number of items in this page.
             */
            count: number;
            /** @description Whether more items exist past this page. */
            is_truncated: boolean;
            /** @description The page. At most 1000, the largest `max_items`. */
            items: components["schemas"]["NotificationDelivery"][];
            /**
             * Format: int64
             * @description Present only when `is_truncated` is true; the `offset` of the next page.
             */
            next_offset?: number;
        };
        /** @description One attempt to deliver a notification after a scan, by one transport. */
        NotificationDelivery: {
            /**
             * Format: int32
             * @description Number of the attempt within its delivery, from 1.
             */
            attempt: number;
            /**
             * Format: int64
             * @description When the attempt was made (Unix seconds).
             */
            attempted_at: number;
            /**
             * Format: uuid
             * @description Id shared by the attempts of one delivery; sent as the `X-Delivery-Id` header of webhook requests.
             */
            delivery_id: string;
            /**
             * Format: uuid
             * @description Environment of that scan.
             */
            environment_id: string;
            /** @description Why the attempt failed; `null` when it succeeded. */
            error: string | null;
            /**
             * Format: int32
             * @description Webhook only; the HTTP status the receiver answered, `null` when none (network error, timeout) or for email.
             */
            http_status: number | null;
            /**
             * Format: uuid
             * @description Id of the attempt.
             */
            id: string;
            /**
             * Format: uuid
             * @description Id of the notification.
             */
            notification_id: string;
            /**
             * Format: uuid
             * @description Scan whose events were delivered.
             */
            scan_id: string;
            /** @description Email only; the SMTP server's final answer (e.g. `250 OK`), `null` when none or for webhooks. */
            smtp_response: string | null;
            /**
             * @description Outcome of the attempt.
             * @enum {string}
             */
            status: "succeeded" | "failed";
            /** @description Where it delivered to, as the notification was at the time of the attempt; the webhook URL, or the email recipients separated by `, `. At most 25600 characters (100 addresses of 254, comma-separated). */
            target: string;
            /**
             * @description How the attempt delivered.
             * @enum {string}
             */
            transport: "webhook" | "email";
            /** @description A failed attempt that is not the delivery's last; another attempt follows after a backoff. */
            will_retry: boolean;
        };
        /** @description A page of notifications. */
        Notifications: {
            /**
             * Format: int64
             * @description Number of items in this page.
             */
            count: number;
            /** @description Whether more items exist past this page. */
            is_truncated: boolean;
            /** @description The page. At most 1000, the largest `max_items`. */
            items: components["schemas"]["Notification"][];
            /**
             * Format: int64
             * @description Present only when `is_truncated` is true; the `offset` of the next page.
             */
            next_offset?: number;
        };
        /** @description Body of a 501 answer: the operation is not implemented yet. */
        NotImplementedError: {
            /**
             * Format: int32
             * @description The HTTP status, repeated.
             * @enum {integer}
             */
            code: 501;
            /** @description Human-readable detail; names the offending field or parameter and the rule it broke. */
            message: string;
            /**
             * @description Kind of error.
             * @enum {string}
             */
            type: "NotImplemented";
        };
        /**
         * @description Access-control permissions the service needs. The key is `provider_a` for both `provider_a` and
         *     `provider_a_gov` (the government partition shows in the resource names inside the documents).
         */
        Permissions: {
            provider_a: components["schemas"]["PermissionsProviderA"];
        };
        /** @description What the role named by an environment's `role_arn` needs. */
        PermissionsProviderA: {
            /**
             * @description Role policy document (free-form JSON, `{"Version": "2012-10-17", "Statement": [...]}`) granting the actions
             *     needed to scan (read) the requested survey types and to correct the requested remediate types.
             */
            policy: {
                [key: string]: unknown;
            };
            /** @description Actions needed to remediate the requested types (the write actions of `policy`). */
            remediate_actions: string[];
            /** @description Actions needed to scan the requested types (the read actions of `policy`). At most 10000 (the actions of every type of the catalogue). */
            survey_actions: string[];
            /** @description Trust policy document (free-form JSON) letting the service assume the role. */
            trust_relationship: {
                [key: string]: unknown;
            };
        };
        /**
         * @description Cloud provider of an environment: `provider_a` (standard regions), `provider_a_gov` (government regions of the
         *     same provider), `provider_b` (also used for its government variant).
         * @example provider_a
         * @enum {string}
         */
        Provider: "provider_a" | "provider_a_gov" | "provider_b";
        /**
         * @description Options of a `provider_a` or `provider_a_gov` environment. On create, `role_arn` is required together with
         *     `regions` (or the deprecated `region`). Environments created with `region` show `region` instead of `regions`
         *     and their region can never change; nor can the regions of an environment created before 28 April 2020.
         * @example {
         *       "role_arn": "arn:prova:iam::123456789012:role/compliance-scanner",
         *       "regions": [
         *         "us-east-1",
         *         "us-west-2"
         *       ]
         *     }
         */
        ProviderAOptions: {
            /**
             * @description Deprecated, use `regions`. A single region, or `*` for every region of the provider, accepted on create
             *     only. An environment created with it shows `region` (`*` included) instead of `regions`, and its region can
             *     never be changed (an update of `regions` is a 400 saying why).
             * @enum {string}
             */
            region?: "us-east-1" | "us-east-2" | "us-west-1" | "us-west-2" | "ap-south-1" | "ap-northeast-2" | "ap-southeast-1" | "ap-southeast-2" | "ap-northeast-1" | "ca-central-1" | "eu-central-1" | "eu-west-1" | "eu-west-2" | "eu-west-3" | "sa-east-1" | "us-gov-east-1" | "us-gov-west-1" | "*";
            /**
             * @description Regions to scan and remediate. Standard regions for `provider_a`, government regions (`us-gov-east-1`,
             *     `us-gov-west-1`) for `provider_a_gov`; `*` means every region of the provider and must stand alone.
             *     An update replaces the whole list.
             *     At most 18: each region of `Region` once.
             */
            regions?: components["schemas"]["Region"][];
            /**
             * @description Identifier of the role the service assumes in the account. The partition is `prova` for `provider_a` and
             *     `prova-us-gov` for `provider_a_gov` (a role of the other partition is a 400); the 12-digit account number
             *     identifies the account that is scanned.
             * @example arn:prova:iam::123456789012:role/compliance-scanner
             */
            role_arn: string;
        };
        /**
         * @description Changes to a `provider_a` / `provider_a_gov` environment's options; absent fields are unchanged.
         * @example {
         *       "regions": [
         *         "us-east-1",
         *         "us-east-2",
         *         "eu-west-1"
         *       ]
         *     }
         */
        ProviderAOptionsUpdateInput: {
            /**
             * @description Replaces the whole region list: send every region wanted, or `["*"]` alone for all regions of the provider.
             *     Government regions only for `provider_a_gov`, standard regions only for `provider_a` (moving an environment
             *     between standard and government regions is a 400). Only environments created after 28 April 2020 that
             *     show `regions` can change their regions: one created with the deprecated `region` (it shows `region`, not
             *     `regions`), or created earlier, cannot, and the update is a 400 saying why.
             *     At most 18: each region of `Region` once.
             */
            regions?: components["schemas"]["Region"][];
            /** @description New role to assume; it must stay in the environment's partition (`prova` for `provider_a`, `prova-us-gov` for `provider_a_gov`). */
            role_arn?: string;
        };
        /**
         * @description Options of a `provider_b` environment: the subscription to scan and the service principal the service signs in
         *     with. `subscription_id` is required on create; `subscription_id` and `tenant_id` cannot change afterwards.
         * @example {
         *       "subscription_id": "0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e",
         *       "tenant_id": "1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f",
         *       "application_id": "2d3e4f5a-6b7c-4d8e-9f0a-1b2c3d4e5f6a",
         *       "survey_resource_groups": [
         *         "*"
         *       ]
         *     }
         */
        ProviderBOptions: {
            /**
             * Format: uuid
             * @description Application (client) id of the service principal.
             */
            application_id?: string;
            /** @description Write-only secret of the service principal. Accepted on create and update, never returned in responses. */
            client_secret?: string;
            /** @description Resource groups in which the service may remediate; `["*"]` means all. At most 980, the most resource groups a `provider_b` subscription holds. */
            remediate_resource_groups?: string[];
            /**
             * Format: uuid
             * @description The subscription to scan; identifies the account.
             */
            subscription_id: string;
            /**
             * @description Resource groups to scan; `["*"]` (the default) means all of them, and new resource groups are picked up
             *     automatically. Sending a subset stops the automatic addition until `["*"]` is sent again. Same value as the
             *     environment's top-level `survey_resource_groups`.
             *     At most 980, the most resource groups a `provider_b` subscription holds.
             */
            survey_resource_groups?: string[];
            /**
             * Format: uuid
             * @description Directory tenant of the subscription.
             */
            tenant_id?: string;
        };
        /**
         * @description Changes to a `provider_b` environment's options; absent fields are unchanged. `subscription_id` and `tenant_id`
         *     cannot change.
         * @example {
         *       "survey_resource_groups": [
         *         "rg-production",
         *         "rg-shared"
         *       ]
         *     }
         */
        ProviderBOptionsUpdateInput: {
            /**
             * Format: uuid
             * @description New application (client) id of the service principal.
             */
            application_id?: string;
            /** @description New secret of the service principal (write-only, never returned). */
            client_secret?: string;
            /** @description Resource groups in which the service may remediate, replacing the list; `["*"]` means all. At most 980, the most resource groups a `provider_b` subscription holds. */
            remediate_resource_groups?: string[];
            /** @description Resource groups to scan, replacing the list; `["*"]` means all, including new ones. At most 980, the most resource groups a `provider_b` subscription holds. */
            survey_resource_groups?: string[];
        };
        /**
         * @description Provider-specific options, keyed by provider: exactly one key, the one matching the environment's `provider`
         *     (a missing or different key is a 400). `provider_a` and `provider_a_gov` hold `ProviderAOptions`, `provider_b`
         *     holds `ProviderBOptions`.
         * @example {
         *       "provider_a": {
         *         "role_arn": "arn:prova:iam::123456789012:role/compliance-scanner",
         *         "regions": [
         *           "us-east-1",
         *           "us-west-2"
         *         ]
         *       }
         *     }
         */
        ProviderOptions: {
            provider_a?: components["schemas"]["ProviderAOptions"];
            provider_a_gov?: components["schemas"]["ProviderAOptions"];
            provider_b?: components["schemas"]["ProviderBOptions"];
        };
        /**
         * @description Changes to the provider options, keyed by provider: only the key matching the environment's `provider` is
         *     accepted (any other key is a 400).
         * @example {
         *       "provider_a": {
         *         "regions": [
         *           "*"
         *         ]
         *       }
         *     }
         */
        ProviderOptionsUpdateInput: {
            provider_a?: components["schemas"]["ProviderAOptionsUpdateInput"];
            provider_a_gov?: components["schemas"]["ProviderAOptionsUpdateInput"];
            provider_b?: components["schemas"]["ProviderBOptionsUpdateInput"];
        };
        /**
         * @description A provider region. Standard regions (providers `provider_a`, and `provider_b` where regions apply):
         *     `us-east-1`, `us-east-2`, `us-west-1`, `us-west-2`, `ap-south-1`, `ap-northeast-2`, `ap-southeast-1`,
         *     `ap-southeast-2`, `ap-northeast-1`, `ca-central-1`, `eu-central-1`, `eu-west-1`, `eu-west-2`, `eu-west-3`,
         *     `sa-east-1`. Government regions (provider `provider_a_gov` only): `us-gov-east-1`, `us-gov-west-1`.
         *     `*` means every region of the environment's provider, including regions added later.
         * @example us-east-1
         * @enum {string}
         */
        Region: "us-east-1" | "us-east-2" | "us-west-1" | "us-west-2" | "ap-south-1" | "ap-northeast-2" | "ap-southeast-1" | "ap-southeast-2" | "ap-northeast-1" | "ca-central-1" | "eu-central-1" | "eu-west-1" | "eu-west-2" | "eu-west-3" | "sa-east-1" | "us-gov-east-1" | "us-gov-west-1" | "*";
        /** @description A resource of the scanned account. */
        Resource: {
            /** @description The provider's id of the resource. */
            resource_id: string;
            resource_type: components["schemas"]["ResourceType"];
        };
        /** @description How a resource differs from the baseline (drift) or what remediation changed. */
        ResourceDiff: {
            /** @description Attribute changes (empty for `ADDED` and `REMOVED`). At most 10000, more attributes than any resource type has. */
            attributes: components["schemas"]["Attribute"][];
            /**
             * @description The resource was added, modified or removed relative to the baseline.
             * @enum {string}
             */
            change: "ADDED" | "MODIFIED" | "REMOVED";
            /** @description The provider's id of the resource. */
            resource_id: string;
            resource_type: components["schemas"]["ResourceType"];
        };
        /**
         * @description Compliance summary of a scan. `null` while no successful scan exists (environment) or while the scan is in
         *     progress or ended `ERROR` (scan). A resource is compliant when it passes every evaluated rule.
         */
        ResourceSummary: {
            /**
             * Format: int64
             * @description Resources passing every evaluated rule.
             */
            compliant: number;
            /** @description One entry per compliance family of the environment. At most 18: each family of `ComplianceFamily` once. */
            families: {
                /**
                 * Format: int64
                 * @description Resources passing every rule of the family.
                 */
                compliant: number;
                family: components["schemas"]["ComplianceFamily"];
                /**
                 * Format: int64
                 * @description Resources failing at least one rule of the family.
                 */
                noncompliant: number;
                /**
                 * Format: int64
                 * @description Rules of the family that failed, each counted once (the family's distinct `FAIL` rule ids).
                 */
                rules_failed: number;
                /**
                 * Format: int64
                 * @description Rules of the family that passed, each counted once (the family's distinct `PASS` rule ids).
                 */
                rules_passed: number;
            }[];
            /**
             * Format: int64
             * @description Resources failing at least one rule.
             */
            noncompliant: number;
            /**
             * Format: int64
             * @description Number of resource types in the scan.
             */
            resource_types: number;
            /**
             * Format: int64
             * @description Rules that failed on at least one resource, each counted once: the distinct `rule_id`s of the `FAIL` items of `compliance_by_rules` (one item per family, control and rule, so it may list more).
             */
            rules_failed: number;
            /**
             * Format: int64
             * @description Rules that passed on every resource they apply to, each counted once: the distinct `rule_id`s of the `PASS` items of `compliance_by_rules`, which lists a rule once per family and control that names it (so it may list more items than this counts). A rule whose resource types were not all surveyed is `UNKNOWN`, neither passed nor failed.
             */
            rules_passed: number;
            /**
             * Format: int64
             * @description Resources in the scan.
             */
            total: number;
        } | null;
        /**
         * @description A resource type: three dot-separated segments, provider prefix, service and type. `PROVA.<Service>.<Type>` for
         *     providers `provider_a` and `provider_a_gov` (e.g. `PROVA.S3.Bucket`, `PROVA.EC2.SecurityGroup`, `PROVA.IAM.User`),
         *     `PROVB.<Service>.<Type>` for `provider_b` (e.g. `PROVB.Storage.Account`). The types supported per provider and
         *     region are listed by `GET /metadata/{provider}/resource_types`; an unsupported type is a 400.
         * @example PROVA.S3.Bucket
         */
        ResourceType: string;
        /** @description Resource types supported by a provider (in a region). */
        ResourceTypeMetadata: {
            /** @description The subset recommended for scanning (types that built-in rules evaluate). At most 100 (a provider's catalogue has 30 types). */
            recommended_types: components["schemas"]["ResourceType"][];
            /** @description Every supported type; global (non-regional) types are always listed. At most 100 (a provider's catalogue has 30 types). */
            resource_types: components["schemas"]["ResourceType"][];
        };
        /**
         * @description Severity of a rule (built-in or custom).
         * @example High
         * @enum {string}
         */
        RuleSeverity: "Informational" | "Low" | "Medium" | "High" | "Critical";
        /**
         * @description A scan of an environment: it collects the inventory, evaluates the rules of the environment's compliance families
         *     and its provider's enabled custom rules, diffs against the baseline (drift events), enforces the baseline when
         *     remediation is on (remediation events), records compliance events for resources whose results changed since the
         *     previous scan, then ends `SUCCESS` or `ERROR`.
         */
        Scan: {
            /**
             * Format: int64
             * @description Start of the scan (Unix seconds).
             */
            created_at: number;
            /**
             * Format: uuid
             * @description Id of the scanned environment.
             */
            environment_id: string;
            /**
             * Format: int64
             * @description End of the scan (Unix seconds); `null` while `IN_PROGRESS`.
             */
            finished_at: number | null;
            /**
             * Format: uuid
             * @description Id of the scan.
             */
            id: string;
            /** @description Free text about the scan, e.g. why it ended `ERROR`; `null` when there is nothing to say. */
            message: string | null;
            /** @description `true` when remediation could not revert some resource during this scan (see its `REMEDIATION` events). */
            remediation_error: boolean;
            status: components["schemas"]["ScanStatus"];
            /**
             * Format: int64
             * @description Last status change (Unix seconds).
             */
            updated_at: number;
        };
        /** @description A page of scans. */
        Scans: {
            /**
             * Format: int64
             * @description Number of items in this page.
             */
            count: number;
            /** @description Whether more items exist past this page. */
            is_truncated: boolean;
            /** @description The page. At most 1000, the largest `max_items`. */
            items: components["schemas"]["Scan"][];
            /**
             * Format: int64
             * @description Present only when `is_truncated` is true; the `offset` of the next page.
             */
            next_offset?: number;
        };
        /**
         * @description Status of a scan: `IN_PROGRESS` from creation until it ends, then `SUCCESS` or `ERROR` (the scan's `message`
         *     says why). A scan that was in progress when the server stopped is resumed or ended `ERROR` after restart.
         * @example SUCCESS
         * @enum {string}
         */
        ScanStatus: "IN_PROGRESS" | "SUCCESS" | "ERROR";
        /** @description A scan with its compliance summary and the resource types that could not be scanned. */
        ScanWithSummary: components["schemas"]["Scan"] & {
            resource_summary: components["schemas"]["ResourceSummary"];
            /** @description Resource types that could not be scanned, with the reason; empty when every type was scanned. At most 100, as `survey_resource_types`. */
            resource_type_errors: {
                /** @description Why the type could not be scanned. */
                error_message: string;
                resource_type: components["schemas"]["ResourceType"];
            }[];
        };
        /** @description Body of a 503 answer: the service cannot serve the request now; retry after `Retry-After` seconds. */
        ServiceUnavailableError: {
            /**
             * Format: int32
             * @description The HTTP status, repeated.
             * @enum {integer}
             */
            code: 503;
            /** @description Human-readable detail; says what is unavailable (the database, or the server's capacity). */
            message: string;
            /**
             * @description Kind of error.
             * @enum {string}
             */
            type: "ServiceUnavailable";
        };
        /**
         * @description A CEL rule text to evaluate, without saving it, against the resources of one type in one scan.
         * @example {
         *       "scan_id": "7b2e4f6a-1c3d-4e5f-8a9b-0c1d2e3f4a5b",
         *       "rule_text": "resource.properties.versioning == \"Enabled\"",
         *       "resource_type": "PROVA.S3.Bucket"
         *     }
         */
        TestCustomRuleInput: {
            resource_type: components["schemas"]["ResourceType"];
            /** @description The CEL expression; `resource` is the resource's JSON document. */
            rule_text: string;
            /**
             * Format: uuid
             * @description Scan whose resources are the test input (a `SUCCESS` scan of the caller's organization).
             */
            scan_id: string;
        };
        /** @description The documents a rule of this resource type (or of every type of the scan) would see in this scan, one per resource (at most 1000). */
        TestCustomRuleInputScan: {
            /** @description Whether the scan holds more than the 1000 documents returned. */
            is_truncated: boolean;
            /** @description Only with `via_download=true`: `output` is where a `GET` with the same credentials downloads this document. */
            links?: {
                /** @description URL relative to the server's root, e.g. `/v0/rules/test/input?scan_id=…&resource_type=…`. */
                output: string;
            };
            /** @description The resource type asked for; `null` when the request named none (every type of the scan). */
            resource_type: string | null;
            /**
             * @description The resource documents bound to `resource` when the rule is evaluated, by resource id: `id`, `type`, `name`,
             *     `region` (`null` for global types), `account`, `tags`, `properties` (the type's settings) and, for
             *     `provider_b`, `resource_group`. At most 1000.
             */
            resources: {
                [key: string]: unknown;
            }[];
            /**
             * Format: uuid
             * @description The scan.
             */
            scan_id: string;
        };
        /** @description The result of testing a rule text. */
        TestCustomRuleOutput: {
            /** @description Warnings found in the rule text (text that does not compile is a 400 instead). */
            errors: components["schemas"]["CustomRuleError"][];
            /** @description Whether `resources` lists fewer entries than `resource_count` (it lists at most 1000). */
            is_truncated: boolean;
            /** @description Only with `via_download=true`: `output` is where a `GET` downloads this document (`getCustomRuleTestOutput`). */
            links?: {
                /** @description URL relative to the server's root, e.g. `/v0/rules/test/outputs/3f0c7a52-9d1e-4b6a-8c2f-5e7d9a1b3c4d`. */
                output: string;
            };
            /**
             * Format: int64
             * @description How many resources of the type the scan holds; each was evaluated.
             */
            resource_count: number;
            /** @description One entry per resource of the type in the scan, by resource id, at most 1000. */
            resources: components["schemas"]["TestCustomRuleOutputResource"][];
            /**
             * @description Overall, over every resource of the type: `ERROR` when any resource errored, else `FAIL` when any failed, else `UNKNOWN` when any was unknown (or there were no resources), else `PASS`.
             * @enum {string}
             */
            result: "PASS" | "FAIL" | "UNKNOWN" | "ERROR";
        };
        /** @description The result of a tested rule on one resource. */
        TestCustomRuleOutputResource: {
            /** @description The provider's id of the resource. */
            id: string;
            /** @description Why the result is `UNKNOWN` or `ERROR`; `null` otherwise. A failure message: a rule's message or description (at most 4096 characters), or why the rule could not be evaluated, which may quote the rule text (at most 65536). */
            message: string | null;
            /**
             * @description `PASS` (true), `FAIL` (false), `UNKNOWN` (the expression needs a field the resource lacks), `ERROR` (evaluation failed otherwise, e.g. not a boolean or over the cost limit).
             * @enum {string}
             */
            result: "PASS" | "FAIL" | "UNKNOWN" | "ERROR";
            type: components["schemas"]["ResourceType"];
        };
        /** @description Body of a 429 answer: too many failed authentications; retry after `Retry-After` seconds. */
        TooManyRequestsError: {
            /**
             * Format: int32
             * @description The HTTP status, repeated.
             * @enum {integer}
             */
            code: 429;
            /** @description Human-readable detail; says how long to wait. */
            message: string;
            /**
             * @description Kind of error.
             * @enum {string}
             */
            type: "TooManyRequests";
        };
        /**
         * @description Changes to a custom rule (PATCH): absent fields are unchanged. A new `rule_text` must compile (400 with the
         *     compiler's message and `line:column` otherwise); fixing the text of an `INVALID` rule makes it `ENABLED` unless
         *     `status` says otherwise.
         * @example {
         *       "severity": "High",
         *       "status": "DISABLED"
         *     }
         */
        UpdateCustomRuleInput: {
            /** @description New description. */
            description?: string;
            /** @description New compliance families. `null` means not given: unchanged, as when the field is absent. */
            families?: components["schemas"]["ComplianceFamily"][] | null;
            /** @description New name. */
            name?: string;
            /** @description New providers (must match the prefix of the resource type). `null` means not given: unchanged, as when the field is absent. */
            providers?: components["schemas"]["CustomRuleProvider"][] | null;
            resource_type?: components["schemas"]["ResourceType"];
            /** @description New CEL expression. */
            rule_text?: string;
            severity?: components["schemas"]["RuleSeverity"];
            /**
             * @description Enable or disable the rule (`INVALID` is set by the service only).
             * @enum {string}
             */
            status?: "ENABLED" | "DISABLED";
        };
        /**
         * @description Changes to an environment (PATCH): only the fields sent change, absent fields are unchanged. Rules (each
         *     failure is a 400 naming the field and saying why):
         *     1. `provider_options.<provider>.regions` replaces the whole region list: send every region wanted, or `["*"]`.
         *     2. Only environments created after 28 April 2020 (`created_at` from 1588032000 on) that show `regions` can
         *        change regions; an environment created with the deprecated `region` (it shows `region`) can never change its
         *        region, nor can an older one (seed rule: 400 saying which applies).
         *     3. An environment cannot move between standard (`provider_a`) and government (`provider_a_gov`) regions, in
         *        either direction; `provider` accepts only the environment's current value.
         *     4. `region` is deprecated in favour of `regions` and is not accepted here.
         *     5. `scan_interval` is at least 600 seconds.
         *
         *     Baseline: `baseline_id` set to the id of a `SUCCESS` scan of this environment sets (or replaces) the baseline and
         *     turns drift detection on; `""` clears the baseline and turns drift detection off. `drift` follows the baseline:
         *     it may be sent when it equals the state the request leaves (`true` with a baseline, `false` without), and is a
         *     400 otherwise. Remediation (`provider_a` / `provider_a_gov` only) can be switched on or off at any time; it acts
         *     only while a baseline is set. `id`, `tenant_id` and the other fields the server fills in are not accepted.
         *
         *     Scheduling: a change of `scan_interval` takes effect at once; the next scheduled scan starts at
         *     max(end of the last scan, time of the last interval change) + `scan_interval`. Turning the schedule on plans the
         *     next scan the same way; turning it off clears `next_scan_at`.
         * @example {
         *       "baseline_id": "7b2e4f6a-1c3d-4e5f-8a9b-0c1d2e3f4a5b",
         *       "remediation": true,
         *       "scan_interval": 1800,
         *       "provider_options": {
         *         "provider_a": {
         *           "regions": [
         *             "us-east-1",
         *             "us-west-2",
         *             "eu-west-1"
         *           ]
         *         }
         *       }
         *     }
         */
        UpdateEnvironmentInput: {
            /**
             * @description Id of a `SUCCESS` scan of this environment: sets or replaces the baseline and turns drift detection on
             *     (another environment's scan, or a scan not `SUCCESS`, is a 400). `""` clears the baseline and turns drift
             *     detection off.
             */
            baseline_id?: string;
            /** @description Replaces the compliance families (valid for the provider); `[]` evaluates none. At most 18: each family of `ComplianceFamily` once. `null` means not given: unchanged, as when the field is absent. */
            compliance_families?: components["schemas"]["ComplianceFamily"][] | null;
            /**
             * @description Drift detection follows the baseline and cannot be set on its own: accepted when it equals the state the
             *     request leaves, a 400 saying to use `baseline_id` otherwise.
             */
            drift?: boolean;
            /** @description New name. */
            name?: string;
            provider?: components["schemas"]["Provider"];
            provider_options?: components["schemas"]["ProviderOptionsUpdateInput"];
            /** @description Replaces the resource types the service may correct. At most 100 (a provider's catalogue has 30 types; the bound leaves it room to grow). `null` means not given: unchanged, as when the field is absent. */
            remediate_resource_types?: components["schemas"]["ResourceType"][] | null;
            /** @description Baseline enforcement on / off; `provider_a` and `provider_a_gov` only (400 for `provider_b`). Acts only while a baseline is set. */
            remediation?: boolean;
            /** @description Seconds between scheduled scans, at least 600, default 86400, at most 2^53 - 1 (9007199254740991); an integer or a string of digits; always answered as an integer. */
            scan_interval?: number | string;
            /** @description Whether scheduled scans run; a boolean or the string `true` / `false`; always answered as a boolean. */
            scan_schedule_enabled?: boolean | ("true" | "false");
            /**
             * @description `provider_b` only: replaces the resource groups to scan; `["*"]` means all, including new ones, and sending a
             *     subset stops the automatic addition until `["*"]` is sent again. Same as
             *     `provider_options.provider_b.survey_resource_groups` (both sent must be equal).
             *     At most 980, the most resource groups a `provider_b` subscription holds.
             */
            survey_resource_groups?: string[];
            /** @description Replaces the resource types to scan (supported by the provider). At most 100 (a provider's catalogue has 30 types; the bound leaves it room to grow). `null` means not given: unchanged, as when the field is absent. */
            survey_resource_types?: components["schemas"]["ResourceType"][] | null;
        };
        /**
         * @description The full new state of a notification (PUT replaces every field; absent optional fields become empty). At least one of `emails` (non-empty) or `webhook_url` is required (400 otherwise).
         * @example {
         *       "name": "Production drift",
         *       "events": [
         *         "drift",
         *         "remediation"
         *       ],
         *       "environments": [
         *         "3f1c2a9e-8b7d-4c6e-9f10-2a3b4c5d6e7f"
         *       ],
         *       "emails": [
         *         "secops@example.com"
         *       ],
         *       "webhook_url": "https://hooks.example.com/compliance",
         *       "webhook_secret": "9f8e7d6c5b4a39281706f5e4d3c2b1a0"
         *     }
         */
        UpdateNotificationInput: {
            /** @description Email recipients. */
            emails?: string[];
            /** @description Ids of the environments to watch, or `["*"]` alone for all environments, including future ones. An id that names no environment of the organization is a 400. At most 1000, like the environments of a group. */
            environments: string[];
            /** @description Event kinds that trigger it. */
            events: ("compliance" | "drift" | "remediation")[];
            /** @description Name of the notification. */
            name: string;
            /** @description HMAC-SHA256 key for webhook signatures. Write-only, never returned; because it cannot be read back, an absent `webhook_secret` keeps the stored one (required when a webhook is set and none is stored). Dropped when `webhook_url` is absent. */
            webhook_secret?: string;
            /**
             * Format: uri
             * @description URL that receives a signed HTTP POST per delivery. A URL whose host is an IP address outside public unicast space is refused: every range of IANA's IPv4 and IPv6 special-purpose address registries (loopback, private, link-local, carrier-grade NAT, benchmarking `198.18.0.0/15`, documentation, multicast, broadcast, reserved) and the prefixes that reach IPv4 hosts from IPv6 (IPv4-mapped `::ffff:0:0/96`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`, Teredo `2001::/32`) whatever address they embed — with a 400 saying why, unless the server runs with `WEBHOOK_ALLOW_PRIVATE=true` (for local use). A host name is checked at each delivery against every address it resolves to, and the delivery connects only to an address that passed; one that resolves to such addresses only fails the delivery.
             */
            webhook_url?: string;
        };
        /** @description A user of the organization. */
        User: {
            /**
             * Format: email
             * @description Email address (sign-in name).
             */
            email: string;
            /** @description First name. */
            first_name?: string;
            /** @description Groups of the user, group id to name. At most 1000 groups. */
            groups?: {
                [key: string]: string;
            };
            /**
             * Format: uuid
             * @description Id of the user.
             */
            id: string;
            /** @description Last name. */
            last_name?: string;
            /** @description Whether the user owns the organization: the admin the server creates at first start. Users who accepted an invite are not owners. */
            owner?: boolean;
            /**
             * @description Kind of record; always `user`.
             * @enum {string}
             */
            resource_type?: "user";
            /**
             * @description `ACTIVE` can sign in to the web console. Every user this server makes is `ACTIVE` from the start: the admin it creates at first start, and each person who accepts an invite, since accepting sets their password in the same step. An invited person who has not accepted yet is no user (their invite is `PENDING`), so `INVITED` is never answered; `DISABLED` (cannot sign in) is not set by any operation.
             * @enum {string}
             */
            status: "ACTIVE" | "INVITED" | "DISABLED";
        };
        /** @description A page of users. */
        Users: {
            /**
             * Format: int64
             * @description Number of items in this page.
             */
            count: number;
            /** @description Whether more items exist past this page. */
            is_truncated: boolean;
            /** @description The page. At most 1000, the largest `max_items`. */
            items: components["schemas"]["User"][];
            /**
             * Format: int64
             * @description Present only when `is_truncated` is true; the `offset` of the next page.
             */
            next_offset?: number;
        };
    };
    responses: {
        /**
         * @description The request is invalid: malformed JSON (`InvalidJSON`), a missing required parameter or field
         *     (`MissingParameter`), a value that breaks a rule (`InvalidParameterValue`), an unknown field or query parameter
         *     (`BadRequest`, also a group name taken), an address already invited (`AlreadyInvitedError`) or already a user of
         *     the organization (`AlreadyAttachedToTenantError`), or a scan started while one of the environment is in progress
         *     (`WorkAlreadyStartedException`). `message` names the field and the rule.
         */
        BadRequest: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["BadRequestError"];
            };
        };
        /** @description The request conflicts with the current state (e.g. a custom rule with that name already exists, or the organization has as many records of that kind as a setting of the server allows, which the message names). */
        Conflict: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ConflictError"];
            };
        };
        /** @description The policy of the caller's groups does not allow this operation (`AuthorizationError`) or does not cover this environment (`EnvironmentAccessDenied`). */
        Forbidden: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["AuthorizationError"];
            };
        };
        /** @description An unexpected server error (`InternalServerError`) or a storage failure (`DatabaseError`). Safe to retry idempotent requests. */
        InternalServerError: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["InternalServerError"];
            };
        };
        /** @description An id in the path, query or body does not name a record of the caller's organization. `message` names the parameter and the id. */
        NotFound: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["NotFoundError"];
            };
        };
        /** @description This operation is described but not implemented yet by this server. */
        NotImplemented: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["NotImplementedError"];
            };
        };
        /** @description Not Modified: the representation named by `If-None-Match` is still current; no body. `ETag` names it again. */
        NotModified: {
            headers: {
                /** @description The current answer's entity tag, the one `If-None-Match` named (see "Conditional requests" above). */
                ETag?: string;
                [name: string]: unknown;
            };
            content?: never;
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
         * @description Too many failed authentications (see "Authentication" above): the client address, or the client id from this
         *     address, reached a limit, and the credentials were not checked. By default at most 10 failures per client
         *     address and client id together, 50 per client address and 100 per client id across the addresses that failed
         *     with it, in any 15 minutes. Retry after the number of seconds in `Retry-After`, when the oldest counted
         *     failure leaves the window.
         */
        TooManyRequests: {
            headers: {
                /** @description Seconds until an attempt may be checked again (at most the window, which is at most a day). */
                "Retry-After"?: number;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["TooManyRequestsError"];
            };
        };
        /** @description The `Authorization` header is missing, malformed, or carries an unknown, revoked or wrong client id / secret. */
        Unauthorized: {
            headers: {
                /** @description Always `Basic realm="compliance", charset="UTF-8"` (RFC 7617; credentials are read as UTF-8). */
                "WWW-Authenticate"?: "Basic realm=\"compliance\", charset=\"UTF-8\"";
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["AuthenticationError"];
            };
        };
    };
    parameters: {
        /** @description Only the records of this email address (exact match, case-insensitive). */
        email_filter: string;
        /**
         * @description Id of the environment.
         * @example 3f1c2a9e-8b7d-4c6e-9f10-2a3b4c5d6e7f
         */
        environment_id_path: string;
        /**
         * @description Id of the environment.
         * @example 3f1c2a9e-8b7d-4c6e-9f10-2a3b4c5d6e7f
         */
        environment_id_query: string;
        /** @description Only results of these compliance families (repeatable). Absent = every family of the scan's environment. */
        family_filter: ("CIS" | "CISCONTROLS" | "CSACCM" | "FBP" | "GDPR" | "HIPAA" | "ISO27001" | "NIST" | "PCI" | "SOC2" | "CISPROVB" | "CISCONTROLSPROVB" | "GDPRPROVB" | "HIPAAPROVB" | "ISO27001PROVB" | "NISTPROVB" | "PCIPROVB" | "SOC2PROVB")[];
        /**
         * @description Entity tags of answers the caller holds (`W/"…"`, comma-separated), or `*` (see "Conditional requests" above):
         *     when one of them is the current answer's `ETag`, or with `*`, the answer is `304 Not Modified` without a body.
         *     A stale or unknown tag is answered as if the header were absent.
         */
        if_none_match: string;
        /**
         * @description Id of the invite.
         * @example 8e0a2c4e-6a8c-4e0a-8c2e-4a6c8e0a2c4e
         */
        invite_id_path: string;
        /** @description Maximum number of items in the page. */
        max_items: number;
        /** @description Maximum number of items in the page (default 10 for groups). */
        max_items_groups: number;
        /**
         * @description Id of the notification (its `notification_id`).
         * @example 2c4e6a8b-0d1f-4a3c-8e5b-7d9f1a3c5e7b
         */
        notification_id_path: string;
        /** @description Number of items to skip; send the previous page's `next_offset` to read the next page. At most 2^53 - 1, the largest integer a JSON number holds exactly (a larger value is a 400). */
        offset: number;
        /** @description Sort direction (default ascending). */
        order_direction_asc: "asc" | "desc";
        /** @description Sort direction (default newest / last first). */
        order_direction_desc: "asc" | "desc";
        /** @description Only items whose `created_at` is at or after this time (Unix seconds, at most 2^53 - 1). Must not be after `range_to`. */
        range_from: number;
        /** @description Only items whose `created_at` is at or before this time (Unix seconds, at most 2^53 - 1). */
        range_to: number;
        /** @description Only these resource types (repeatable, bare, e.g. `resource_type=PROVA.S3.Bucket`). At most 100 (a provider's catalogue has 30 types). */
        resource_type_filter: string[];
        /**
         * @description Id of the custom rule.
         * @example 5d7f9b1d-3f5a-4c7e-9a0c-2e4a6c8e0a2c
         */
        rule_id_path: string;
        /**
         * @description Id of the scan.
         * @example 7b2e4f6a-1c3d-4e5f-8a9b-0c1d2e3f4a5b
         */
        scan_id_path: string;
        /**
         * @description Id of the user.
         * @example 1f3b5d7f-9b1d-4f3b-8d5f-7b9d1f3b5d7f
         */
        user_id_path: string;
    };
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    listEnvironments: {
        parameters: {
            query?: {
                /** @description Maximum number of items in the page. */
                max_items?: components["parameters"]["max_items"];
                /** @description Number of items to skip; send the previous page's `next_offset` to read the next page. At most 2^53 - 1, the largest integer a JSON number holds exactly (a larger value is a 400). */
                offset?: components["parameters"]["offset"];
                /** @description Sort key. */
                order_by?: "created_at" | "name" | "provider" | "updated_at";
                /** @description Sort direction (default newest / last first). */
                order_direction?: components["parameters"]["order_direction_desc"];
                /**
                 * @description JSON-encoded array of search terms, all of which must match, e.g. `["provider:provider_a","name:prod"]`.
                 *     Prefixes: `provider:<provider>` (exact), `name:<text>`, `id:<text>`, `arn:<text>` (role ARN or provider_b
                 *     subscription id), `status:<scan status>` (the environment's `scan_status`, exact); `<text>` matches a
                 *     case-insensitive substring. A term without prefix matches a substring of the name. Malformed JSON or an
                 *     unknown prefix is a 400.
                 */
                query?: string;
            };
            header?: {
                /**
                 * @description Entity tags of answers the caller holds (`W/"…"`, comma-separated), or `*` (see "Conditional requests" above):
                 *     when one of them is the current answer's `ETag`, or with `*`, the answer is `304 Not Modified` without a body.
                 *     A stale or unknown tag is answered as if the header were absent.
                 */
                "If-None-Match"?: components["parameters"]["if_none_match"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of environments. */
            200: {
                headers: {
                    /** @description A weak entity tag of this answer (see "Conditional requests"): it names the database's version of the organization's list of environments, which any write of one of its environments moves (a new, changed or deleted environment, a scan starting or ending); the request's path and query; and the caller's view, its organization and the environments its groups cover (a caller restricted by groups gets another tag). Send it in `If-None-Match` to be answered `304` while it is current. */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Environments"];
                };
            };
            304: components["responses"]["NotModified"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    createEnvironment: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description The new environment. */
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateEnvironmentInput"];
            };
        };
        responses: {
            /** @description The created environment. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Environment"];
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
    getEnvironment: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Entity tags of answers the caller holds (`W/"…"`, comma-separated), or `*` (see "Conditional requests" above):
                 *     when one of them is the current answer's `ETag`, or with `*`, the answer is `304 Not Modified` without a body.
                 *     A stale or unknown tag is answered as if the header were absent.
                 */
                "If-None-Match"?: components["parameters"]["if_none_match"];
            };
            path: {
                /**
                 * @description Id of the environment.
                 * @example 3f1c2a9e-8b7d-4c6e-9f10-2a3b4c5d6e7f
                 */
                environment_id: components["parameters"]["environment_id_path"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The environment and its summary. */
            200: {
                headers: {
                    /** @description A weak entity tag of this answer (see "Conditional requests"): it names the database's version of the environment, which any write of it or of one of its scans moves (so its summary too); the request's path and query; and the caller's view, its organization and the environments its groups cover (a caller restricted by groups gets another tag). Send it in `If-None-Match` to be answered `304` while it is current. */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvironmentWithSummary"];
                };
            };
            304: components["responses"]["NotModified"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    deleteEnvironment: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description Id of the environment.
                 * @example 3f1c2a9e-8b7d-4c6e-9f10-2a3b4c5d6e7f
                 */
                environment_id: components["parameters"]["environment_id_path"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted; no body. */
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
    updateEnvironment: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description Id of the environment.
                 * @example 3f1c2a9e-8b7d-4c6e-9f10-2a3b4c5d6e7f
                 */
                environment_id: components["parameters"]["environment_id_path"];
            };
            cookie?: never;
        };
        /** @description The fields to change. */
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdateEnvironmentInput"];
            };
        };
        responses: {
            /** @description All details of the updated environment. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Environment"];
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
    listEvents: {
        parameters: {
            query: {
                /** @description Only drift / remediation events with one of these resource changes (repeatable). */
                change?: ("ADDED" | "MODIFIED" | "REMOVED")[];
                /**
                 * @description Id of the environment.
                 * @example 3f1c2a9e-8b7d-4c6e-9f10-2a3b4c5d6e7f
                 */
                environment_id: components["parameters"]["environment_id_query"];
                /** @description Only these kinds of events (repeatable); `REMEDIATION` = baseline enforcement. */
                event_type?: ("COMPLIANCE" | "DRIFT" | "REMEDIATION")[];
                /** @description Maximum number of items in the page. */
                max_items?: components["parameters"]["max_items"];
                /** @description Number of items to skip; send the previous page's `next_offset` to read the next page. At most 2^53 - 1, the largest integer a JSON number holds exactly (a larger value is a 400). */
                offset?: components["parameters"]["offset"];
                /** @description Only items whose `created_at` is at or after this time (Unix seconds, at most 2^53 - 1). Must not be after `range_to`. */
                range_from?: components["parameters"]["range_from"];
                /** @description Only items whose `created_at` is at or before this time (Unix seconds, at most 2^53 - 1). */
                range_to?: components["parameters"]["range_to"];
                /** @description Only `REMEDIATION` events with this outcome (repeatable): `true` = the resource was reverted to the baseline, `false` = the revert failed (`error` says why). The values are the event's `remediated` field. Compliance and drift events have no outcome, so any `remediated` filter leaves them out; `true` and `false` together list every remediation event. */
                remediated?: ("true" | "false")[];
                /** @description Only these resource types (repeatable, bare, e.g. `resource_type=PROVA.S3.Bucket`). At most 100 (a provider's catalogue has 30 types). */
                resource_type?: components["parameters"]["resource_type_filter"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of events. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Events"];
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
    listGroups: {
        parameters: {
            query?: {
                /** @description Maximum number of items in the page (default 10 for groups). */
                max_items?: components["parameters"]["max_items_groups"];
                /** @description Number of items to skip; send the previous page's `next_offset` to read the next page. At most 2^53 - 1, the largest integer a JSON number holds exactly (a larger value is a 400). */
                offset?: components["parameters"]["offset"];
                /** @description Sort key. */
                order_by?: "name";
                /** @description Sort direction (default ascending). */
                order_direction?: components["parameters"]["order_direction_asc"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of groups. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Groups"];
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
    createGroup: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description The new group. */
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateGroupInput"];
            };
        };
        responses: {
            /** @description The created group. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Group"];
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
    listInvites: {
        parameters: {
            query?: {
                /** @description Only the records of this email address (exact match, case-insensitive). */
                email?: components["parameters"]["email_filter"];
                /** @description Maximum number of items in the page. */
                max_items?: components["parameters"]["max_items"];
                /** @description Number of items to skip; send the previous page's `next_offset` to read the next page. At most 2^53 - 1, the largest integer a JSON number holds exactly (a larger value is a 400). */
                offset?: components["parameters"]["offset"];
                /** @description Sort direction (default newest / last first). */
                order_direction?: components["parameters"]["order_direction_desc"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of invites. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Invites"];
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
    createInvite: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description The address and the groups to grant. */
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateInviteInput"];
            };
        };
        responses: {
            /** @description The created invite, `PENDING`. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Invite"];
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
    getInviteById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description Id of the invite.
                 * @example 8e0a2c4e-6a8c-4e0a-8c2e-4a6c8e0a2c4e
                 */
                invite_id: components["parameters"]["invite_id_path"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The invite. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Invite"];
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
    getPermissions: {
        parameters: {
            query?: {
                /** @description Types to be able to remediate (repeatable). Default every supported type. At most 100 (a provider's catalogue has 30 types). */
                remediate_resource_type?: string[];
                /** @description Types to be able to scan (repeatable). Default every supported type. At most 100 (a provider's catalogue has 30 types). */
                survey_resource_type?: string[];
            };
            header?: never;
            path: {
                /**
                 * @description The provider (`provider_b` has no role policy to generate).
                 * @example provider_a
                 */
                provider: "provider_a" | "provider_a_gov";
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The permissions, keyed `provider_a` for both providers. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Permissions"];
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
    getResourceTypes: {
        parameters: {
            query?: {
                /** @description Whether to include resource types in beta. Accepted for clients of the public service; this catalog has no beta types, so `true` lists the same types as `false`. */
                beta_resources?: boolean;
                /** @description Region whose regional types to include; `*` = all regions of the provider. Absent = global types only. */
                region?: "us-east-1" | "us-east-2" | "us-west-1" | "us-west-2" | "ap-south-1" | "ap-northeast-2" | "ap-southeast-1" | "ap-southeast-2" | "ap-northeast-1" | "ca-central-1" | "eu-central-1" | "eu-west-1" | "eu-west-2" | "eu-west-3" | "sa-east-1" | "us-gov-east-1" | "us-gov-west-1" | "*";
            };
            header?: never;
            path: {
                /**
                 * @description The provider.
                 * @example provider_a
                 */
                provider: "provider_a" | "provider_a_gov" | "provider_b";
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The supported and recommended resource types. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ResourceTypeMetadata"];
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
    listNotifications: {
        parameters: {
            query?: {
                /** @description Maximum number of items in the page. */
                max_items?: components["parameters"]["max_items"];
                /** @description Number of items to skip; send the previous page's `next_offset` to read the next page. At most 2^53 - 1, the largest integer a JSON number holds exactly (a larger value is a 400). */
                offset?: components["parameters"]["offset"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of notifications. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Notifications"];
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
    createNotification: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description The new notification. */
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateNotificationInput"];
            };
        };
        responses: {
            /** @description The created notification. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Notification"];
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
    updateNotification: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description Id of the notification (its `notification_id`).
                 * @example 2c4e6a8b-0d1f-4a3c-8e5b-7d9f1a3c5e7b
                 */
                notification_id: components["parameters"]["notification_id_path"];
            };
            cookie?: never;
        };
        /** @description The full new state of the notification. */
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdateNotificationInput"];
            };
        };
        responses: {
            /** @description The updated notification. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Notification"];
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
    deleteNotification: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description Id of the notification (its `notification_id`).
                 * @example 2c4e6a8b-0d1f-4a3c-8e5b-7d9f1a3c5e7b
                 */
                notification_id: components["parameters"]["notification_id_path"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted; no body. */
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
    listNotificationDeliveries: {
        parameters: {
            query?: {
                /** @description Maximum number of items in the page. */
                max_items?: components["parameters"]["max_items"];
                /** @description Number of items to skip; send the previous page's `next_offset` to read the next page. At most 2^53 - 1, the largest integer a JSON number holds exactly (a larger value is a 400). */
                offset?: components["parameters"]["offset"];
            };
            header?: never;
            path: {
                /**
                 * @description Id of the notification (its `notification_id`).
                 * @example 2c4e6a8b-0d1f-4a3c-8e5b-7d9f1a3c5e7b
                 */
                notification_id: components["parameters"]["notification_id_path"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of delivery attempts. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NotificationDeliveries"];
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
    listCustomRules: {
        parameters: {
            query?: {
                /** @description Maximum number of items in the page. */
                max_items?: components["parameters"]["max_items"];
                /** @description Number of items to skip; send the previous page's `next_offset` to read the next page. At most 2^53 - 1, the largest integer a JSON number holds exactly (a larger value is a 400). */
                offset?: components["parameters"]["offset"];
                /**
                 * @description JSON-encoded array of search terms, all of which must match, e.g. `["resource_type:PROVA.S3","versioning"]`.
                 *     Prefixes: `name:<text>`, `id:<text>`, `resource_type:<text>`, `provider:<PROVIDER_A|PROVIDER_A_GOV|PROVIDER_B>`
                 *     (exact), `severity:<severity>` (exact); `<text>` matches a case-insensitive substring. A term without prefix
                 *     matches a substring of the name or description. Malformed JSON or an unknown prefix is a 400.
                 */
                query?: string;
                /** @description Only rules with this status. */
                status?: "ENABLED" | "DISABLED" | "INVALID";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of custom rules. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CustomRules"];
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
    createCustomRule: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description The new rule. */
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateCustomRuleInput"];
            };
        };
        responses: {
            /** @description The created rule and the warnings found in its text. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CustomRuleWithErrors"];
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
    getCustomRule: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description Id of the custom rule.
                 * @example 5d7f9b1d-3f5a-4c7e-9a0c-2e4a6c8e0a2c
                 */
                rule_id: components["parameters"]["rule_id_path"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The rule. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CustomRule"];
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
    deleteCustomRule: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description Id of the custom rule.
                 * @example 5d7f9b1d-3f5a-4c7e-9a0c-2e4a6c8e0a2c
                 */
                rule_id: components["parameters"]["rule_id_path"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted; no body. */
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
    updateCustomRule: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description Id of the custom rule.
                 * @example 5d7f9b1d-3f5a-4c7e-9a0c-2e4a6c8e0a2c
                 */
                rule_id: components["parameters"]["rule_id_path"];
            };
            cookie?: never;
        };
        /** @description The fields to change. */
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdateCustomRuleInput"];
            };
        };
        responses: {
            /** @description The updated rule and the warnings found in its text. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CustomRuleWithErrors"];
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
    testCustomRule: {
        parameters: {
            query?: {
                /** @description Also answer `links.output`, a URL (relative to the server's root) where a `GET` downloads the same document for an hour. */
                via_download?: boolean;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description The rule text, the resource type and the scan to test against. */
        requestBody: {
            content: {
                "application/json": components["schemas"]["TestCustomRuleInput"];
            };
        };
        responses: {
            /** @description The overall result and the result per resource. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TestCustomRuleOutput"];
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
    testCustomRuleInput: {
        parameters: {
            query: {
                /** @description The resource type whose documents to return (bare, e.g. `PROVA.S3.Bucket`). Absent: every resource type of the scan. */
                resource_type?: string;
                /**
                 * @description The scan whose resources to return.
                 * @example 7b2e4f6a-1c3d-4e5f-8a9b-0c1d2e3f4a5b
                 */
                scan_id: string;
                /** @description Also answer `links.output`, a URL (relative to the server's root) where a `GET` with the same credentials downloads the same document. */
                via_download?: boolean;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The resource documents. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TestCustomRuleInputScan"];
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
    getCustomRuleTestOutput: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The id in the `links.output` of the test's answer.
                 * @example 3f0c7a52-9d1e-4b6a-8c2f-5e7d9a1b3c4d
                 */
                output_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The answer of the test. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TestCustomRuleOutput"];
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
    listScans: {
        parameters: {
            query: {
                /**
                 * @description Id of the environment.
                 * @example 3f1c2a9e-8b7d-4c6e-9f10-2a3b4c5d6e7f
                 */
                environment_id: components["parameters"]["environment_id_query"];
                /** @description Maximum number of items in the page. */
                max_items?: components["parameters"]["max_items"];
                /** @description Number of items to skip; send the previous page's `next_offset` to read the next page. At most 2^53 - 1, the largest integer a JSON number holds exactly (a larger value is a 400). */
                offset?: components["parameters"]["offset"];
                /** @description Sort key. */
                order_by?: "created_at";
                /** @description Sort direction (default newest / last first). */
                order_direction?: components["parameters"]["order_direction_desc"];
                /** @description Only items whose `created_at` is at or after this time (Unix seconds, at most 2^53 - 1). Must not be after `range_to`. */
                range_from?: components["parameters"]["range_from"];
                /** @description Only items whose `created_at` is at or before this time (Unix seconds, at most 2^53 - 1). */
                range_to?: components["parameters"]["range_to"];
                /** @description Only scans with one of these statuses (repeatable). */
                status?: ("IN_PROGRESS" | "SUCCESS" | "ERROR")[];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of scans. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Scans"];
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
    createScan: {
        parameters: {
            query: {
                /**
                 * @description Id of the environment.
                 * @example 3f1c2a9e-8b7d-4c6e-9f10-2a3b4c5d6e7f
                 */
                environment_id: components["parameters"]["environment_id_query"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The new scan, `IN_PROGRESS`. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Scan"];
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
    getScan: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Entity tags of answers the caller holds (`W/"…"`, comma-separated), or `*` (see "Conditional requests" above):
                 *     when one of them is the current answer's `ETag`, or with `*`, the answer is `304 Not Modified` without a body.
                 *     A stale or unknown tag is answered as if the header were absent.
                 */
                "If-None-Match"?: components["parameters"]["if_none_match"];
            };
            path: {
                /**
                 * @description Id of the scan.
                 * @example 7b2e4f6a-1c3d-4e5f-8a9b-0c1d2e3f4a5b
                 */
                scan_id: components["parameters"]["scan_id_path"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The scan and its summary. */
            200: {
                headers: {
                    /** @description A weak entity tag of this answer (see "Conditional requests"): it names the database's version of the scan's environment, which any write of the scan, or of its environment and its other scans, moves; the request's path and query; and the caller's view, its organization and the environments its groups cover (a caller restricted by groups gets another tag). Send it in `If-None-Match` to be answered `304` while it is current. */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ScanWithSummary"];
                };
            };
            304: components["responses"]["NotModified"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getComplianceByResourceTypes: {
        parameters: {
            query?: {
                /** @description Only results of these compliance families (repeatable). Absent = every family of the scan's environment. */
                family?: components["parameters"]["family_filter"];
                /** @description Maximum number of items in the page. */
                max_items?: components["parameters"]["max_items"];
                /** @description Number of items to skip; send the previous page's `next_offset` to read the next page. At most 2^53 - 1, the largest integer a JSON number holds exactly (a larger value is a 400). */
                offset?: components["parameters"]["offset"];
                /** @description Only these resource types (repeatable, bare, e.g. `resource_type=PROVA.S3.Bucket`). At most 100 (a provider's catalogue has 30 types). */
                resource_type?: components["parameters"]["resource_type_filter"];
            };
            header?: {
                /**
                 * @description Entity tags of answers the caller holds (`W/"…"`, comma-separated), or `*` (see "Conditional requests" above):
                 *     when one of them is the current answer's `ETag`, or with `*`, the answer is `304 Not Modified` without a body.
                 *     A stale or unknown tag is answered as if the header were absent.
                 */
                "If-None-Match"?: components["parameters"]["if_none_match"];
            };
            path: {
                /**
                 * @description Id of the scan.
                 * @example 7b2e4f6a-1c3d-4e5f-8a9b-0c1d2e3f4a5b
                 */
                scan_id: components["parameters"]["scan_id_path"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of results by resource type. */
            200: {
                headers: {
                    /** @description A weak entity tag of this answer (see "Conditional requests"): it names the database's version of the scan's environment, which any write of the scan (its status), or of its environment and its other scans, moves; a finished scan's results never change; the request's path and query; and the caller's view, its organization and the environments its groups cover (a caller restricted by groups gets another tag). Send it in `If-None-Match` to be answered `304` while it is current. */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ComplianceByResourceTypeOutput"];
                };
            };
            304: components["responses"]["NotModified"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getComplianceByRules: {
        parameters: {
            query?: {
                /** @description Only results of these compliance families (repeatable). Absent = every family of the scan's environment. */
                family?: components["parameters"]["family_filter"];
                /** @description Maximum number of items in the page. */
                max_items?: components["parameters"]["max_items"];
                /** @description Number of items to skip; send the previous page's `next_offset` to read the next page. At most 2^53 - 1, the largest integer a JSON number holds exactly (a larger value is a 400). */
                offset?: components["parameters"]["offset"];
                /** @description Only results with one of these values (repeatable). */
                result?: ("PASS" | "FAIL" | "UNKNOWN")[];
            };
            header?: {
                /**
                 * @description Entity tags of answers the caller holds (`W/"…"`, comma-separated), or `*` (see "Conditional requests" above):
                 *     when one of them is the current answer's `ETag`, or with `*`, the answer is `304 Not Modified` without a body.
                 *     A stale or unknown tag is answered as if the header were absent.
                 */
                "If-None-Match"?: components["parameters"]["if_none_match"];
            };
            path: {
                /**
                 * @description Id of the scan.
                 * @example 7b2e4f6a-1c3d-4e5f-8a9b-0c1d2e3f4a5b
                 */
                scan_id: components["parameters"]["scan_id_path"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of results by rule. */
            200: {
                headers: {
                    /** @description A weak entity tag of this answer (see "Conditional requests"): it names the database's version of the scan's environment, which any write of the scan (its status), or of its environment and its other scans, moves; a finished scan's results never change; the request's path and query; and the caller's view, its organization and the environments its groups cover (a caller restricted by groups gets another tag). Send it in `If-None-Match` to be answered `304` while it is current. */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ComplianceByRules"];
                };
            };
            304: components["responses"]["NotModified"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getSwagger: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /**
             * @description The bundled Swagger 2.0 document of this API: YAML text, or with `Accept: application/json` the same
             *     document as a JSON object.
             */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": string | Record<string, never>;
                    "application/yaml": string | Record<string, never>;
                };
            };
            400: components["responses"]["BadRequest"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listUsers: {
        parameters: {
            query?: {
                /** @description Only the records of this email address (exact match, case-insensitive). */
                email?: components["parameters"]["email_filter"];
                /** @description Maximum number of items in the page. */
                max_items?: components["parameters"]["max_items"];
                /** @description Number of items to skip; send the previous page's `next_offset` to read the next page. At most 2^53 - 1, the largest integer a JSON number holds exactly (a larger value is a 400). */
                offset?: components["parameters"]["offset"];
                /** @description Sort direction (default newest / last first). */
                order_direction?: components["parameters"]["order_direction_desc"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of users. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Users"];
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
    editUsersGroupAssignments: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description The users and their new groups. */
        requestBody: {
            content: {
                "application/json": components["schemas"]["EditUsersGroupAssignmentsInput"];
            };
        };
        responses: {
            /** @description The assignments were changed; the body is empty. */
            200: {
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
    getUserById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description Id of the user.
                 * @example 1f3b5d7f-9b1d-4f3b-8d5f-7b9d1f3b5d7f
                 */
                user_id: components["parameters"]["user_id_path"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The user. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["User"];
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
}
