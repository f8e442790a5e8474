/**
 * Generated from specs/conductor/ by `make generate`. Do not edit: change the spec and regenerate.
 */

export interface paths {
    "/accounts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List managed accounts
         * @description Lists the accounts the conductor manages, ordered by name, with the number of running processes in each. rbac: `accounts:read` on `account:<name>`; accounts the user may not read are left out.
         */
        get: operations["listAccounts"];
        put?: never;
        /**
         * Add an account to manage
         * @description Adds a cloud account. The name and the account ID must both be unique (409 otherwise); the account ID must match the provider (400 otherwise). Nothing is created in the cloud. rbac: `accounts:write` on `account:<name>`.
         */
        post: operations["addAccount"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/accounts/{account}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Remove an account
         * @description Stops managing an account. Nothing is deleted in the cloud. An account that running processes (any state but KILLED) still use cannot be removed: kill or release them first (409). rbac: `accounts:write` on `account:<name>`.
         */
        delete: operations["removeAccount"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/dry-run": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Request a dry-run of a command
         * @description Queues a dry-run: computes what the command would do, without changing anything, and answers at once with
         *     202 and the result's URL in `Location` (poll it with `GET /dry-run/{id}`, optionally with `timeout`).
         *
         *     - `RUN` (create a process): `account` is required; the body is the composition to run.
         *     - `UPDATE`: `process` is required; the body is the new composition.
         *     - `KILL`, `RESUME`: `process` is required; the body is ignored (it may be empty).
         *
         *     `command` is accepted in upper or lower case (`KILL` or `kill`; mixed case is a 400). For commands on a
         *     process, `account` may be omitted; when given it must be the process's account (400 otherwise). Missing required parameters, an invalid archive or a body missing for RUN
         *     or UPDATE are a 400 at once; an unknown process or account is a 404 at once. Problems found in the composition
         *     (invalid `composition.yaml`, violations of a validation library, an illegal state change such as resuming a
         *     running or locked process) make the dry-run end FAILED with them in `errors`, exactly as the real request
         *     would be refused. The plan: RUN creates (and, with `import_resources=true`, imports) every resource; UPDATE
         *     creates, updates, deletes or leaves (`none`) each resource, as `PUT /processes/{process}/composition` would;
         *     KILL deletes every resource that still exists; RESUME lists the corrections the resume would start when
         *     enforcement is on (none when it is off). The cloud is read but never changed.
         *     rbac: `dry-run:write` on `process:<alias>` (KILL, RESUME, UPDATE) or `account:<name>` (RUN).
         */
        post: operations["createDryRun"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/dry-run/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a dry-run's result
         * @description Returns the dry-run record. With `timeout` > 0 the answer waits until the dry-run is SUCCEEDED or FAILED or `timeout` seconds (at most 60) have passed, whichever comes first, and comes as soon as the result is ready; the record is then returned in whatever status it has. A waiting request costs the server nothing while it waits: the dry-run's job wakes it, and a result computed by another server process sharing the database is noticed within a second. rbac: `dry-run:read` on `dry-run:<id>`.
         */
        get: operations["getDryRun"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/processes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List running processes
         * @description Lists running processes (every state but KILLED; released processes are no longer managed), oldest first, without their resources. rbac: `processes:read` on `process:<alias>`; processes the user may not read are left out.
         */
        get: operations["listProcesses"];
        put?: never;
        /**
         * Create a process from a composition
         * @description Creates a process in an account from a composition archive and starts a job that creates its resources (and, with `import_resources=true`, adopts the resources listed under `imports`). The composition is checked before anything happens: an invalid archive or `composition.yaml`, or any violation of a validation library, is a 400 listing every problem in `errors` (violations as `rule.violation` with their location in `composition.yaml`; a type the account's provider lacks, or a missing or unknown region, as `composition.invalid`; with `import_resources=true`, an import naming no resource of that type in the account as `import.not_found` or `import.type_mismatch`). The process starts RUNNING with enforcement on and lock off; its resources are `pending` until the job has run (see `GET /processes/{process}/ops`); an adopted resource's desired state is the one it has when adopted. An account has at most 200 processes neither killed nor released, a setting of the server (`MAX_PROCESSES_PER_ACCOUNT`): one more is a 409 whose `errors` hold `process.quota_reached` at `query.account`, naming the setting and its value (`account 'prod-main' has 200 processes, the most it may have (MAX_PROCESSES_PER_ACCOUNT=200)`), and nothing is created; releasing a process, or killing one once it is KILLED, makes room. rbac: `processes:write` on `account:<name>`.
         */
        post: operations["createProcess"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/processes/{process}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The process's FID (UUID) or its alias.
                 * @example web-frontend
                 */
                process: components["parameters"]["process"];
            };
            cookie?: never;
        };
        /**
         * Get a process with its resources
         * @description Returns the process's details and resources. A KILLED process is found by its FID only (its alias is freed); a released process is not found. rbac: `processes:read` on `process:<alias>`.
         */
        get: operations["getProcess"];
        put?: never;
        post?: never;
        /**
         * Release or kill a process
         * @description Ends the management of a process.
         *
         *     - `kill=false` (default): releases the process at once: the conductor forgets it, its resources are left in
         *       the cloud untouched, its alias is freed; answer 200 Released. The process answers 404 afterwards.
         *     - `kill=true`: starts a job that deletes the process's resources, adopted ones included (state KILLING,
         *       then KILLED); answer 202 Accepted with the job's ops URL in `Location`. A KILLED process stays readable by
         *       FID; a resource the job could not delete is shown `failed`, with the reason in its ops.
         *
         *     A locked process refuses both with 409 until unlocked; so does a KILLING process, and a KILLED one for
         *     `kill=true` (releasing a KILLED process is allowed and removes it). rbac: `processes:write` on `process:<alias>`.
         */
        delete: operations["deleteProcess"];
        options?: never;
        head?: never;
        /**
         * Update a process's alias, state, enforcement or lock
         * @description Changes the alias, requests a state transition (`suspend`, `resume`, `kill`), and turns enforcement or the
         *     lock on or off, in one request applied entirely or not at all. Every change is recorded in the history.
         *
         *     - Transitions: `suspend` RUNNING -> SUSPENDED; `resume` SUSPENDED -> RUNNING; `kill` RUNNING or SUSPENDED ->
         *       KILLING -> KILLED (a job deletes the resources). Any other transition is a 409 Illegal state change, and so is
         *       any change to a KILLING or KILLED process.
         *     - A locked process refuses every transition with 409 until it is unlocked (`lock: false`, which may come in
         *       the same request as the action); alias and enforcement changes are allowed while locked.
         *     - An alias already used by another process is a 409 too (`errors[].code` `process.alias_taken`).
         *
         *     The answer is 202: `transaction_id` is the id of the job the change started (kill, or a drift correction
         *     after `resume` or enabling enforcement, started only when a resource differs from the composition),
         *     otherwise the id of the (last) history entry recorded for it, or, for a request that changes nothing, the
         *     id of the process's latest history entry; `Location` points at its ops. rbac: `processes:write` on
         *     `process:<alias>`.
         */
        patch: operations["updateProcess"];
        trace?: never;
    };
    "/processes/{process}/composition": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The process's FID (UUID) or its alias.
                 * @example web-frontend
                 */
                process: components["parameters"]["process"];
            };
            cookie?: never;
        };
        get?: never;
        /**
         * Replace a process's composition
         * @description Replaces the process's composition (its desired state) and starts a job that creates, updates and deletes resources to match it. The composition is checked first: an invalid archive or `composition.yaml`, or any violation of a validation library, is a 400 listing every problem. Only a RUNNING, unlocked process accepts a new composition; otherwise 409 Illegal state change. A resource keeps its cloud resource when the new composition names it with the same type and region (it is updated if its properties or tags differ); a new name, or a new type or region for a name, is created; a name the composition no longer has is deleted. `imports` in the new composition are ignored: resources the process adopted at creation stay adopted, and a new resource cannot take an adopted resource's name. rbac: `processes:write` on `process:<alias>`.
         */
        put: operations["updateProcessComposition"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/processes/{process}/history": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The process's FID (UUID) or its alias.
                 * @example web-frontend
                 */
                process: components["parameters"]["process"];
            };
            cookie?: never;
        };
        /**
         * Get a process's history
         * @description Lists every change to the process, oldest first: creation, composition updates, alias, enforcement and lock changes, suspend, resume, kill, release and drift corrections, each with the job id involved and the user who made it. `start` and `end` (`mm/dd/YYYY HH:MM`, UTC) restrict the time range. rbac: `processes:read` on `process:<alias>`.
         */
        get: operations["getProcessHistory"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/processes/{process}/ops": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The process's FID (UUID) or its alias.
                 * @example web-frontend
                 */
                process: components["parameters"]["process"];
            };
            cookie?: never;
        };
        /**
         * List cloud operations done for a process
         * @description Lists the cloud operations the process's jobs performed (create, update, delete, import, correct), oldest first. `first=true` keeps only the first job's batch (the creation), `last=true` only the most recent job's batch; both true is a 400. `start` and `end` (`mm/dd/YYYY HH:MM`, UTC) restrict the time range, applied after `first`/`last`. rbac: `processes:read` on `process:<alias>`.
         */
        get: operations["listProcessOps"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/processes/{process}/ops/{job_id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The job's id (the `job_id` or `transaction_id` of a 202 answer). The id of a history entry recorded for a change that started no job gives an empty list.
                 * @example 2f3e4d5c-6b7a-4980-a1b2-c3d4e5f60718
                 */
                job_id: string;
                /**
                 * @description The process's FID (UUID) or its alias.
                 * @example web-frontend
                 */
                process: components["parameters"]["process"];
            };
            cookie?: never;
        };
        /**
         * List the cloud operations of one job
         * @description Lists the cloud operations of one job of the process, oldest first. A job still running shows the operations done so far. `start` and `end` (`mm/dd/YYYY HH:MM`, UTC) restrict the time range. An id that is neither a job nor a history entry of this process is a 404. rbac: `processes:read` on `process:<alias>`.
         */
        get: operations["listProcessJobOps"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/rbac": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Attach an rbac policy
         * @description Attaches an rbac policy archive (a tar, optionally gzipped, holding `policy.yaml`) and applies it at once, replacing any attached policy (see `examples/conductor/policy/policy.yaml`). `policy.yaml` declares `users` (names of 1 to 64 letters, digits, `.`, `-`, `_` or `@`, starting with a letter or digit; `root` is implicit and may not be declared) and `rules`, each with non-empty lists of `principals` (declared user names, or patterns with `*`), `actions` (`<area>:read` or `<area>:write` with area `accounts`, `dry-run`, `processes`, `rbac` or `validations`; a pattern with `*` must match at least one of them) and `resources` (`account:<name>`, `process:<alias>`, `dry-run:<id>`, `validation:<name>`, `user:<name>`, `rbac`, or patterns with `*`). `*` matches any run of characters. A rule allows each listed principal each listed action on each listed resource; nothing else is allowed (there are no deny rules). An invalid archive or policy is a 400 listing every problem (code `policy.invalid` or `yaml.syntax`, location `policy.yaml` or a place in it such as `policy.yaml:rules[0].actions[1]`). Newly declared users have no secret until `PUT /rbac/users/{user}/secret` generates one; users declared before keep theirs; users the new policy no longer declares lose their secret. rbac: `rbac:write` on `rbac`.
         */
        post: operations["attachRbacPolicy"];
        /**
         * Detach the rbac policy
         * @description Detaches the attached policy. From then on the only user is `root`: declared users lose their secrets and are answered 401. 404 when no policy is attached. rbac: `rbac:write` on `rbac`.
         */
        delete: operations["detachRbacPolicy"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/rbac/archive": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Download the attached rbac policy archive
         * @description Returns the attached policy archive, byte for byte as uploaded (a tar, possibly gzipped), as `application/x-tar`. Errors are JSON bodies as everywhere else. 404 when no policy is attached. rbac: `rbac:read` on `rbac`.
         */
        get: operations["getRbacArchive"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/rbac/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the rbac policy status
         * @description Tells whether a policy is attached and applied, when it was attached, its SHA-256 and how many users it declares. rbac: `rbac:read` on `rbac`.
         */
        get: operations["getRbacStatus"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/rbac/users": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List users
         * @description Lists `root` and the users declared by the attached policy (only `root` when none is attached), with whether each has a secret. rbac: `rbac:read` on `user:<name>`; users the caller may not read are left out.
         */
        get: operations["listRbacUsers"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/rbac/users/{user}/secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Generate a new secret for a user
         * @description Generates a new secret for a declared user and returns it. The secret is shown only in this answer (only a hash is stored) and the user's previous secret stops working at once. `root`'s secret is managed by the server configuration and cannot be changed here (400). A name that is not a declared user of the attached policy is a 404. rbac: `rbac:write` on `user:<name>`.
         */
        put: operations["resetRbacUserSecret"];
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
         * Get the conductor API description
         * @description Returns this API's description, the bundled Swagger 2.0 (OpenAPI 2.0) document from which clients can be
         *     generated, as the compliance API serves its own at `GET /v0/swagger`: as YAML (`application/yaml`, byte for byte
         *     the published bundle) unless the request's `Accept` header prefers `application/json`, which answers the same
         *     document as a JSON object. No authentication, and no rbac action. An unknown query parameter is a 400.
         */
        get: operations["getConductorSwagger"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/validations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List validation libraries
         * @description Lists validation libraries, ordered by name, optionally only those whose names start with `prefix`. rbac: `validations:read` on `validation:<name>`; libraries the user may not read are left out.
         */
        get: operations["listValidations"];
        put?: never;
        /**
         * Upload a validation library
         * @description Uploads a validation library: a tar, optionally gzipped, holding `rules.yaml` with a list `rules` (at most 500), each with an `id` (1 to 64 letters, digits, `.`, `-` or `_`, unique in the library), a `resource_type` (a catalog type such as `PROVA.S3.Bucket`, or `*` for every type), a CEL `expression` and a `message` shown when the expression is not true (see `examples/conductor/validation/rules.yaml`). The expression sees one resource of the composition as `resource`: `{ name, type, region, tags, properties }` (plus `id` and `account`, empty strings: the resource does not exist yet). Every rule must compile: otherwise 400, with one error per rule (code `rule.compile`, location `rules.yaml:<rule id>`, message the CEL compiler's with line and column); structure problems are listed too (code `rules.invalid`, location such as `rules.yaml:rules[2].resource_type`). From then on the library applies to every dry-run, process creation and composition update: each resource failing a rule is one error `rule.violation`, located at the resource (`composition.yaml:resources[<index>]`), whose message is the rule's message followed by `(rule <id> of library <name>, resource <resource name>)`. A rule that cannot be evaluated on a resource (e.g. it reads a property the resource lacks) is a violation too, with the reason in the message. rbac: `validations:write` on `validation:<name>`.
         */
        post: operations["addValidation"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/validations/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The validation library's name.
                 * @example baseline-tags
                 */
                name: components["parameters"]["validationName"];
            };
            cookie?: never;
        };
        /**
         * Get a validation library's metadata
         * @description Returns the library's metadata: name, upload time, archive size and SHA-256, number of rules. rbac: `validations:read` on `validation:<name>`.
         */
        get: operations["getValidation"];
        put?: never;
        post?: never;
        /**
         * Delete a validation library
         * @description Deletes the library; it no longer applies to later dry-runs and process changes (running processes are not re-checked). rbac: `validations:write` on `validation:<name>`.
         */
        delete: operations["deleteValidation"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/validations/{name}/archive": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The validation library's name.
                 * @example baseline-tags
                 */
                name: components["parameters"]["validationName"];
            };
            cookie?: never;
        };
        /**
         * Download a validation library's archive
         * @description Returns the library's archive, exactly the bytes uploaded (a tar, possibly gzipped; its SHA-256 is the metadata's `sha256`), as `application/x-tar`. Errors are JSON bodies as everywhere else. rbac: `validations:read` on `validation:<name>`.
         */
        get: operations["getValidationArchive"];
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
        /**
         * @description A cloud account the conductor manages processes in.
         * @example {
         *       "name": "prod-main",
         *       "provider": "provider_a",
         *       "account_id": "123456789012",
         *       "created_at": 1735732800,
         *       "process_count": 3
         *     }
         */
        Account: {
            /** @description The provider's account identifier: 12 digits for provider_a and provider_a_gov, the subscription id (a UUID) for provider_b. Unique in the conductor. */
            account_id: string;
            /**
             * Format: int64
             * @description When the account was added (Unix seconds).
             */
            created_at: number;
            /** @description Unique name of the account in the conductor. */
            name: string;
            /**
             * Format: int32
             * @description Number of running processes (not killed, not released) in this account.
             */
            process_count: number;
            /**
             * @description The cloud provider.
             * @enum {string}
             */
            provider: "provider_a" | "provider_a_gov" | "provider_b";
        };
        /**
         * @description An account to manage. `account_id` must match `provider` (12 digits for provider_a and provider_a_gov, a UUID subscription id for provider_b); a mismatch is a 400.
         * @example {
         *       "name": "prod-main",
         *       "provider": "provider_a",
         *       "account_id": "123456789012"
         *     }
         */
        AccountInput: {
            /** @description 12 digits for provider_a and provider_a_gov; the subscription id (lower-case UUID) for provider_b. */
            account_id: string;
            /** @description Unique name of the account: lower-case letters, digits and dashes, starting with a letter or digit. */
            name: string;
            /**
             * @description The cloud provider.
             * @enum {string}
             */
            provider: "provider_a" | "provider_a_gov" | "provider_b";
        };
        /**
         * @description The managed accounts, ordered by name.
         * @example {
         *       "count": 2,
         *       "items": [
         *         {
         *           "name": "prod-main",
         *           "provider": "provider_a",
         *           "account_id": "123456789012",
         *           "created_at": 1735732800,
         *           "process_count": 3
         *         },
         *         {
         *           "name": "research",
         *           "provider": "provider_b",
         *           "account_id": "3f2c1d4e-5b6a-4c7d-8e9f-0a1b2c3d4e5f",
         *           "created_at": 1736942400,
         *           "process_count": 0
         *         }
         *       ]
         *     }
         */
        AccountList: {
            /**
             * Format: int32
             * @description Number of items.
             */
            count: number;
            /** @description Not paged; at most 100000 items. */
            items: components["schemas"]["Account"][];
        };
        /**
         * @description The account was removed from the conductor (nothing is deleted in the cloud).
         * @example {
         *       "name": "prod-main",
         *       "status": "Removed"
         *     }
         */
        AccountRemoved: {
            /** @description Name of the removed account. */
            name: string;
            /**
             * @description Always `Removed`.
             * @enum {string}
             */
            status: "Removed";
        };
        /**
         * @description The new composition was accepted; a job brings the resources to it.
         * @example {
         *       "fid": "7b0e4c52-3f8a-4d8e-9c61-1f2a3b4c5d6e",
         *       "job_id": "2f3e4d5c-6b7a-4980-a1b2-c3d4e5f60718"
         *     }
         */
        CompositionUpdateAccepted: {
            /**
             * Format: uuid
             * @description The process's FID.
             */
            fid: string;
            /**
             * Format: uuid
             * @description The id of the update job; its ops are at the `Location` header's URL.
             */
            job_id: string;
        };
        /**
         * @description A dry-run request and its result. `status` moves PENDING -> RUNNING -> SUCCEEDED or FAILED. SUCCEEDED: `plan` lists what the command would do and `errors` is empty. FAILED: `errors` lists why the command would fail (invalid composition, validation-library violations, illegal state change, ...) and `plan` is empty.
         * @example {
         *       "id": "0d6f3c2a-8b1e-4f5a-9c7d-2e4b6a8c0f13",
         *       "command": "UPDATE",
         *       "status": "SUCCEEDED",
         *       "process": "7b0e4c52-3f8a-4d8e-9c61-1f2a3b4c5d6e",
         *       "account": "prod-main",
         *       "errors": [],
         *       "plan": [
         *         {
         *           "operation": "update",
         *           "resource_name": "assets",
         *           "resource_type": "PROVA.S3.Bucket",
         *           "resource_id": "arn:prova:s3:::web-frontend-assets",
         *           "changes": {
         *             "versioning": {
         *               "from": false,
         *               "to": true
         *             }
         *           }
         *         },
         *         {
         *           "operation": "import",
         *           "resource_name": "logs",
         *           "resource_type": "PROVA.S3.Bucket",
         *           "resource_id": "arn:prova:s3:::web-frontend-logs",
         *           "changes": {
         *             "acl": "private",
         *             "versioning": false
         *           }
         *         }
         *       ],
         *       "created_at": 1741944600,
         *       "finished_at": 1741944603
         *     }
         */
        DryRun: {
            /** @description Name of the account the command acts in; null only when it could not be resolved. */
            account: string | null;
            /**
             * @description The command dry-run, in upper case whatever case it was requested in.
             * @enum {string}
             */
            command: "RUN" | "UPDATE" | "KILL" | "RESUME";
            /**
             * Format: int64
             * @description When the dry-run was requested (Unix seconds).
             */
            created_at: number;
            /** @description Why the command would fail; empty unless `status` is FAILED. */
            errors: components["schemas"]["ErrorDetail"][];
            /**
             * Format: int64
             * @description When it reached SUCCEEDED or FAILED (Unix seconds); null before.
             */
            finished_at: number | null;
            /**
             * Format: uuid
             * @description The dry-run request id.
             */
            id: string;
            /** @description The operations the command would perform, in order; empty unless `status` is SUCCEEDED. At most 100000 (a composition holds at most 500 resources, plus its imports). */
            plan: components["schemas"]["PlannedOperation"][];
            /**
             * Format: uuid
             * @description FID of the process the command targets; null for RUN.
             */
            process: string | null;
            /**
             * @description `PENDING` (queued), `RUNNING`, then `SUCCEEDED` (the command would succeed; see `plan`) or `FAILED` (it would fail; see `errors`).
             * @enum {string}
             */
            status: "PENDING" | "RUNNING" | "SUCCEEDED" | "FAILED";
        };
        /**
         * @description The dry-run was queued; fetch its result at the `Location` header's URL.
         * @example {
         *       "id": "0d6f3c2a-8b1e-4f5a-9c7d-2e4b6a8c0f13",
         *       "status": "PENDING"
         *     }
         */
        DryRunAccepted: {
            /**
             * Format: uuid
             * @description The dry-run request id.
             */
            id: string;
            /**
             * @description The dry-run's status when the answer was sent (usually `PENDING`).
             * @enum {string}
             */
            status: "PENDING" | "RUNNING" | "SUCCEEDED" | "FAILED";
        };
        /**
         * @description The body of every error answer. `code` repeats the HTTP status, `message` names the error, `errors` details each problem found (possibly none).
         * @example {
         *       "code": 400,
         *       "message": "Bad request",
         *       "errors": [
         *         {
         *           "code": "query.start",
         *           "message": "start must be formatted mm/dd/YYYY HH:MM (UTC)",
         *           "location": "query.start"
         *         }
         *       ]
         *     }
         */
        Error: {
            /**
             * Format: int32
             * @description The HTTP status code.
             */
            code: number;
            /** @description Each problem found, with where it was found. Empty when there is nothing more to say. At most 100 (the first found). */
            errors: components["schemas"]["ErrorDetail"][];
            /** @description The error's name, e.g. `Bad request`, `Unauthorized`, `Illegal state change`. At most 16384 characters: a longer one (it names what the request sent) is cut, ending in `…`. */
            message: string;
        };
        /**
         * @description One problem found in a request, an archive or a composition.
         * @example {
         *       "code": "rule.violation",
         *       "message": "S3 buckets must not be public (rule no-public-buckets of library baseline-tags)",
         *       "location": "composition.yaml:resources[2].properties.acl"
         *     }
         */
        ErrorDetail: {
            /** @description Machine-readable problem code, e.g. `archive.not_tar`, `archive.path_traversal`, `archive.link`, `archive.too_many_entries`, `archive.too_large`, `composition.invalid`, `rule.violation`, `rule.compile`, `policy.invalid`, `query.start`, `body.account_id`. */
            code: string;
            /** @description Where the problem is: a parameter (`query.start`, `path.process`, `body.alias`), an archive entry (`archive:<entry path>`), or a place in an archive file (`composition.yaml:resources[2].properties.acl`, `rules.yaml:<rule id>`, `policy.yaml`, `policy.yaml:rules[0].actions[1]`). At most 4096 characters (a longer one is cut, ending in `…`). */
            location: string;
            /** @description Human-readable explanation. */
            message: string;
        };
        /**
         * @description One change to a process.
         * @example {
         *       "id": "5c1d9e7a-2b4f-4e8a-b6c3-d0f1e2a3b4c5",
         *       "at": 1741944600,
         *       "event": "kill_requested",
         *       "job_id": "9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d",
         *       "actor": "alice",
         *       "details": {
         *         "from_state": "RUNNING"
         *       }
         *     }
         */
        HistoryEntry: {
            /** @description The user who made the change, or `conductor` for changes the server made itself (drift corrections, job ends). */
            actor: string;
            /**
             * Format: int64
             * @description When the change happened (Unix seconds).
             */
            at: number;
            /** @description Event-specific details, e.g. `{ "from": "web", "to": "web-frontend" }` for `alias_changed`, `{ "composition_digest": "..." }` for `created` and `composition_updated`, `{ "resources": 1 }` for `drift_corrected`. */
            details: {
                [key: string]: unknown;
            };
            /**
             * @description What changed. `kill_requested` is recorded when a kill starts and `killed` when its job ends; `kill_failed` when its job could not finish (every attempt failed): the process is then left SUSPENDED, so that nothing re-creates what was already deleted, and the kill can be requested again (details: `reason`); `drift_corrected` when a correction job ends; `released` is the last entry of a released process.
             * @enum {string}
             */
            event: "created" | "composition_updated" | "alias_changed" | "enforcement_changed" | "lock_changed" | "suspended" | "resumed" | "kill_requested" | "killed" | "kill_failed" | "released" | "drift_corrected";
            /**
             * Format: uuid
             * @description The history entry's id.
             */
            id: string;
            /**
             * Format: uuid
             * @description The job the change started or ended, or null when no job was involved.
             */
            job_id: string | null;
        };
        /**
         * @description A process's history, oldest first.
         * @example {
         *       "count": 2,
         *       "items": [
         *         {
         *           "id": "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d",
         *           "at": 1735819200,
         *           "event": "created",
         *           "job_id": "3b4c5d6e-7f80-4a91-b2c3-d4e5f6a7b8c9",
         *           "actor": "root",
         *           "details": {
         *             "composition_digest": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
         *           }
         *         },
         *         {
         *           "id": "5c1d9e7a-2b4f-4e8a-b6c3-d0f1e2a3b4c5",
         *           "at": 1741944600,
         *           "event": "kill_requested",
         *           "job_id": "9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d",
         *           "actor": "alice",
         *           "details": {
         *             "from_state": "RUNNING"
         *           }
         *         }
         *       ]
         *     }
         */
        HistoryList: {
            /**
             * Format: int32
             * @description Number of items.
             */
            count: number;
            /** @description Not paged; at most 100000 items. */
            items: components["schemas"]["HistoryEntry"][];
        };
        /**
         * @description One cloud operation done by a job on behalf of a process.
         * @example {
         *       "job_id": "3b4c5d6e-7f80-4a91-b2c3-d4e5f6a7b8c9",
         *       "at": 1735819207,
         *       "operation": "create",
         *       "resource_name": "assets",
         *       "resource_type": "PROVA.S3.Bucket",
         *       "resource_id": "arn:prova:s3:::web-frontend-assets",
         *       "status": "failed",
         *       "message": "rate limit exceeded while creating the bucket (simulated)"
         *     }
         */
        Operation: {
            /**
             * Format: int64
             * @description When the operation finished (Unix seconds).
             */
            at: number;
            /**
             * Format: uuid
             * @description The job the operation belongs to.
             */
            job_id: string;
            /** @description Why the operation failed; null when it succeeded. */
            message: string | null;
            /**
             * @description `create`, `update` or `delete` a resource, `import` (adopt) an existing one, or `correct` its drift back to the composition.
             * @enum {string}
             */
            operation: "create" | "update" | "delete" | "import" | "correct";
            /** @description The cloud resource id; an empty string for a `create` that failed before the cloud assigned one. */
            resource_id: string;
            /** @description The resource's name in the composition. */
            resource_name: string;
            /** @description The resource type, e.g. `PROVA.S3.Bucket`. */
            resource_type: string;
            /**
             * @description Whether the operation succeeded.
             * @enum {string}
             */
            status: "succeeded" | "failed";
        };
        /**
         * @description Cloud operations, oldest first.
         * @example {
         *       "count": 1,
         *       "items": [
         *         {
         *           "job_id": "2f3e4d5c-6b7a-4980-a1b2-c3d4e5f60718",
         *           "at": 1741944612,
         *           "operation": "update",
         *           "resource_name": "web-sg",
         *           "resource_type": "PROVA.EC2.SecurityGroup",
         *           "resource_id": "sg-0a1b2c3d4e5f60718",
         *           "status": "failed",
         *           "message": "rate limit exceeded while updating the security group (simulated)"
         *         }
         *       ]
         *     }
         */
        OperationList: {
            /**
             * Format: int32
             * @description Number of items.
             */
            count: number;
            /** @description Not paged; at most 100000 items. */
            items: components["schemas"]["Operation"][];
        };
        /**
         * @description One operation the dry-run's command would perform on a resource.
         * @example {
         *       "operation": "update",
         *       "resource_name": "assets",
         *       "resource_type": "PROVA.S3.Bucket",
         *       "resource_id": "arn:prova:s3:::web-frontend-assets",
         *       "changes": {
         *         "versioning": {
         *           "from": false,
         *           "to": true
         *         }
         *       }
         *     }
         */
        PlannedOperation: {
            /** @description For `update`, the properties that would change, each as `{ "from": <current>, "to": <desired> }`; for `create` and `import`, the desired properties; null for `delete` and `none`. At most 10000 properties. */
            changes: {
                [key: string]: unknown;
            } | null;
            /**
             * @description `create` a new resource, `update` an existing one, `delete` it, `import` (adopt) an existing cloud resource, or `none` (the resource already matches).
             * @enum {string}
             */
            operation: "create" | "update" | "delete" | "import" | "none";
            /** @description The cloud resource id, or null for a resource that does not exist yet. */
            resource_id: string | null;
            /** @description The resource's name in the composition. */
            resource_name: string;
            /** @description The resource type, e.g. `PROVA.S3.Bucket`. */
            resource_type: string;
        };
        /**
         * @description A process with its resources.
         * @example {
         *       "fid": "7b0e4c52-3f8a-4d8e-9c61-1f2a3b4c5d6e",
         *       "alias": "web-frontend",
         *       "account": "prod-main",
         *       "state": "RUNNING",
         *       "enforcement": true,
         *       "lock": false,
         *       "created_at": 1735819200,
         *       "updated_at": 1741944600,
         *       "composition_digest": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
         *       "resources": [
         *         {
         *           "name": "assets",
         *           "type": "PROVA.S3.Bucket",
         *           "resource_id": "arn:prova:s3:::web-frontend-assets",
         *           "region": "us-east-1",
         *           "status": "present",
         *           "properties": {
         *             "acl": "private",
         *             "versioning": true,
         *             "tags": {
         *               "owner": "web-team"
         *             }
         *           }
         *         },
         *         {
         *           "name": "web-sg",
         *           "type": "PROVA.EC2.SecurityGroup",
         *           "resource_id": "sg-0a1b2c3d4e5f60718",
         *           "region": "us-east-1",
         *           "status": "drifted",
         *           "properties": {
         *             "description": "web frontend",
         *             "ingress": [
         *               {
         *                 "port": 443,
         *                 "cidr": "0.0.0.0/0"
         *               }
         *             ]
         *           }
         *         }
         *       ]
         *     }
         */
        Process: {
            /** @description Name of the account the process runs in. */
            account: string;
            /** @description The process's unique alias, or null. A KILLED process loses its alias so it can be reused. */
            alias: string | null;
            /** @description SHA-256 (hex) of the archive of the process's current composition. */
            composition_digest: string;
            /**
             * Format: int64
             * @description When the process was created (Unix seconds).
             */
            created_at: number;
            /** @description When true, the process corrects configuration drift of its resources: a RUNNING process is compared with the cloud periodically (every `ENFORCEMENT_INTERVAL_MS`, 30 s by default) and each correction is a job (ops `correct`, history `drift_corrected`). A resource whose last operation failed is retried only by a composition update, a resume or turning enforcement on. */
            enforcement: boolean;
            /**
             * Format: uuid
             * @description The process's FID, generated by the server.
             */
            fid: string;
            /** @description When true, the process refuses every state transition (suspend, resume, kill, release) and every composition update with 409 until it is unlocked. */
            lock: boolean;
            /** @description The process's resources, in composition order. At most 100000 (a composition holds at most 500 resources, plus its imports). */
            resources: components["schemas"]["ProcessResource"][];
            /**
             * @description `RUNNING`: managed (drift is corrected when enforcement is on); `SUSPENDED`: kept but not acted on (no drift correction, no composition update) until resumed; `KILLING`: a job is deleting its resources; `KILLED`: its resources are deleted (still readable by FID, with its history and ops). Transitions: RUNNING -suspend-> SUSPENDED -resume-> RUNNING; RUNNING or SUSPENDED -kill-> KILLING -> KILLED. A released process is no longer managed and answers 404.
             * @enum {string}
             */
            state: "RUNNING" | "SUSPENDED" | "KILLING" | "KILLED";
            /**
             * Format: int64
             * @description When the process last changed (Unix seconds).
             */
            updated_at: number;
        };
        /**
         * @description The kill was accepted; a job deletes the process's resources.
         * @example {
         *       "fid": "7b0e4c52-3f8a-4d8e-9c61-1f2a3b4c5d6e",
         *       "state": "KILLING",
         *       "job_id": "9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d"
         *     }
         */
        ProcessKillAccepted: {
            /**
             * Format: uuid
             * @description The process's FID.
             */
            fid: string;
            /**
             * Format: uuid
             * @description The id of the job deleting the resources; its ops are at the `Location` header's URL.
             */
            job_id: string;
            /**
             * @description `KILLING` while the job runs, `KILLED` once every resource is deleted.
             * @enum {string}
             */
            state: "KILLING" | "KILLED";
        };
        /**
         * @description Running processes (every state but KILLED; released processes are gone), oldest first.
         * @example {
         *       "count": 1,
         *       "items": [
         *         {
         *           "fid": "7b0e4c52-3f8a-4d8e-9c61-1f2a3b4c5d6e",
         *           "alias": "web-frontend",
         *           "account": "prod-main",
         *           "state": "RUNNING",
         *           "enforcement": true,
         *           "lock": false,
         *           "created_at": 1735819200,
         *           "updated_at": 1741944600,
         *           "composition_digest": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
         *           "resource_count": 2
         *         }
         *       ]
         *     }
         */
        ProcessList: {
            /**
             * Format: int32
             * @description Number of items.
             */
            count: number;
            /** @description Not paged; at most 100000 items. */
            items: components["schemas"]["ProcessSummary"][];
        };
        /**
         * @description Properties of a process to change; at least one. The lock check uses the lock state this request leaves: with `{ "lock": false, "action": "resume" }` a locked process is unlocked and resumed; with `{ "lock": true, "action": "suspend" }` the action is refused (409) and nothing changes. A request is applied entirely or not at all.
         * @example {
         *       "alias": "web-frontend",
         *       "enforcement": true,
         *       "lock": false
         *     }
         */
        ProcessPatch: {
            /**
             * @description Requested state transition: `suspend` (RUNNING -> SUSPENDED), `resume` (SUSPENDED -> RUNNING), `kill` (RUNNING or SUSPENDED -> KILLING -> KILLED; a job deletes the resources, as `DELETE ?kill=true` does). Any other transition, or any action on a locked process, is a 409.
             * @enum {string}
             */
            action?: "suspend" | "resume" | "kill";
            /** @description New alias (lower-case letters, digits and dashes, unique among processes), or `""` to remove the alias. An alias another process uses is a 409. */
            alias?: string;
            /** @description Enable or disable drift correction. Enabling it on a RUNNING process with drifted resources starts a correction job. */
            enforcement?: boolean;
            /** @description Lock (true) or unlock (false) the process's state. */
            lock?: boolean;
        };
        /**
         * @description The process was released: the conductor no longer manages it, its resources are left in the cloud untouched, its alias is free and the process answers 404 from now on.
         * @example {
         *       "fid": "7b0e4c52-3f8a-4d8e-9c61-1f2a3b4c5d6e",
         *       "status": "Released"
         *     }
         */
        ProcessReleased: {
            /**
             * Format: uuid
             * @description The released process's FID.
             */
            fid: string;
            /**
             * @description Always `Released`.
             * @enum {string}
             */
            status: "Released";
        };
        /**
         * @description One resource of a process, as declared by its composition and observed in the cloud.
         * @example {
         *       "name": "assets",
         *       "type": "PROVA.S3.Bucket",
         *       "resource_id": "arn:prova:s3:::web-frontend-assets",
         *       "region": "us-east-1",
         *       "status": "present",
         *       "properties": {
         *         "acl": "private",
         *         "versioning": true,
         *         "tags": {
         *           "owner": "web-team"
         *         }
         *       }
         *     }
         */
        ProcessResource: {
            /** @description The resource's name in the composition (unique within the process). */
            name: string;
            /** @description The resource's desired properties, from the composition (for an adopted resource, the properties it had when adopted). Only these properties (and the composition's tags) are compared with the cloud and corrected; properties the composition leaves out keep the provider's defaults. At most 10000 properties. */
            properties: {
                [key: string]: unknown;
            };
            /** @description The region the resource lives in; null for global resource types. */
            region: string | null;
            /** @description The cloud resource id; null while the resource has not been created yet (`pending`). */
            resource_id: string | null;
            /**
             * @description `pending`: not created yet (a job is running); `present`: exists and matches the composition; `drifted`: exists but differs from the composition (corrected by the next correction job when enforcement is on); `deleted`: removed (by a kill, or from outside the conductor); `failed`: the last operation on it failed (see ops).
             * @enum {string}
             */
            status: "pending" | "present" | "drifted" | "deleted" | "failed";
            /** @description The resource type, e.g. `PROVA.S3.Bucket`, `PROVA.EC2.SecurityGroup`, `PROVB.Storage.Account`. */
            type: string;
        };
        /**
         * @description A process without its resources (see GET /processes/{process} for them).
         * @example {
         *       "fid": "7b0e4c52-3f8a-4d8e-9c61-1f2a3b4c5d6e",
         *       "alias": "web-frontend",
         *       "account": "prod-main",
         *       "state": "RUNNING",
         *       "enforcement": true,
         *       "lock": false,
         *       "created_at": 1735819200,
         *       "updated_at": 1741944600,
         *       "composition_digest": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
         *       "resource_count": 2
         *     }
         */
        ProcessSummary: {
            /** @description Name of the account the process runs in. */
            account: string;
            /** @description The process's unique alias, or null. A KILLED process loses its alias so it can be reused. */
            alias: string | null;
            /** @description SHA-256 (hex) of the archive of the process's current composition. */
            composition_digest: string;
            /**
             * Format: int64
             * @description When the process was created (Unix seconds).
             */
            created_at: number;
            /** @description When true, the process corrects configuration drift of its resources: a RUNNING process is compared with the cloud periodically (every `ENFORCEMENT_INTERVAL_MS`, 30 s by default) and each correction is a job (ops `correct`, history `drift_corrected`). A resource whose last operation failed is retried only by a composition update, a resume or turning enforcement on. */
            enforcement: boolean;
            /**
             * Format: uuid
             * @description The process's FID, generated by the server.
             */
            fid: string;
            /** @description When true, the process refuses every state transition (suspend, resume, kill, release) and every composition update with 409 until it is unlocked. */
            lock: boolean;
            /**
             * Format: int32
             * @description Number of resources of the process.
             */
            resource_count: number;
            /**
             * @description `RUNNING`: managed (drift is corrected when enforcement is on); `SUSPENDED`: kept but not acted on (no drift correction, no composition update) until resumed; `KILLING`: a job is deleting its resources; `KILLED`: its resources are deleted (still readable by FID, with its history and ops). Transitions: RUNNING -suspend-> SUSPENDED -resume-> RUNNING; RUNNING or SUSPENDED -kill-> KILLING -> KILLED. A released process is no longer managed and answers 404.
             * @enum {string}
             */
            state: "RUNNING" | "SUSPENDED" | "KILLING" | "KILLED";
            /**
             * Format: int64
             * @description When the process last changed (Unix seconds).
             */
            updated_at: number;
        };
        /**
         * @description The update was accepted. The fields show the process after the update was applied (`state` may be a transient state such as KILLING).
         * @example {
         *       "fid": "7b0e4c52-3f8a-4d8e-9c61-1f2a3b4c5d6e",
         *       "alias": "web-frontend",
         *       "enforcement": true,
         *       "lock": false,
         *       "state": "RUNNING",
         *       "transaction_id": "5c1d9e7a-2b4f-4e8a-b6c3-d0f1e2a3b4c5"
         *     }
         */
        ProcessUpdateAccepted: {
            /** @description The process's alias, or null. */
            alias: string | null;
            /** @description The current enforcement state. */
            enforcement: boolean;
            /**
             * Format: uuid
             * @description The process's FID.
             */
            fid: string;
            /** @description The current lock state. */
            lock: boolean;
            /**
             * @description The current process state.
             * @enum {string}
             */
            state: "RUNNING" | "SUSPENDED" | "KILLING" | "KILLED";
            /**
             * Format: uuid
             * @description The job id when the change started a job (`kill`, or a `resume` or enforcement change that triggers a drift correction); otherwise the id of the history entry recorded for the change (its ops list is then empty). The results are at `/api/v0/processes/{fid}/ops/{transaction_id}` (the `Location` header).
             */
            transaction_id: string;
        };
        /**
         * @description Whether an rbac policy is attached and applied.
         * @example {
         *       "applied": true,
         *       "attached_at": 1741944600,
         *       "sha256": "2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae",
         *       "users": 3
         *     }
         */
        RbacStatus: {
            /** @description True while a policy is attached: non-root users may then do only what it allows. False when none is attached (only `root` can authenticate). */
            applied: boolean;
            /**
             * Format: int64
             * @description When the current policy was attached (Unix seconds); null when none is attached.
             */
            attached_at: number | null;
            /** @description SHA-256 (hex) of the attached policy archive, as uploaded; null when none is attached. */
            sha256: string | null;
            /**
             * Format: int32
             * @description Number of users the attached policy declares (`root` not counted); 0 when none is attached.
             */
            users: number;
        };
        /**
         * @description A user that can authenticate to the conductor.
         * @example {
         *       "name": "alice",
         *       "has_secret": true,
         *       "secret_created_at": 1741944600
         *     }
         */
        RbacUser: {
            /** @description Whether the user has a secret. A declared user without a secret cannot authenticate until `PUT /rbac/users/{user}/secret` generates one. */
            has_secret: boolean;
            /** @description The user name (the Basic auth username). */
            name: string;
            /**
             * Format: int64
             * @description When the current secret was generated (Unix seconds); null without a secret.
             */
            secret_created_at: number | null;
        };
        /**
         * @description `root` first, then the users declared by the attached policy, ordered by name.
         * @example {
         *       "count": 2,
         *       "items": [
         *         {
         *           "name": "root",
         *           "has_secret": true,
         *           "secret_created_at": 1735732800
         *         },
         *         {
         *           "name": "alice",
         *           "has_secret": true,
         *           "secret_created_at": 1741944600
         *         }
         *       ]
         *     }
         */
        RbacUserList: {
            /**
             * Format: int32
             * @description Number of items.
             */
            count: number;
            /** @description Not paged; at most 100000 items. */
            items: components["schemas"]["RbacUser"][];
        };
        /**
         * @description A user's new secret. It is shown only in this answer (the server keeps only a hash); the previous secret stops working at once.
         * @example {
         *       "user": "alice",
         *       "secret": "q3Zt9vXhP2mK8wLr5nYc7bJd4fGs6aTe1uRi0oWpQzE"
         *     }
         */
        RbacUserSecret: {
            /** @description The new secret (at least 32 random bytes, base64url-encoded). Use it as the Basic auth password. */
            secret: string;
            /** @description The user name. */
            user: string;
        };
        /**
         * @description Metadata of a validation library.
         * @example {
         *       "name": "baseline-tags",
         *       "created_at": 1738411200,
         *       "size": 2048,
         *       "sha256": "e3b98a4da31a127d4bde6e43033f66ba274cab0eb7eb1c70ec41402bf6273dd8",
         *       "rule_count": 4
         *     }
         */
        ValidationLibrary: {
            /**
             * Format: int64
             * @description When the library was uploaded (Unix seconds).
             */
            created_at: number;
            /** @description The library's unique name. */
            name: string;
            /**
             * Format: int32
             * @description Number of rules in `rules.yaml`.
             */
            rule_count: number;
            /** @description SHA-256 (hex) of the uploaded archive. */
            sha256: string;
            /**
             * Format: int64
             * @description Size of the uploaded archive in bytes, as uploaded (compressed if it was gzipped).
             */
            size: number;
        };
        /**
         * @description The validation library was deleted; it no longer applies to dry-runs and process changes.
         * @example {
         *       "name": "baseline-tags",
         *       "status": "Deleted"
         *     }
         */
        ValidationLibraryDeleted: {
            /** @description The deleted library's name. */
            name: string;
            /**
             * @description Always `Deleted`.
             * @enum {string}
             */
            status: "Deleted";
        };
        /**
         * @description Validation libraries, ordered by name.
         * @example {
         *       "count": 2,
         *       "items": [
         *         {
         *           "name": "baseline-tags",
         *           "created_at": 1738411200,
         *           "size": 2048,
         *           "sha256": "e3b98a4da31a127d4bde6e43033f66ba274cab0eb7eb1c70ec41402bf6273dd8",
         *           "rule_count": 4
         *         },
         *         {
         *           "name": "baseline.storage",
         *           "created_at": 1739620800,
         *           "size": 3584,
         *           "sha256": "4f1d8a9e0b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6",
         *           "rule_count": 7
         *         }
         *       ]
         *     }
         */
        ValidationLibraryList: {
            /**
             * Format: int32
             * @description Number of items.
             */
            count: number;
            /** @description Not paged; at most 100000 items. */
            items: components["schemas"]["ValidationLibrary"][];
        };
    };
    responses: {
        /** @description Bad request: a parameter, the body or an archive is invalid; `errors` lists every problem found (at most 100), each with its location, not only the first. */
        BadRequest: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Conflict: the item already exists (an account name or account ID, a process alias, a validation library name), is still in use (an account that running processes use), or the account has as many processes as a setting of the server allows (`process.quota_reached`). */
        Conflict: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Forbidden. The applied rbac policy does not allow this user the action on this resource. */
        Forbidden: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Illegal state change: the process's current state does not allow the requested change, or the process is locked (a locked process refuses every state transition and composition update until it is unlocked). */
        IllegalStateChange: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Server error. */
        InternalServerError: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Resource not found. */
        NotFound: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Not implemented. This operation is specified but its handler has not shipped yet. */
        NotImplemented: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Archive too large. The request body is above the configured upload limit. */
        PayloadTooLarge: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Process not found. No process has this FID or alias. */
        ProcessNotFound: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Service unavailable: the service is temporarily unavailable (its database does not answer in time, or the server is shedding load); retry after the number of seconds in `Retry-After`. */
        ServiceUnavailable: {
            headers: {
                /** @description Seconds to wait before retrying. */
                "Retry-After"?: number;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Too many failed authentications (see Authentication): the client address, or the user from this address, reached a limit, and the credentials were not checked. By default at most 10 failures per client address and user together, 50 per client address and 100 per user across the addresses that failed as it, in any 15 minutes. Retry after the number of seconds in `Retry-After`, when the oldest counted failure leaves the window. */
        TooManyRequests: {
            headers: {
                /** @description Seconds until an attempt may be checked again (at most the window, which is at most a day). */
                "Retry-After"?: number;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Unauthorized. The credentials are missing or wrong. */
        Unauthorized: {
            headers: {
                /** @description Always `Basic realm="conductor", charset="UTF-8"` (RFC 7617; credentials are read as UTF-8). */
                "WWW-Authenticate"?: "Basic realm=\"conductor\", charset=\"UTF-8\"";
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
    };
    parameters: {
        /** @description Only items up to the end of this minute. Format `mm/dd/YYYY HH:MM`, UTC (e.g. `03/14/2025 18:00`); a malformed value is a 400. */
        end: string;
        /** @description Run the import filter: the resources listed under `imports` in `composition.yaml` are adopted from the cloud (an `import` operation) instead of being created. When false, `imports` is ignored. */
        importResources: boolean;
        /**
         * @description The process's FID (UUID) or its alias.
         * @example web-frontend
         */
        process: string;
        /** @description Only items at or after this minute. Format `mm/dd/YYYY HH:MM`, UTC (e.g. `03/14/2025 09:30`); a malformed value, or a value later than `end`, is a 400. */
        start: string;
        /**
         * @description The validation library's name.
         * @example baseline-tags
         */
        validationName: string;
    };
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    listAccounts: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK. The managed accounts. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AccountList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    addAccount: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description The account to manage. */
        requestBody: {
            content: {
                "application/json": components["schemas"]["AccountInput"];
            };
        };
        responses: {
            /** @description Created. The account is managed from now on. */
            201: {
                headers: {
                    /** @description URL of the new account, `/api/v0/accounts/{name}`. */
                    Location?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Account"];
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
    removeAccount: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The account's name or its account ID (12 digits, or a provider_b subscription id). A name is matched first.
                 * @example prod-main
                 */
                account: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Removed. The account is no longer managed. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AccountRemoved"];
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
    createDryRun: {
        parameters: {
            query: {
                /** @description The account's name or account ID. Required for RUN; optional for the other commands (it must then be the process's account). */
                account?: string;
                /**
                 * @description The command to dry-run, in upper or lower case.
                 * @example UPDATE
                 */
                command: "KILL" | "RESUME" | "RUN" | "UPDATE" | "kill" | "resume" | "run" | "update";
                /** @description Run the import filter: the resources listed under `imports` in `composition.yaml` are adopted from the cloud (an `import` operation) instead of being created. When false, `imports` is ignored. */
                import_resources?: components["parameters"]["importResources"];
                /** @description The target process's FID or alias. Required for KILL, RESUME and UPDATE; a 400 with RUN. */
                process?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description The composition archive (tar, optionally gzipped, holding `composition.yaml`). Required for RUN and UPDATE, ignored for KILL and RESUME. Rejected with 400 when not a tar, with absolute or `..` paths, links or devices, or above the configured number of entries or bytes (also after decompression); 413 above the configured upload limit. */
        requestBody?: {
            content: {
                "application/octet-stream": string;
                "application/x-tar": string;
            };
        };
        responses: {
            /** @description Accepted. The dry-run is queued; its result is at the `Location` header's URL. */
            202: {
                headers: {
                    /** @description URL of the dry-run result, `/api/v0/dry-run/{id}`. */
                    Location?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DryRunAccepted"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getDryRun: {
        parameters: {
            query?: {
                /** @description Seconds to wait for a terminal status (SUCCEEDED or FAILED): 0 answers at once. Any value is accepted (the seed bounds it only by 0), but the server waits at most 60 seconds: a larger value waits as 60 does, and a client that wants longer asks again. */
                timeout?: number;
            };
            header?: never;
            path: {
                /**
                 * @description The dry-run request id (from the `Location` header of `POST /dry-run`).
                 * @example 0d6f3c2a-8b1e-4f5a-9c7d-2e4b6a8c0f13
                 */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK. The dry-run record. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DryRun"];
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
    listProcesses: {
        parameters: {
            query?: {
                /** @description Only processes in this account (name or account ID). An unknown account gives an empty list. */
                account?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK. The running processes. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProcessList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    createProcess: {
        parameters: {
            query: {
                /**
                 * @description The account to run the process in (name or account ID); unknown is a 404.
                 * @example prod-main
                 */
                account: string;
                /** @description An alias for the process, unique among processes (409 when taken). A value that is a UUID is refused, so an alias can never be mistaken for an FID. */
                alias?: string;
                /** @description Run the import filter: the resources listed under `imports` in `composition.yaml` are adopted from the cloud (an `import` operation) instead of being created. When false, `imports` is ignored. */
                import_resources?: components["parameters"]["importResources"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description The composition archive: a tar, optionally gzipped, holding `composition.yaml` (resources with name, type and properties; optional `imports`). Rejected with 400 when not a tar, with absolute or `..` paths, links or devices, without `composition.yaml`, or above the configured number of entries or bytes (also after decompression); 413 when the body is above the configured upload limit. */
        requestBody: {
            content: {
                "application/octet-stream": string;
                "application/x-tar": string;
            };
        };
        responses: {
            /** @description Created. The process exists; a job creates its resources. */
            201: {
                headers: {
                    /** @description URL of the new process, `/api/v0/processes/{fid}`. */
                    Location?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Process"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getProcess: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The process's FID (UUID) or its alias.
                 * @example web-frontend
                 */
                process: components["parameters"]["process"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK. The process. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Process"];
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
    deleteProcess: {
        parameters: {
            query?: {
                /** @description Delete the process's resources in the cloud (true) or leave them (false, release). */
                kill?: boolean;
            };
            header?: never;
            path: {
                /**
                 * @description The process's FID (UUID) or its alias.
                 * @example web-frontend
                 */
                process: components["parameters"]["process"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Released. The process is no longer managed; its resources are left in the cloud. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProcessReleased"];
                };
            };
            /** @description Accepted. A job deletes the process's resources; its ops are at the `Location` header's URL. */
            202: {
                headers: {
                    /** @description URL of the job's ops, `/api/v0/processes/{fid}/ops/{job_id}`. */
                    Location?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProcessKillAccepted"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["IllegalStateChange"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    updateProcess: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The process's FID (UUID) or its alias.
                 * @example web-frontend
                 */
                process: components["parameters"]["process"];
            };
            cookie?: never;
        };
        /** @description The properties to change (at least one). */
        requestBody: {
            content: {
                "application/json": components["schemas"]["ProcessPatch"];
            };
        };
        responses: {
            /** @description Accepted. The process after the change; the results are at the `Location` header's URL. */
            202: {
                headers: {
                    /** @description URL of the results, `/api/v0/processes/{fid}/ops/{transaction_id}`. */
                    Location?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProcessUpdateAccepted"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["ProcessNotFound"];
            409: components["responses"]["IllegalStateChange"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    updateProcessComposition: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The process's FID (UUID) or its alias.
                 * @example web-frontend
                 */
                process: components["parameters"]["process"];
            };
            cookie?: never;
        };
        /** @description The new composition archive: a tar, optionally gzipped, holding `composition.yaml` (resources with name, type and properties; `imports` is ignored here). Rejected with 400 when not a tar, with absolute or `..` paths, links or devices, without `composition.yaml`, or above the configured number of entries or bytes (also after decompression); 413 when the body is above the configured upload limit. */
        requestBody: {
            content: {
                "application/octet-stream": string;
                "application/x-tar": string;
            };
        };
        responses: {
            /** @description Accepted. A job brings the resources to the new composition; its ops are at the `Location` header's URL. */
            202: {
                headers: {
                    /** @description URL of the job's ops, `/api/v0/processes/{fid}/ops/{job_id}`. */
                    Location?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CompositionUpdateAccepted"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["IllegalStateChange"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getProcessHistory: {
        parameters: {
            query?: {
                /** @description Only items up to the end of this minute. Format `mm/dd/YYYY HH:MM`, UTC (e.g. `03/14/2025 18:00`); a malformed value is a 400. */
                end?: components["parameters"]["end"];
                /** @description Only items at or after this minute. Format `mm/dd/YYYY HH:MM`, UTC (e.g. `03/14/2025 09:30`); a malformed value, or a value later than `end`, is a 400. */
                start?: components["parameters"]["start"];
            };
            header?: never;
            path: {
                /**
                 * @description The process's FID (UUID) or its alias.
                 * @example web-frontend
                 */
                process: components["parameters"]["process"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK. The process's history. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HistoryList"];
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
    listProcessOps: {
        parameters: {
            query?: {
                /** @description Only items up to the end of this minute. Format `mm/dd/YYYY HH:MM`, UTC (e.g. `03/14/2025 18:00`); a malformed value is a 400. */
                end?: components["parameters"]["end"];
                /** @description Only the operations of the process's first job. Cannot be combined with `last=true`. */
                first?: boolean;
                /** @description Only the operations of the process's most recent job. Cannot be combined with `first=true`. */
                last?: boolean;
                /** @description Only items at or after this minute. Format `mm/dd/YYYY HH:MM`, UTC (e.g. `03/14/2025 09:30`); a malformed value, or a value later than `end`, is a 400. */
                start?: components["parameters"]["start"];
            };
            header?: never;
            path: {
                /**
                 * @description The process's FID (UUID) or its alias.
                 * @example web-frontend
                 */
                process: components["parameters"]["process"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK. The cloud operations. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OperationList"];
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
    listProcessJobOps: {
        parameters: {
            query?: {
                /** @description Only items up to the end of this minute. Format `mm/dd/YYYY HH:MM`, UTC (e.g. `03/14/2025 18:00`); a malformed value is a 400. */
                end?: components["parameters"]["end"];
                /** @description Only items at or after this minute. Format `mm/dd/YYYY HH:MM`, UTC (e.g. `03/14/2025 09:30`); a malformed value, or a value later than `end`, is a 400. */
                start?: components["parameters"]["start"];
            };
            header?: never;
            path: {
                /**
                 * @description The job's id (the `job_id` or `transaction_id` of a 202 answer). The id of a history entry recorded for a change that started no job gives an empty list.
                 * @example 2f3e4d5c-6b7a-4980-a1b2-c3d4e5f60718
                 */
                job_id: string;
                /**
                 * @description The process's FID (UUID) or its alias.
                 * @example web-frontend
                 */
                process: components["parameters"]["process"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK. The job's cloud operations. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OperationList"];
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
    attachRbacPolicy: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description The policy archive: a tar, optionally gzipped, holding `policy.yaml`. Rejected with 400 when not a tar, with absolute or `..` paths, links or devices, without `policy.yaml`, or above the configured number of entries or bytes (also after decompression); 413 above the configured upload limit. */
        requestBody: {
            content: {
                "application/octet-stream": string;
                "application/x-tar": string;
            };
        };
        responses: {
            /** @description OK. The policy is attached and applied. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RbacStatus"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    detachRbacPolicy: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK. No policy is attached any more. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RbacStatus"];
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
    getRbacArchive: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK. The policy archive, a tar stream (possibly gzipped), exactly as uploaded. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/x-tar": string;
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
    getRbacStatus: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK. The policy status. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RbacStatus"];
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
    listRbacUsers: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK. The users. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RbacUserList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    resetRbacUserSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The user name.
                 * @example alice
                 */
                user: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK. The new secret, shown once. */
            200: {
                headers: {
                    /** @description The answer carries a secret and must not be cached. */
                    "Cache-Control"?: "no-store";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RbacUserSecret"];
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
    getConductorSwagger: {
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
    listValidations: {
        parameters: {
            query?: {
                /** @description Only libraries whose names start with this string (case-sensitive). */
                prefix?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK. The validation libraries. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationLibraryList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    addValidation: {
        parameters: {
            query: {
                /**
                 * @description Name of the new library, unique (409 when taken).
                 * @example baseline-tags
                 */
                name: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description The library archive: a tar, optionally gzipped, holding `rules.yaml`. Rejected with 400 when not a tar, with absolute or `..` paths, links or devices, without `rules.yaml`, or above the configured number of entries or bytes (also after decompression); 413 above the configured upload limit. */
        requestBody: {
            content: {
                "application/octet-stream": string;
                "application/x-tar": string;
            };
        };
        responses: {
            /** @description Created. The library is stored and applies from now on. */
            201: {
                headers: {
                    /** @description URL of the new library, `/api/v0/validations/{name}`. */
                    Location?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationLibrary"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getValidation: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The validation library's name.
                 * @example baseline-tags
                 */
                name: components["parameters"]["validationName"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK. The library's metadata. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationLibrary"];
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
    deleteValidation: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The validation library's name.
                 * @example baseline-tags
                 */
                name: components["parameters"]["validationName"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK. The library is deleted. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationLibraryDeleted"];
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
    getValidationArchive: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The validation library's name.
                 * @example baseline-tags
                 */
                name: components["parameters"]["validationName"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK. The library archive, a tar stream (possibly gzipped), exactly as uploaded. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/x-tar": string;
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
