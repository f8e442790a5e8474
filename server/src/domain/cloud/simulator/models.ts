import type { Random } from '../random.js';

/**
 * How the simulated cloud generates and drifts each resource type of the catalog.
 *
 * Each model starts from a configuration that complies with every built-in rule of its type, then, for about a
 * quarter of new resources, applies one or two of its `breaks`: realistic misconfigurations, each of which breaks at
 * least one rule. Drift applies one change to an existing resource, usually a break and otherwise an everyday
 * `tweak` that leaves compliance alone. Every model has a tweak that always changes something, so drift never
 * returns what it was given. Property key sets are stable per type: a key that can be empty is `null`, never absent.
 */
export interface ResourceModel {
  type: string;
  nameStem: string;
  generate(rng: Random, context: { name: string; region: string | null }): Record<string, unknown>;
  drift(rng: Random, properties: Readonly<Record<string, unknown>>): Record<string, unknown>;
}

type Context = { name: string; region: string | null };
type Properties = Record<string, unknown>;

/**
 * A deep copy of a JSON document. Not `structuredClone`: its copies belong to the realm that defined it, which in a
 * vm context (a test runner's) is not the caller's, and the rule engine takes only this realm's plain objects.
 */
const copyDocument = <T>(document: T): T => JSON.parse(JSON.stringify(document)) as T;
type Change<P> = (rng: Random, draft: P) => void;

interface ModelSpec<P extends Properties> {
  type: string;
  nameStem: string;
  compliant: (rng: Random, context: Context) => P;
  breaks: readonly Change<P>[];
  tweaks: readonly Change<P>[];
}

const NON_COMPLIANT_SHARE = 0.25;
/** Share of drift steps that misconfigure something rather than make an everyday change. */
const BREAKING_DRIFT_SHARE = 0.7;

/** Applies changes in random order until `wanted` of them changed something; some do not apply to every resource. */
function applySome<P>(rng: Random, draft: P, changes: readonly Change<P>[], wanted: number): number {
  let applied = 0;
  for (const change of rng.sample(changes, changes.length)) {
    if (applied >= wanted) break;
    const before = JSON.stringify(draft);
    change(rng, draft);
    if (JSON.stringify(draft) !== before) applied += 1;
  }
  return applied;
}

function defineModel<P extends Properties>(spec: ModelSpec<P>): ResourceModel {
  return {
    type: spec.type,
    nameStem: spec.nameStem,
    generate(rng, context) {
      const properties = spec.compliant(rng, context);
      if (rng.chance(NON_COMPLIANT_SHARE)) applySome(rng, properties, spec.breaks, rng.int(1, 2));
      return properties;
    },
    drift(rng, properties) {
      const draft = copyDocument(properties) as P;
      const [first, second] = rng.chance(BREAKING_DRIFT_SHARE) ? [spec.breaks, spec.tweaks] : [spec.tweaks, spec.breaks];
      if (applySome(rng, draft, first, 1) === 0 && applySome(rng, draft, second, 1) === 0) {
        throw new Error(`no drift change applies to this ${spec.type}`);
      }
      return draft;
    },
  };
}

// Small value helpers.

const uuid = (rng: Random): string => `${rng.hex(8)}-${rng.hex(4)}-4${rng.hex(3)}-${rng.hex(4)}-${rng.hex(12)}`;
const accountNumber = (rng: Random): string => Array.from({ length: 12 }, () => rng.int(0, 9)).join('');
const publicIp = (rng: Random): string => `${rng.pick([3, 18, 34, 35, 44, 52, 54, 99])}.${rng.int(0, 255)}.${rng.int(0, 255)}.${rng.int(1, 254)}`;
const kmsKeyId = (rng: Random): string => `key/${uuid(rng)}`;
const nullable = <T>(value: T): T | null => value;

/** The item after `current` in a cycle, so that a change always changes something. */
const nextOf = <T>(items: readonly T[], current: unknown): T => items[(items.indexOf(current as T) + 1) % items.length]!;

const sameValue = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** Adds an item unless an equal one is there; past `cap` the oldest goes, so lists stay short under repeated drift. */
function addCapped<T>(list: T[], item: T, cap: number): void {
  if (list.some((existing) => sameValue(existing, item))) return;
  if (list.length >= cap) list.shift();
  list.push(item);
}

/** Removes the item if present, adds it otherwise: always a change. */
function toggle<T>(list: T[], item: T): void {
  const at = list.indexOf(item);
  if (at >= 0) list.splice(at, 1);
  else list.push(item);
}

function remove<T>(list: T[], item: T): void {
  const at = list.indexOf(item);
  if (at >= 0) list.splice(at, 1);
}

/** A different positive count: up by a few, or down when there is room. */
const bump = (rng: Random, value: number, step: number): number => (value > step && rng.chance(0.4) ? value - rng.int(1, step) : value + rng.int(1, step));

// Shared vocabularies.

const PUBLIC_CIDRS = ['0.0.0.0/0', '::/0'];
const DB_PORTS = [1433, 1521, 3306, 5432, 6379, 9200, 27017];
const SUPPORTED_FUNCTION_RUNTIMES = ['nodejs20.x', 'nodejs22.x', 'python3.12', 'python3.13', 'java21', 'dotnet8', 'ruby3.3', 'provided.al2023'];
const RETIRED_FUNCTION_RUNTIMES = ['nodejs14.x', 'nodejs16.x', 'python3.7', 'python3.8', 'java8', 'dotnet6', 'ruby2.7', 'go1.x'];
const SUPPORTED_KUBERNETES = ['1.29', '1.30', '1.31', '1.32'];
const RETIRED_KUBERNETES = ['1.23', '1.24', '1.25', '1.26'];
const MODERN_TLS_POLICIES = ['TLS13-1-2-2021-06', 'TLS13-1-3-2021-06', 'TLS-1-2-2017-01'];
const LEGACY_TLS_POLICIES = ['TLS-1-0-2015-04', 'TLS-1-1-2017-01'];
const PROVB_LOCATIONS = ['eastus', 'eastus2', 'westus2', 'westeurope', 'northeurope', 'uksouth', 'southeastasia', 'japaneast'];
const INTERNET_SOURCES = ['*', 'Internet', '0.0.0.0/0'];

// provider_a: identity

const USER_GROUPS = ['developers', 'operators', 'auditors', 'data-analysts', 'billing'];
const USER_POLICIES = ['ReadOnlyAccess', 'PowerUserAccess', 'BillingViewAccess', 'SupportUser', 'DeveloperTools'];

const accessKey = (rng: Random, ageDays: number) => ({
  id: `AK${rng.hex(18).toUpperCase()}`,
  age_days: ageDays,
  active: true,
  last_used_days_ago: rng.int(0, Math.min(ageDays, 30)),
});

const iamUser = defineModel({
  type: 'PROVA.IAM.User',
  nameStem: 'user',
  compliant: (rng) => ({
    path: rng.pick(['/', '/engineering/', '/ops/', '/contractors/']),
    created_days_ago: rng.int(90, 1800),
    console_access: rng.chance(0.7),
    mfa_enabled: true,
    last_login_days_ago: rng.int(0, 40),
    access_keys: rng.chance(0.6) ? [accessKey(rng, rng.int(1, 85))] : [],
    groups: rng.sample(USER_GROUPS, rng.int(1, 2)),
    attached_policies: [] as string[],
  }),
  breaks: [
    (rng, user) => {
      user.console_access = true;
      user.mfa_enabled = false;
    },
    (rng, user) => {
      const stale = user.access_keys[0] ?? accessKey(rng, rng.int(91, 900));
      user.access_keys = [{ ...stale, active: true, age_days: rng.int(91, 900) }, ...user.access_keys.slice(1)];
    },
    (rng, user) => {
      user.access_keys = [{ ...(user.access_keys[0] ?? accessKey(rng, rng.int(1, 80))), active: true }, accessKey(rng, rng.int(0, 5))];
    },
    (rng, user) => addCapped(user.attached_policies, rng.pick(USER_POLICIES), 6),
    (rng, user) => addCapped(user.attached_policies, 'AdministratorAccess', 6),
    (rng, user) => {
      user.console_access = true;
      user.last_login_days_ago = rng.int(46, 400);
    },
    (rng, user) => {
      const key = user.access_keys[0] ?? accessKey(rng, rng.int(60, 85));
      const lastUsed = rng.int(46, 200);
      user.access_keys = [{ ...key, active: true, last_used_days_ago: lastUsed, age_days: Math.max(key.age_days, lastUsed) }, ...user.access_keys.slice(1)];
    },
  ],
  tweaks: [(rng, user) => toggle(user.groups, rng.pick(USER_GROUPS))],
});

const SERVICE_PRINCIPALS = ['service:ec2', 'service:lambda', 'service:ecs-tasks', 'service:eks', 'service:rds-monitoring'];
const ROLE_POLICIES = ['ReadOnlyAccess', 'S3ReadOnly', 'CloudWatchAgent', 'LambdaBasicExecution', 'SecretsRead', 'SsmManagedInstanceCore'];

const iamRole = defineModel({
  type: 'PROVA.IAM.Role',
  nameStem: 'role',
  compliant: (rng) => {
    const crossAccount = rng.chance(0.25);
    return {
      path: crossAccount ? '/' : '/service-role/',
      assume_role_principals: crossAccount ? [`account:${accountNumber(rng)}`] : rng.sample(SERVICE_PRINCIPALS, rng.int(1, 2)),
      external_id_required: crossAccount || rng.chance(0.1),
      attached_policies: rng.sample(ROLE_POLICIES, rng.int(1, 3)),
      max_session_duration_seconds: rng.pick([3600, 7200, 14400]),
      last_used_days_ago: rng.int(0, 120),
    };
  },
  breaks: [
    (rng, role) => addCapped(role.assume_role_principals, '*', 4),
    (rng, role) => {
      addCapped(role.assume_role_principals, `account:${accountNumber(rng)}`, 4);
      role.external_id_required = false;
    },
    (rng, role) => addCapped(role.attached_policies, 'AdministratorAccess', 6),
  ],
  tweaks: [(rng, role) => void (role.max_session_duration_seconds = nextOf([3600, 7200, 14400, 28800], role.max_session_duration_seconds))],
});

interface PolicyStatement {
  effect: string;
  actions: string[];
  resources: string[];
}

const SCOPED_STATEMENTS: readonly PolicyStatement[] = [
  { effect: 'Allow', actions: ['s3:GetObject', 's3:PutObject'], resources: ['arn:prova:s3:::data-lake/*'] },
  { effect: 'Allow', actions: ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem'], resources: ['arn:prova:dynamodb:*:*:table/orders'] },
  { effect: 'Allow', actions: ['logs:CreateLogStream', 'logs:PutLogEvents'], resources: ['arn:prova:logs:*:*:log-group:/app/*'] },
  { effect: 'Allow', actions: ['sqs:SendMessage', 'sqs:ReceiveMessage'], resources: ['arn:prova:sqs:*:*:jobs'] },
  { effect: 'Allow', actions: ['kms:Decrypt'], resources: ['arn:prova:kms:*:*:key/app'] },
  { effect: 'Deny', actions: ['*'], resources: ['*'] },
];

const iamPolicy = defineModel({
  type: 'PROVA.IAM.Policy',
  nameStem: 'policy',
  compliant: (rng) => ({
    default_version: `v${rng.int(1, 6)}`,
    attachment_count: rng.int(0, 12),
    statements: rng.sample(SCOPED_STATEMENTS, rng.int(1, 3)).map((s) => copyDocument(s)),
  }),
  breaks: [
    (rng, policy) => addCapped(policy.statements, { effect: 'Allow', actions: ['*'], resources: ['*'] }, 5),
    (rng, policy) => addCapped(policy.statements, { effect: 'Allow', actions: [rng.pick(['s3:*', 'iam:*', 'kms:*', 'ec2:*'])], resources: ['*'] }, 5),
  ],
  tweaks: [(rng, policy) => void (policy.attachment_count = bump(rng, policy.attachment_count, 3))],
});

const GROUP_POLICIES = ['ReadOnlyAccess', 'PowerUserAccess', 'BillingViewAccess', 'SecurityAudit', 'DatabaseAdministrator'];

const iamGroup = defineModel({
  type: 'PROVA.IAM.Group',
  nameStem: 'group',
  compliant: (rng) => ({
    path: '/',
    member_count: rng.int(1, 25),
    attached_policies: rng.sample(GROUP_POLICIES, rng.int(1, 2)),
    inline_policy_count: 0,
  }),
  breaks: [
    (rng, group) => void (group.member_count = 0),
    (rng, group) => void (group.inline_policy_count = rng.int(1, 3)),
  ],
  tweaks: [(rng, group) => toggle(group.attached_policies, rng.pick(GROUP_POLICIES))],
});

const passwordPolicy = defineModel({
  type: 'PROVA.IAM.AccountPasswordPolicy',
  nameStem: 'password-policy',
  compliant: (rng) => ({
    minimum_length: rng.int(14, 20),
    require_uppercase: true,
    require_lowercase: true,
    require_numbers: true,
    require_symbols: true,
    max_age_days: rng.pick([60, 90]),
    reuse_prevention: 24,
    allow_users_to_change: true,
    hard_expiry: false,
    // The account's root credentials are reported with the password policy: both exist once per account.
    root_account: { mfa_enabled: true, hardware_mfa: true, access_keys_present: false, last_used_days_ago: rng.int(31, 400) },
  }),
  breaks: [
    (rng, policy) => void (policy.minimum_length = rng.pick([6, 8, 10, 12])),
    (rng, policy) => void (policy.reuse_prevention = rng.pick([0, 5, 10])),
    (rng, policy) => {
      const requirement = rng.pick(['require_uppercase', 'require_lowercase', 'require_numbers', 'require_symbols'] as const);
      policy[requirement] = false;
    },
    (rng, policy) => void (policy.max_age_days = rng.pick([0, 180, 365])),
    (rng, policy) => {
      policy.root_account.mfa_enabled = false;
      policy.root_account.hardware_mfa = false;
    },
    (rng, policy) => void (policy.root_account.hardware_mfa = false),
    (rng, policy) => void (policy.root_account.access_keys_present = true),
    (rng, policy) => void (policy.root_account.last_used_days_ago = rng.int(0, 20)),
  ],
  tweaks: [(rng, policy) => void (policy.allow_users_to_change = !policy.allow_users_to_change)],
});

// provider_a: storage and content delivery

const s3Bucket = defineModel({
  type: 'PROVA.S3.Bucket',
  nameStem: 'bucket',
  compliant: (rng, { region }) => ({
    region: region ?? rng.pick(['us-east-1', 'us-west-2', 'eu-west-1', 'eu-central-1', 'ap-southeast-2']),
    created_days_ago: rng.int(1, 2500),
    encryption: { enabled: true, algorithm: nullable(rng.pick(['AES256', 'kms'])) },
    versioning: 'Enabled',
    mfa_delete: true,
    public_access_block: { block_public_acls: true, ignore_public_acls: true, block_public_policy: true, restrict_public_buckets: true },
    policy_allows_public: false,
    acl_grants_public: false,
    policy_requires_tls: true,
    logging: { enabled: true, target: nullable(`access-logs-${rng.hex(6)}`) },
    lifecycle_rules: rng.int(1, 5),
    object_lock: rng.chance(0.15),
    object_count: rng.int(0, 5_000_000),
  }),
  breaks: [
    (rng, bucket) => void (bucket.encryption = { enabled: false, algorithm: null }),
    (rng, bucket) => {
      for (const flag of rng.sample(['block_public_acls', 'ignore_public_acls', 'block_public_policy', 'restrict_public_buckets'] as const, rng.int(1, 4))) {
        bucket.public_access_block[flag] = false;
      }
    },
    (rng, bucket) => {
      if (rng.chance(0.5)) bucket.policy_allows_public = true;
      else bucket.acl_grants_public = true;
    },
    (rng, bucket) => void (bucket.policy_requires_tls = false),
    (rng, bucket) => {
      bucket.versioning = 'Suspended';
      bucket.mfa_delete = false;
    },
    (rng, bucket) => void (bucket.mfa_delete = false),
    (rng, bucket) => void (bucket.logging = { enabled: false, target: null }),
    (rng, bucket) => void (bucket.lifecycle_rules = 0),
  ],
  tweaks: [(rng, bucket) => void (bucket.object_count = bump(rng, bucket.object_count, 5000))],
});

interface Origin {
  domain_name: string;
  kind: string;
  protocol_policy: string;
  origin_access_control: boolean;
}

const storageOrigin = (rng: Random, accessControl: boolean): Origin => ({
  domain_name: `static-${rng.hex(6)}.storage.example.net`,
  kind: 's3',
  protocol_policy: 'https-only',
  origin_access_control: accessControl,
});
const customOrigin = (rng: Random, protocolPolicy: string): Origin => ({
  domain_name: `origin-${rng.hex(4)}.example.com`,
  kind: 'custom',
  protocol_policy: protocolPolicy,
  origin_access_control: false,
});

const distribution = defineModel({
  type: 'PROVA.CloudFront.Distribution',
  nameStem: 'cdn',
  compliant: (rng) => ({
    domain_name: `d${rng.hex(12)}.cdn.example.net`,
    enabled: true,
    aliases: rng.chance(0.6) ? [`www-${rng.hex(3)}.example.com`] : [] as string[],
    viewer_protocol_policy: rng.pick(['redirect-to-https', 'https-only']),
    minimum_protocol_version: rng.pick(['TLSv1.2_2019', 'TLSv1.2_2021']),
    origins: Array.from({ length: rng.int(1, 3) }, () => (rng.chance(0.5) ? storageOrigin(rng, true) : customOrigin(rng, 'https-only'))),
    logging: { enabled: true, bucket: nullable(`cdn-logs-${rng.hex(6)}`) },
    web_acl_id: nullable(`waf-${uuid(rng)}`),
    default_root_object: 'index.html',
    price_class: rng.pick(['PriceClass_100', 'PriceClass_200', 'PriceClass_All']),
    http_version: 'http2',
  }),
  breaks: [
    (rng, cdn) => void (cdn.viewer_protocol_policy = 'allow-all'),
    (rng, cdn) => void (cdn.minimum_protocol_version = rng.pick(['TLSv1', 'TLSv1_2016', 'TLSv1.1_2016'])),
    (rng, cdn) => void (cdn.origins[0] = customOrigin(rng, rng.pick(['http-only', 'match-viewer']))),
    (rng, cdn) => void (cdn.origins[cdn.origins.length - 1] = storageOrigin(rng, false)),
    (rng, cdn) => void (cdn.logging = { enabled: false, bucket: null }),
    (rng, cdn) => void (cdn.web_acl_id = null),
    (rng, cdn) => void (cdn.default_root_object = ''),
  ],
  tweaks: [(rng, cdn) => void (cdn.price_class = nextOf(['PriceClass_100', 'PriceClass_200', 'PriceClass_All'], cdn.price_class))],
});

const hostedZone = defineModel({
  type: 'PROVA.Route53.HostedZone',
  nameStem: 'zone',
  compliant: (rng, { name }) => {
    const privateZone = rng.chance(0.4);
    return {
      zone_name: `${name}.${privateZone ? 'internal' : 'example.com'}`,
      private_zone: privateZone,
      record_count: rng.int(2, 300),
      query_logging: true,
      dnssec_status: privateZone ? 'NOT_SIGNING' : 'SIGNING',
    };
  },
  breaks: [
    (rng, zone) => void (zone.query_logging = false),
    (rng, zone) => {
      zone.private_zone = false;
      zone.dnssec_status = 'NOT_SIGNING';
    },
  ],
  tweaks: [(rng, zone) => void (zone.record_count = bump(rng, zone.record_count, 5))],
});

// provider_a: compute and network

const INSTANCE_TYPES = ['t3.micro', 't3.medium', 'm6i.large', 'm6i.xlarge', 'c6i.2xlarge', 'r6i.large'];

const instance = defineModel({
  type: 'PROVA.EC2.Instance',
  nameStem: 'instance',
  compliant: (rng) => ({
    instance_type: rng.pick(INSTANCE_TYPES),
    state: rng.chance(0.85) ? 'running' : 'stopped',
    image_id: `image-${rng.hex(12)}`,
    vpc_id: `vpc-${rng.hex(8)}`,
    subnet_id: `subnet-${rng.hex(8)}`,
    private_ip: `10.${rng.int(0, 255)}.${rng.int(0, 255)}.${rng.int(4, 254)}`,
    public_ip: null as string | null,
    metadata_options: { http_tokens: 'required', http_endpoint: 'enabled', hop_limit: rng.pick([1, 2]) },
    instance_profile: nullable(`profile-${rng.pick(['app', 'worker', 'batch', 'web'])}`),
    security_groups: Array.from({ length: rng.int(1, 3) }, () => `sg-${rng.hex(8)}`),
    detailed_monitoring: true,
    managed_by_systems_agent: true,
    patch_compliance: 'COMPLIANT',
    launched_days_ago: rng.int(0, 900),
  }),
  breaks: [
    (rng, vm) => {
      vm.metadata_options.http_tokens = 'optional';
      vm.metadata_options.http_endpoint = 'enabled';
    },
    (rng, vm) => void (vm.public_ip = publicIp(rng)),
    (rng, vm) => {
      vm.managed_by_systems_agent = false;
      vm.patch_compliance = 'UNKNOWN';
    },
    (rng, vm) => void (vm.patch_compliance = 'NON_COMPLIANT'),
    (rng, vm) => void (vm.instance_profile = null),
    (rng, vm) => void (vm.detailed_monitoring = false),
  ],
  tweaks: [(rng, vm) => void (vm.instance_type = nextOf(INSTANCE_TYPES, vm.instance_type))],
});

interface IngressRule {
  protocol: string;
  from_port: number;
  to_port: number;
  cidr: string;
}

const ALLOWED_INGRESS: readonly IngressRule[] = [
  { protocol: 'tcp', from_port: 443, to_port: 443, cidr: '0.0.0.0/0' },
  { protocol: 'tcp', from_port: 80, to_port: 80, cidr: '0.0.0.0/0' },
  { protocol: 'tcp', from_port: 22, to_port: 22, cidr: '10.0.0.0/8' },
  { protocol: 'tcp', from_port: 5432, to_port: 5432, cidr: '10.20.0.0/16' },
  { protocol: 'tcp', from_port: 3389, to_port: 3389, cidr: '172.16.0.0/12' },
  { protocol: 'tcp', from_port: 8080, to_port: 8090, cidr: '10.0.0.0/8' },
  { protocol: 'udp', from_port: 53, to_port: 53, cidr: '10.0.0.0/8' },
];
const ALL_EGRESS: IngressRule = { protocol: '-1', from_port: 0, to_port: 65535, cidr: '0.0.0.0/0' };
const INGRESS_CAP = 12;

const securityGroup = defineModel({
  type: 'PROVA.EC2.SecurityGroup',
  nameStem: 'sg',
  compliant: (rng) => {
    // Every VPC has a default group; a well-kept one has no rules at all.
    const isDefault = rng.chance(0.25);
    return {
      description: isDefault ? 'default VPC security group' : rng.pick(['web tier', 'application servers', 'database access', 'bastion']),
      vpc_id: `vpc-${rng.hex(8)}`,
      is_default: isDefault,
      ingress: isDefault ? ([] as IngressRule[]) : rng.sample(ALLOWED_INGRESS, rng.int(1, 4)).map((r) => ({ ...r })),
      egress: isDefault ? ([] as IngressRule[]) : [{ ...ALL_EGRESS }],
      attached_interfaces: rng.int(0, 40),
    };
  },
  breaks: [
    (rng, sg) => addCapped(sg.ingress, { protocol: 'tcp', from_port: 22, to_port: 22, cidr: rng.pick(PUBLIC_CIDRS) }, INGRESS_CAP),
    (rng, sg) => addCapped(sg.ingress, { protocol: 'tcp', from_port: 3389, to_port: 3389, cidr: rng.pick(PUBLIC_CIDRS) }, INGRESS_CAP),
    (rng, sg) => {
      const port = rng.pick(DB_PORTS);
      addCapped(sg.ingress, { protocol: 'tcp', from_port: port, to_port: port, cidr: rng.pick(PUBLIC_CIDRS) }, INGRESS_CAP);
    },
    (rng, sg) => addCapped(sg.ingress, { ...ALL_EGRESS, cidr: rng.pick(PUBLIC_CIDRS) }, INGRESS_CAP),
    (rng, sg) => {
      if (!sg.is_default) return;
      addCapped(sg.ingress, { protocol: '-1', from_port: 0, to_port: 65535, cidr: '10.0.0.0/16' }, INGRESS_CAP);
      addCapped(sg.egress, { ...ALL_EGRESS }, INGRESS_CAP);
    },
  ],
  tweaks: [(rng, sg) => void (sg.attached_interfaces = bump(rng, sg.attached_interfaces, 3))],
});

const volume = defineModel({
  type: 'PROVA.EC2.Volume',
  nameStem: 'vol',
  compliant: (rng) => ({
    size_gib: rng.pick([8, 20, 50, 100, 200, 500, 1000]),
    volume_type: rng.pick(['gp3', 'gp2', 'io2', 'st1']),
    encrypted: true,
    kms_key_id: nullable(kmsKeyId(rng)),
    state: 'in-use',
    attached_instance: nullable(`i-${rng.hex(12)}`),
    delete_on_termination: rng.chance(0.6),
    in_backup_plan: true,
  }),
  breaks: [
    (rng, vol) => {
      vol.encrypted = false;
      vol.kms_key_id = null;
    },
    (rng, vol) => {
      vol.state = 'available';
      vol.attached_instance = null;
    },
    (rng, vol) => void (vol.in_backup_plan = false),
  ],
  tweaks: [(rng, vol) => void (vol.size_gib += rng.pick([10, 50, 100]))],
});

const PARTNER_ACCOUNTS = ['210987654321', '345678901234', '456789012345'];

const snapshot = defineModel({
  type: 'PROVA.EC2.Snapshot',
  nameStem: 'snap',
  compliant: (rng) => ({
    volume_id: `vol-${rng.hex(12)}`,
    volume_size_gib: rng.pick([8, 20, 50, 100, 500]),
    encrypted: true,
    public: false,
    shared_with_accounts: [] as string[],
    age_days: rng.int(0, 700),
    description: rng.pick(['nightly backup', 'pre-upgrade', 'golden image', 'manual copy']),
  }),
  breaks: [
    (rng, snap) => void (snap.public = true),
    (rng, snap) => void (snap.encrypted = false),
  ],
  tweaks: [(rng, snap) => toggle(snap.shared_with_accounts, rng.pick(PARTNER_ACCOUNTS))],
});

const vpc = defineModel({
  type: 'PROVA.EC2.VPC',
  nameStem: 'vpc',
  compliant: (rng) => {
    const isDefault = rng.chance(0.35);
    return {
      cidr_block: isDefault ? '172.31.0.0/16' : `10.${rng.int(0, 255)}.0.0/16`,
      is_default: isDefault,
      flow_logs_enabled: true,
      dns_support: true,
      dns_hostnames: rng.chance(0.8),
      subnet_count: rng.int(2, 9),
      // A default VPC is compliant only while nothing runs in it.
      network_interfaces: isDefault ? 0 : rng.int(1, 120),
      internet_gateway_attached: rng.chance(0.7),
    };
  },
  breaks: [
    (rng, net) => void (net.flow_logs_enabled = false),
    (rng, net) => {
      if (net.is_default) net.network_interfaces += rng.int(1, 20);
    },
  ],
  tweaks: [(rng, net) => void (net.subnet_count = bump(rng, net.subnet_count, 2))],
});

const subnet = defineModel({
  type: 'PROVA.EC2.Subnet',
  nameStem: 'subnet',
  compliant: (rng, { region }) => ({
    vpc_id: `vpc-${rng.hex(8)}`,
    cidr_block: `10.${rng.int(0, 255)}.${rng.int(0, 15) * 16}.0/20`,
    availability_zone: `${region ?? 'us-east-1'}${rng.pick(['a', 'b', 'c'])}`,
    map_public_ip_on_launch: false,
    available_ip_count: rng.int(100, 4000),
    route_to_internet_gateway: rng.chance(0.4),
  }),
  breaks: [(rng, net) => void (net.map_public_ip_on_launch = true)],
  tweaks: [(rng, net) => void (net.available_ip_count = bump(rng, net.available_ip_count, 10))],
});

const flowLog = defineModel({
  type: 'PROVA.EC2.FlowLog',
  nameStem: 'flowlog',
  compliant: (rng) => {
    const toStorage = rng.chance(0.5);
    return {
      resource_id: rng.chance(0.8) ? `vpc-${rng.hex(8)}` : `subnet-${rng.hex(8)}`,
      traffic_type: 'ALL',
      destination_type: toStorage ? 's3' : 'cloud-watch-logs',
      log_destination: toStorage ? `flow-logs-${rng.hex(6)}` : `/vpc/flow-logs/${rng.hex(4)}`,
      status: 'ACTIVE',
      max_aggregation_interval: rng.pick([60, 600]),
    };
  },
  breaks: [
    (rng, log) => void (log.traffic_type = rng.pick(['ACCEPT', 'REJECT'])),
    (rng, log) => void (log.status = 'ERROR'),
  ],
  tweaks: [(rng, log) => void (log.max_aggregation_interval = log.max_aggregation_interval === 60 ? 600 : 60)],
});

interface AclEntry {
  rule_number: number;
  egress: boolean;
  protocol: string;
  from_port: number;
  to_port: number;
  cidr: string;
  action: string;
}

const NACL_CAP = 12;

const networkAcl = defineModel({
  type: 'PROVA.EC2.NetworkAcl',
  nameStem: 'acl',
  compliant: (rng) => ({
    vpc_id: `vpc-${rng.hex(8)}`,
    is_default: rng.chance(0.3),
    associated_subnets: rng.int(1, 6),
    entries: [
      { rule_number: 100, egress: false, protocol: 'tcp', from_port: 443, to_port: 443, cidr: '0.0.0.0/0', action: 'allow' },
      { rule_number: 110, egress: false, protocol: 'tcp', from_port: 80, to_port: 80, cidr: '0.0.0.0/0', action: 'allow' },
      { rule_number: 120, egress: false, protocol: 'tcp', from_port: 32768, to_port: 65535, cidr: '0.0.0.0/0', action: 'allow' },
      { rule_number: 130, egress: false, protocol: 'tcp', from_port: 22, to_port: 22, cidr: '10.0.0.0/8', action: 'allow' },
      { rule_number: 32767, egress: false, protocol: '-1', from_port: 0, to_port: 65535, cidr: '0.0.0.0/0', action: 'deny' },
      { rule_number: 100, egress: true, protocol: '-1', from_port: 0, to_port: 65535, cidr: '0.0.0.0/0', action: 'allow' },
    ] as AclEntry[],
  }),
  breaks: [
    (rng, acl) => {
      const [from, to] = rng.pick([[22, 22], [3389, 3389], [0, 65535]] as const);
      addCapped(
        acl.entries,
        { rule_number: rng.int(1, 99), egress: false, protocol: from === 0 ? '-1' : 'tcp', from_port: from, to_port: to, cidr: rng.pick(PUBLIC_CIDRS), action: 'allow' },
        NACL_CAP,
      );
    },
    (rng, acl) => void (acl.associated_subnets = 0),
  ],
  tweaks: [(rng, acl) => void (acl.associated_subnets += 1)],
});

// provider_a: databases

const DB_ENGINES = [
  { engine: 'postgres', versions: ['14.12', '15.7', '16.3'], port: 5432, logs: ['postgresql', 'upgrade'] },
  { engine: 'mysql', versions: ['8.0.36', '8.0.39'], port: 3306, logs: ['error', 'slowquery', 'audit'] },
  { engine: 'mariadb', versions: ['10.6.18', '10.11.8'], port: 3306, logs: ['error', 'slowquery'] },
  { engine: 'oracle-se2', versions: ['19.0.0.0'], port: 1521, logs: ['alert', 'listener'] },
  { engine: 'sqlserver-se', versions: ['15.00.4345', '16.00.4131'], port: 1433, logs: ['error', 'agent'] },
];
const IAM_AUTH_ENGINES = ['postgres', 'mysql', 'mariadb'];

const dbInstance = defineModel({
  type: 'PROVA.RDS.DBInstance',
  nameStem: 'db',
  compliant: (rng) => {
    const flavour = rng.pick([DB_ENGINES[0]!, DB_ENGINES[0]!, DB_ENGINES[1]!, ...DB_ENGINES]);
    return {
      engine: flavour.engine,
      engine_version: rng.pick(flavour.versions),
      instance_class: rng.pick(['db.t3.medium', 'db.m6g.large', 'db.r6g.xlarge']),
      allocated_storage_gib: rng.pick([20, 100, 200, 500]),
      port: flavour.port,
      storage_encrypted: true,
      kms_key_id: nullable(kmsKeyId(rng)),
      publicly_accessible: false,
      backup_retention_days: rng.int(7, 35),
      multi_az: true,
      auto_minor_version_upgrade: true,
      deletion_protection: true,
      iam_auth_enabled: IAM_AUTH_ENGINES.includes(flavour.engine),
      enhanced_monitoring_interval: rng.pick([15, 30, 60]),
      log_exports: rng.sample(flavour.logs, rng.int(1, flavour.logs.length)),
    };
  },
  breaks: [
    (rng, db) => {
      db.storage_encrypted = false;
      db.kms_key_id = null;
    },
    (rng, db) => void (db.publicly_accessible = true),
    (rng, db) => void (db.backup_retention_days = rng.pick([0, 1, 3])),
    (rng, db) => void (db.multi_az = false),
    (rng, db) => void (db.auto_minor_version_upgrade = false),
    (rng, db) => void (db.deletion_protection = false),
    (rng, db) => void (db.log_exports = []),
    (rng, db) => void (db.iam_auth_enabled = false),
    (rng, db) => void (db.enhanced_monitoring_interval = 0),
  ],
  tweaks: [(rng, db) => void (db.allocated_storage_gib += rng.pick([20, 50, 100]))],
});

const dbSnapshot = defineModel({
  type: 'PROVA.RDS.DBSnapshot',
  nameStem: 'dbsnap',
  compliant: (rng) => ({
    db_instance: `db-${rng.hex(4)}`,
    engine: rng.pick(['postgres', 'mysql', 'mariadb']),
    snapshot_type: rng.pick(['manual', 'automated']),
    encrypted: true,
    public: false,
    age_days: rng.int(0, 400),
    allocated_storage_gib: rng.pick([20, 100, 200]),
  }),
  breaks: [
    (rng, snap) => {
      // Only manual snapshots can be shared.
      snap.snapshot_type = 'manual';
      snap.public = true;
    },
    (rng, snap) => void (snap.encrypted = false),
  ],
  tweaks: [(rng, snap) => void (snap.age_days += 1)],
});

// provider_a: keys, logging and monitoring

const kmsKey = defineModel({
  type: 'PROVA.KMS.Key',
  nameStem: 'key',
  compliant: (rng) => {
    const spec = rng.chance(0.85) ? 'SYMMETRIC_DEFAULT' : rng.pick(['RSA_2048', 'ECC_NIST_P256']);
    return {
      key_id: uuid(rng),
      description: rng.pick(['application data', 'backups', 'log encryption', 'signing']),
      key_state: 'Enabled',
      key_manager: 'CUSTOMER',
      key_spec: spec,
      key_usage: spec === 'SYMMETRIC_DEFAULT' ? 'ENCRYPT_DECRYPT' : 'SIGN_VERIFY',
      // Asymmetric keys cannot rotate automatically.
      rotation_enabled: spec === 'SYMMETRIC_DEFAULT',
      policy_allows_public: false,
      multi_region: rng.chance(0.1),
      pending_deletion_days: null as number | null,
    };
  },
  breaks: [
    (rng, key) => {
      if (key.key_spec === 'SYMMETRIC_DEFAULT') key.rotation_enabled = false;
    },
    (rng, key) => void (key.policy_allows_public = true),
    (rng, key) => {
      key.key_state = 'PendingDeletion';
      key.pending_deletion_days = rng.pick([7, 14, 30]);
    },
  ],
  tweaks: [
    (rng, key) => {
      key.key_state = key.key_state === 'Enabled' ? 'Disabled' : 'Enabled';
      key.pending_deletion_days = null;
    },
  ],
});

const trail = defineModel({
  type: 'PROVA.CloudTrail.Trail',
  nameStem: 'trail',
  compliant: (rng, { region }) => ({
    home_region: region ?? 'us-east-1',
    is_multi_region: true,
    include_global_service_events: true,
    is_logging: true,
    log_file_validation: true,
    kms_key_id: nullable(kmsKeyId(rng)),
    cloudwatch_log_group: nullable(`/trail/${rng.hex(6)}`),
    management_events: 'All',
    s3_data_events: 'All',
    insights_enabled: rng.chance(0.3),
    s3_bucket: `trail-logs-${rng.hex(6)}`,
    s3_bucket_access_logging: true,
    s3_bucket_public: false,
  }),
  breaks: [
    (rng, t) => void (t.is_multi_region = false),
    (rng, t) => void (t.is_logging = false),
    (rng, t) => void (t.log_file_validation = false),
    (rng, t) => void (t.kms_key_id = null),
    (rng, t) => void (t.cloudwatch_log_group = null),
    (rng, t) => void (t.management_events = rng.pick(['ReadOnly', 'WriteOnly'])),
    (rng, t) => void (t.s3_data_events = rng.pick(['None', 'ReadOnly', 'WriteOnly'])),
    (rng, t) => void (t.s3_bucket_access_logging = false),
    (rng, t) => void (t.s3_bucket_public = true),
  ],
  tweaks: [(rng, t) => void (t.insights_enabled = !t.insights_enabled)],
});

// The events the security benchmark wants a metric filter and an alarm for.
const MONITORED_EVENTS = [
  'UnauthorizedApiCalls',
  'ConsoleSignInWithoutMfa',
  'RootAccountUsage',
  'IamPolicyChanges',
  'TrailConfigChanges',
  'ConsoleAuthFailures',
  'KeyDisableOrDeletion',
  'BucketPolicyChanges',
  'ConfigRecorderChanges',
  'SecurityGroupChanges',
  'NetworkAclChanges',
  'RouteTableChanges',
];

const alarm = defineModel({
  type: 'PROVA.CloudWatch.Alarm',
  nameStem: 'alarm',
  compliant: (rng) => {
    const security = rng.chance(0.6);
    return {
      metric_name: security ? rng.pick(MONITORED_EVENTS) : rng.pick(['CPUUtilization', 'FreeStorageSpace', '5XXErrorCount', 'ApproximateAgeOfOldestMessage']),
      namespace: security ? 'TrailMetrics' : rng.pick(['Compute', 'Database', 'LoadBalancing', 'Queues']),
      comparison: 'GreaterThanOrEqualToThreshold',
      threshold: security ? 1 : rng.pick([80, 90, 5, 600]),
      period_seconds: rng.pick([60, 300]),
      state: rng.pick(['OK', 'OK', 'OK', 'ALARM', 'INSUFFICIENT_DATA']),
      actions_enabled: true,
      alarm_actions: [`arn:prova:sns:us-east-1:topic/${rng.pick(['security-alerts', 'oncall', 'ops'])}`],
    };
  },
  breaks: [
    (rng, a) => void (a.actions_enabled = false),
    (rng, a) => void (a.alarm_actions = []),
  ],
  tweaks: [(rng, a) => void (a.state = nextOf(['OK', 'ALARM', 'INSUFFICIENT_DATA'], a.state))],
});

const logGroup = defineModel({
  type: 'PROVA.Logs.LogGroup',
  nameStem: 'logs',
  compliant: (rng) => ({
    retention_days: nullable(rng.pick([365, 400, 731, 1827, 3653])) as number | null,
    kms_key_id: nullable(kmsKeyId(rng)),
    stored_bytes: rng.int(0, 50_000_000_000),
    metric_filter_count: rng.int(0, 6),
  }),
  breaks: [
    (rng, log) => void (log.retention_days = rng.pick([1, 3, 7, 14, 30, 90, 180])),
    (rng, log) => void (log.kms_key_id = null),
  ],
  tweaks: [(rng, log) => void (log.stored_bytes = bump(rng, log.stored_bytes, 1_000_000))],
});

// provider_a: application services

const lambdaFunction = defineModel({
  type: 'PROVA.Lambda.Function',
  nameStem: 'fn',
  compliant: (rng) => ({
    runtime: rng.pick(SUPPORTED_FUNCTION_RUNTIMES),
    handler: rng.pick(['index.handler', 'app.main', 'bootstrap']),
    memory_mb: rng.pick([128, 256, 512, 1024, 2048]),
    timeout_seconds: rng.pick([3, 15, 30, 60, 300]),
    role: `role/service-role/${rng.pick(['api', 'worker', 'etl'])}-${rng.hex(4)}`,
    policy_allows_public: false,
    in_vpc: true,
    tracing_mode: 'Active',
    function_url_auth: nullable(rng.chance(0.2) ? 'IAM' : null),
    dead_letter_target: nullable(rng.chance(0.5) ? `queue/dlq-${rng.hex(4)}` : null),
    last_modified_days_ago: rng.int(0, 500),
  }),
  breaks: [
    (rng, fn) => void (fn.policy_allows_public = true),
    (rng, fn) => void (fn.runtime = rng.pick(RETIRED_FUNCTION_RUNTIMES)),
    (rng, fn) => void (fn.in_vpc = false),
    (rng, fn) => void (fn.function_url_auth = 'NONE'),
    (rng, fn) => void (fn.tracing_mode = 'PassThrough'),
  ],
  tweaks: [(rng, fn) => void (fn.memory_mb = nextOf([128, 256, 512, 1024, 2048], fn.memory_mb))],
});

const topic = defineModel({
  type: 'PROVA.SNS.Topic',
  nameStem: 'topic',
  compliant: (rng) => ({
    display_name: rng.pick(['alerts', 'orders', 'notifications', 'events']),
    fifo: rng.chance(0.15),
    kms_key_id: nullable(kmsKeyId(rng)),
    policy_allows_public: false,
    delivery_status_logging: true,
    subscription_count: rng.int(0, 12),
  }),
  breaks: [
    (rng, t) => void (t.kms_key_id = null),
    (rng, t) => void (t.policy_allows_public = true),
    (rng, t) => void (t.delivery_status_logging = false),
  ],
  tweaks: [(rng, t) => void (t.subscription_count = bump(rng, t.subscription_count, 2))],
});

const queue = defineModel({
  type: 'PROVA.SQS.Queue',
  nameStem: 'queue',
  compliant: (rng) => {
    const kms = rng.chance(0.5);
    return {
      fifo: rng.chance(0.2),
      encryption: kms ? 'kms' : 'managed',
      kms_key_id: nullable(kms ? kmsKeyId(rng) : null),
      visibility_timeout_seconds: rng.pick([30, 60, 300, 900]),
      message_retention_seconds: rng.pick([345600, 1209600]),
      dead_letter_queue: nullable(`dlq-${rng.hex(4)}`),
      policy_allows_public: false,
      approximate_messages: rng.int(0, 10000),
    };
  },
  breaks: [
    (rng, q) => {
      q.encryption = 'none';
      q.kms_key_id = null;
    },
    (rng, q) => void (q.policy_allows_public = true),
    (rng, q) => void (q.dead_letter_queue = null),
  ],
  tweaks: [(rng, q) => void (q.approximate_messages = bump(rng, q.approximate_messages, 100))],
});

const table = defineModel({
  type: 'PROVA.DynamoDB.Table',
  nameStem: 'table',
  compliant: (rng) => {
    const onDemand = rng.chance(0.6);
    return {
      billing_mode: onDemand ? 'PAY_PER_REQUEST' : 'PROVISIONED',
      autoscaling_enabled: !onDemand,
      item_count: rng.int(0, 50_000_000),
      point_in_time_recovery: true,
      sse_type: 'KMS',
      deletion_protection: true,
      in_backup_plan: true,
      stream_enabled: rng.chance(0.3),
    };
  },
  breaks: [
    (rng, t) => void (t.point_in_time_recovery = false),
    (rng, t) => void (t.deletion_protection = false),
    (rng, t) => {
      t.billing_mode = 'PROVISIONED';
      t.autoscaling_enabled = false;
    },
    (rng, t) => void (t.in_backup_plan = false),
    (rng, t) => void (t.sse_type = 'OWNED'),
  ],
  tweaks: [(rng, t) => void (t.item_count = bump(rng, t.item_count, 1000))],
});

interface Listener {
  protocol: string;
  port: number;
  ssl_policy: string | null;
  redirects_to_https: boolean;
}

const loadBalancer = defineModel({
  type: 'PROVA.ELB.LoadBalancer',
  nameStem: 'lb',
  compliant: (rng) => {
    const application = rng.chance(0.7);
    const listeners: Listener[] = [{ protocol: application ? 'HTTPS' : 'TLS', port: 443, ssl_policy: rng.pick(MODERN_TLS_POLICIES), redirects_to_https: false }];
    if (application && rng.chance(0.6)) listeners.push({ protocol: 'HTTP', port: 80, ssl_policy: null, redirects_to_https: true });
    return {
      lb_type: application ? 'application' : 'network',
      scheme: rng.chance(0.6) ? 'internet-facing' : 'internal',
      vpc_id: `vpc-${rng.hex(8)}`,
      availability_zones: rng.int(2, 3),
      listeners,
      access_logs: true,
      deletion_protection: true,
      drop_invalid_header_fields: application,
    };
  },
  breaks: [
    (rng, lb) => {
      const plain = lb.listeners.find((l) => l.protocol === 'HTTP' || l.protocol === 'TCP');
      if (plain) plain.redirects_to_https = false;
      else lb.listeners.push({ protocol: lb.lb_type === 'application' ? 'HTTP' : 'TCP', port: 80, ssl_policy: null, redirects_to_https: false });
    },
    (rng, lb) => void (lb.listeners[0]!.ssl_policy = rng.pick(LEGACY_TLS_POLICIES)),
    (rng, lb) => void (lb.access_logs = false),
    (rng, lb) => void (lb.deletion_protection = false),
    (rng, lb) => {
      if (lb.lb_type === 'application') lb.drop_invalid_header_fields = false;
    },
  ],
  tweaks: [(rng, lb) => void (lb.availability_zones = lb.availability_zones === 2 ? 3 : 2)],
});

const CLUSTER_LOG_TYPES = ['api', 'audit', 'authenticator', 'controllerManager', 'scheduler'];

const cluster = defineModel({
  type: 'PROVA.EKS.Cluster',
  nameStem: 'cluster',
  compliant: (rng) => {
    const publicEndpoint = rng.chance(0.4);
    return {
      kubernetes_version: rng.pick(SUPPORTED_KUBERNETES),
      endpoint_public_access: publicEndpoint,
      public_access_cidrs: publicEndpoint ? [`203.0.113.${rng.pick([0, 64, 128])}/26`] : [] as string[],
      endpoint_private_access: true,
      secrets_encryption: true,
      enabled_log_types: ['api', 'audit', ...rng.sample(CLUSTER_LOG_TYPES.slice(2), rng.int(0, 3))],
      node_groups: rng.int(1, 6),
    };
  },
  breaks: [
    (rng, c) => {
      c.endpoint_public_access = true;
      c.public_access_cidrs = ['0.0.0.0/0'];
    },
    (rng, c) => void (c.secrets_encryption = false),
    (rng, c) => remove(c.enabled_log_types, 'audit'),
    (rng, c) => void (c.kubernetes_version = rng.pick(RETIRED_KUBERNETES)),
  ],
  tweaks: [(rng, c) => void (c.node_groups = bump(rng, c.node_groups, 2))],
});

const repository = defineModel({
  type: 'PROVA.ECR.Repository',
  nameStem: 'repo',
  compliant: (rng) => ({
    image_scan_on_push: true,
    tag_mutability: 'IMMUTABLE',
    lifecycle_policy: true,
    encryption_type: rng.pick(['AES256', 'KMS']),
    policy_allows_public: false,
    image_count: rng.int(0, 900),
  }),
  breaks: [
    (rng, r) => void (r.image_scan_on_push = false),
    (rng, r) => void (r.tag_mutability = 'MUTABLE'),
    (rng, r) => void (r.lifecycle_policy = false),
    (rng, r) => void (r.policy_allows_public = true),
  ],
  tweaks: [(rng, r) => void (r.image_count = bump(rng, r.image_count, 10))],
});

const DELIVERY_FREQUENCIES = ['One_Hour', 'Three_Hours', 'Six_Hours', 'Twelve_Hours', 'TwentyFour_Hours'];

const configRecorder = defineModel({
  type: 'PROVA.Config.ConfigurationRecorder',
  nameStem: 'recorder',
  compliant: (rng) => ({
    recording: true,
    last_status: 'SUCCESS',
    all_supported: true,
    include_global_resource_types: true,
    role_name: 'config-recorder',
    delivery_bucket: `config-history-${rng.hex(6)}`,
    delivery_frequency: rng.pick(DELIVERY_FREQUENCIES),
  }),
  breaks: [
    (rng, r) => void (r.recording = false),
    (rng, r) => void (r.last_status = 'FAILURE'),
    (rng, r) => void (r.all_supported = false),
    (rng, r) => void (r.include_global_resource_types = false),
  ],
  tweaks: [(rng, r) => void (r.delivery_frequency = nextOf(DELIVERY_FREQUENCIES, r.delivery_frequency))],
});

// provider_b

const storageAccount = defineModel({
  type: 'PROVB.Storage.Account',
  nameStem: 'storage',
  compliant: (rng) => ({
    kind: rng.pick(['StorageV2', 'StorageV2', 'BlobStorage']),
    sku: rng.pick(['Standard_LRS', 'Standard_GRS', 'Standard_ZRS', 'Premium_LRS']),
    https_only: true,
    min_tls_version: 'TLS1_2',
    allow_blob_public_access: false,
    network_default_action: 'Deny',
    trusted_services_bypass: rng.chance(0.7),
    encryption: { key_source: 'customer', infrastructure_encryption: rng.chance(0.3) },
    blob_soft_delete_days: rng.pick([7, 14, 30]),
    used_capacity_bytes: rng.int(0, 500_000_000_000),
  }),
  breaks: [
    (rng, s) => void (s.https_only = false),
    (rng, s) => void (s.min_tls_version = rng.pick(['TLS1_0', 'TLS1_1'])),
    (rng, s) => void (s.allow_blob_public_access = true),
    (rng, s) => void (s.network_default_action = 'Allow'),
    (rng, s) => void (s.blob_soft_delete_days = 0),
    (rng, s) => void (s.encryption.key_source = 'platform'),
  ],
  tweaks: [(rng, s) => void (s.used_capacity_bytes = bump(rng, s.used_capacity_bytes, 1_000_000))],
});

const VM_SIZES = ['Standard_B2s', 'Standard_D2s_v5', 'Standard_D4s_v5', 'Standard_E4s_v5', 'Standard_F8s_v2'];

const virtualMachine = defineModel({
  type: 'PROVB.Compute.VirtualMachine',
  nameStem: 'vm',
  compliant: (rng) => {
    const osType = rng.chance(0.7) ? 'linux' : 'windows';
    return {
      vm_size: rng.pick(VM_SIZES),
      os_type: osType,
      image: osType === 'linux' ? rng.pick(['ubuntu-22.04', 'ubuntu-24.04', 'rhel-9']) : rng.pick(['windows-server-2022', 'windows-server-2019']),
      power_state: rng.chance(0.85) ? 'running' : 'deallocated',
      managed_disks: true,
      encryption_at_host: true,
      password_authentication: osType === 'windows',
      extensions: ['monitoring-agent', 'endpoint-protection'],
      patch_mode: 'AutomaticByPlatform',
      identity: rng.pick(['SystemAssigned', 'UserAssigned']),
      boot_diagnostics: rng.chance(0.8),
    };
  },
  breaks: [
    (rng, vm) => void (vm.managed_disks = false),
    (rng, vm) => void (vm.encryption_at_host = false),
    (rng, vm) => remove(vm.extensions, 'endpoint-protection'),
    (rng, vm) => remove(vm.extensions, 'monitoring-agent'),
    (rng, vm) => void (vm.patch_mode = 'Manual'),
    (rng, vm) => {
      if (vm.os_type === 'linux') vm.password_authentication = true;
    },
  ],
  tweaks: [(rng, vm) => void (vm.vm_size = nextOf(VM_SIZES, vm.vm_size))],
});

const disk = defineModel({
  type: 'PROVB.Compute.Disk',
  nameStem: 'disk',
  compliant: (rng) => {
    const attached = rng.chance(0.75);
    return {
      size_gb: rng.pick([32, 64, 128, 256, 512, 1024]),
      sku: rng.pick(['Premium_LRS', 'StandardSSD_LRS', 'Standard_LRS']),
      disk_state: attached ? 'Attached' : 'Unattached',
      managed_by: nullable(attached ? `vm-${rng.hex(4)}` : null),
      encryption_type: rng.pick(['customer', 'platform-and-customer']),
      network_access_policy: rng.pick(['DenyAll', 'AllowPrivate']),
    };
  },
  breaks: [
    (rng, d) => void (d.encryption_type = 'platform'),
    (rng, d) => {
      d.disk_state = 'Unattached';
      d.managed_by = null;
      d.encryption_type = 'platform';
    },
    (rng, d) => void (d.network_access_policy = 'AllowAll'),
  ],
  tweaks: [(rng, d) => void (d.size_gb *= 2)],
});

interface NsgRule {
  name: string;
  priority: number;
  direction: string;
  access: string;
  protocol: string;
  source: string;
  from_port: number;
  to_port: number;
}

const BASELINE_NSG_RULES: readonly NsgRule[] = [
  { name: 'allow-https', priority: 100, direction: 'Inbound', access: 'Allow', protocol: 'Tcp', source: 'Internet', from_port: 443, to_port: 443 },
  { name: 'allow-ssh-bastion', priority: 110, direction: 'Inbound', access: 'Allow', protocol: 'Tcp', source: '10.0.1.0/24', from_port: 22, to_port: 22 },
  { name: 'allow-vnet', priority: 200, direction: 'Inbound', access: 'Allow', protocol: '*', source: 'VirtualNetwork', from_port: 0, to_port: 65535 },
  { name: 'deny-all-inbound', priority: 4096, direction: 'Inbound', access: 'Deny', protocol: '*', source: '*', from_port: 0, to_port: 65535 },
];
const NSG_RULE_CAP = 12;

const networkSecurityGroup = defineModel({
  type: 'PROVB.Network.SecurityGroup',
  nameStem: 'nsg',
  compliant: (rng) => ({
    security_rules: BASELINE_NSG_RULES.filter((r) => r.name !== 'allow-ssh-bastion' || rng.chance(0.5)).map((r) => ({ ...r })),
    flow_log: { enabled: true, retention_days: rng.pick([90, 120, 180, 365]) },
    subnets_associated: rng.int(0, 5),
  }),
  breaks: [
    (rng, nsg) =>
      addCapped(nsg.security_rules, { name: 'allow-rdp', priority: rng.int(120, 190), direction: 'Inbound', access: 'Allow', protocol: 'Tcp', source: rng.pick(INTERNET_SOURCES), from_port: 3389, to_port: 3389 }, NSG_RULE_CAP),
    (rng, nsg) =>
      addCapped(nsg.security_rules, { name: 'allow-ssh', priority: rng.int(120, 190), direction: 'Inbound', access: 'Allow', protocol: 'Tcp', source: rng.pick(INTERNET_SOURCES), from_port: 22, to_port: 22 }, NSG_RULE_CAP),
    (rng, nsg) =>
      addCapped(nsg.security_rules, { name: 'allow-udp', priority: rng.int(120, 190), direction: 'Inbound', access: 'Allow', protocol: 'Udp', source: rng.pick(INTERNET_SOURCES), from_port: 500, to_port: 4500 }, NSG_RULE_CAP),
    (rng, nsg) => void (nsg.flow_log = rng.chance(0.5) ? { enabled: false, retention_days: 0 } : { enabled: true, retention_days: rng.pick([7, 30, 60]) }),
  ],
  tweaks: [(rng, nsg) => void (nsg.subnets_associated = bump(rng, nsg.subnets_associated, 2))],
});

const virtualNetwork = defineModel({
  type: 'PROVB.Network.VirtualNetwork',
  nameStem: 'vnet',
  compliant: (rng) => {
    const octet = rng.int(0, 255);
    const names = ['app', ...rng.sample(['data', 'web', 'GatewaySubnet', 'FirewallSubnet', 'integration'], rng.int(0, 3))];
    return {
      address_space: [`10.${octet}.0.0/16`],
      subnets: names.map((name, i) => ({ name, prefix: `10.${octet}.${i}.0/24`, nsg_attached: !name.endsWith('Subnet') })),
      ddos_protection: true,
      peerings: rng.int(0, 4),
    };
  },
  breaks: [
    (rng, net) => void (rng.pick(net.subnets.filter((s) => !s.name.endsWith('Subnet'))).nsg_attached = false),
    (rng, net) => void (net.ddos_protection = false),
  ],
  tweaks: [(rng, net) => void (net.peerings = net.peerings > 0 && rng.chance(0.5) ? net.peerings - 1 : net.peerings + 1)],
});

const publicIpAddress = defineModel({
  type: 'PROVB.Network.PublicIP',
  nameStem: 'pip',
  compliant: (rng) => ({
    ip_address: publicIp(rng),
    sku: 'Standard',
    allocation_method: 'Static',
    associated_with: nullable(`${rng.pick(['nic', 'lb', 'gateway'])}-${rng.hex(4)}`),
    idle_timeout_minutes: rng.pick([4, 10, 30]),
  }),
  breaks: [
    (rng, ip) => void (ip.associated_with = null),
    (rng, ip) => {
      ip.sku = 'Basic';
      ip.allocation_method = 'Dynamic';
    },
  ],
  tweaks: [(rng, ip) => void (ip.idle_timeout_minutes = nextOf([4, 10, 30], ip.idle_timeout_minutes))],
});

interface VaultItem {
  name: string;
  enabled: boolean;
  expires_in_days: number | null;
}

const vaultItems = (rng: Random, stems: readonly string[]): VaultItem[] =>
  rng.sample(stems, rng.int(1, 4)).map((stem) => ({ name: stem, enabled: rng.chance(0.9), expires_in_days: rng.int(10, 365) }));

/** Makes one enabled item never expire; adds one when the vault holds none. */
function removeExpiry(rng: Random, items: VaultItem[], stem: string): void {
  const item = items.length > 0 ? rng.pick(items) : undefined;
  if (item) Object.assign(item, { enabled: true, expires_in_days: null });
  else items.push({ name: stem, enabled: true, expires_in_days: null });
}

const keyVault = defineModel({
  type: 'PROVB.KeyVault.Vault',
  nameStem: 'kv',
  compliant: (rng) => ({
    sku: rng.pick(['standard', 'premium']),
    soft_delete_enabled: true,
    soft_delete_retention_days: rng.pick([7, 30, 60, 90]),
    purge_protection: true,
    rbac_authorization: true,
    public_network_access: rng.pick(['Enabled', 'Disabled']),
    network_default_action: 'Deny',
    diagnostic_logging: true,
    keys: vaultItems(rng, ['data-key', 'backup-key', 'signing-key', 'tde-key', 'disk-key']),
    secrets: vaultItems(rng, ['db-password', 'api-token', 'storage-connection', 'smtp-password', 'tls-cert']),
  }),
  breaks: [
    (rng, kv) => void (kv.purge_protection = false),
    (rng, kv) => {
      kv.soft_delete_enabled = false;
      kv.purge_protection = false;
    },
    (rng, kv) => void (kv.rbac_authorization = false),
    (rng, kv) => {
      kv.public_network_access = 'Enabled';
      kv.network_default_action = 'Allow';
    },
    (rng, kv) => void (kv.diagnostic_logging = false),
    (rng, kv) => removeExpiry(rng, kv.keys, 'data-key'),
    (rng, kv) => removeExpiry(rng, kv.secrets, 'db-password'),
  ],
  tweaks: [(rng, kv) => void (kv.soft_delete_retention_days = nextOf([7, 30, 60, 90], kv.soft_delete_retention_days))],
});

interface FirewallRule {
  name: string;
  start_ip: string;
  end_ip: string;
}

const OFFICE_RULE: FirewallRule = { name: 'office', start_ip: '203.0.113.10', end_ip: '203.0.113.20' };

const sqlServer = defineModel({
  type: 'PROVB.Sql.Server',
  nameStem: 'sqlsrv',
  compliant: (rng) => ({
    version: '12.0',
    administrator_login: rng.pick(['sqladmin', 'dbowner', 'admin_ops']),
    directory_admin_configured: true,
    auditing: { enabled: true, retention_days: rng.pick([0, 120, 180, 365]) },
    public_network_access: rng.pick(['Enabled', 'Disabled']),
    firewall_rules: rng.chance(0.5) ? [{ ...OFFICE_RULE }] : ([] as FirewallRule[]),
    tde_protector: 'customer',
    defender_enabled: true,
    vulnerability_assessment: true,
    minimal_tls_version: '1.2',
  }),
  breaks: [
    (rng, s) => void (s.auditing.enabled = false),
    (rng, s) => void (s.auditing.retention_days = rng.pick([7, 30, 60, 90])),
    (rng, s) => {
      const everyone = rng.chance(0.5);
      addCapped(s.firewall_rules, { name: everyone ? 'allow-all' : 'allow-provider-services', start_ip: '0.0.0.0', end_ip: everyone ? '255.255.255.255' : '0.0.0.0' }, 6);
    },
    (rng, s) => void (s.directory_admin_configured = false),
    (rng, s) => void (s.tde_protector = 'service'),
    (rng, s) => void (s.defender_enabled = false),
    (rng, s) => void (s.vulnerability_assessment = false),
    (rng, s) => void (s.minimal_tls_version = rng.pick(['1.0', '1.1'])),
  ],
  tweaks: [
    (rng, s) => {
      const at = s.firewall_rules.findIndex((r) => r.name === OFFICE_RULE.name);
      if (at >= 0) s.firewall_rules.splice(at, 1);
      else s.firewall_rules.push({ ...OFFICE_RULE });
    },
  ],
});

const SQL_DB_SIZES = [32, 100, 250, 500, 1024];

const sqlDatabase = defineModel({
  type: 'PROVB.Sql.Database',
  nameStem: 'sqldb',
  compliant: (rng) => ({
    server: `sqlsrv-${rng.hex(4)}`,
    sku: rng.pick(['Basic', 'S1', 'P1', 'GP_Gen5_2', 'BC_Gen5_4']),
    max_size_gb: rng.pick(SQL_DB_SIZES),
    tde_enabled: true,
    backup_retention_days: rng.pick([7, 14, 35]),
    geo_redundant_backup: true,
    long_term_retention_weeks: rng.pick([0, 4, 52]),
  }),
  breaks: [
    (rng, db) => void (db.tde_enabled = false),
    (rng, db) => void (db.backup_retention_days = rng.int(1, 6)),
    (rng, db) => void (db.geo_redundant_backup = false),
  ],
  tweaks: [(rng, db) => void (db.max_size_gb = nextOf(SQL_DB_SIZES, db.max_size_gb))],
});

const webApp = defineModel({
  type: 'PROVB.Web.App',
  nameStem: 'app',
  compliant: (rng) => ({
    kind: rng.pick(['app', 'api', 'functionapp']),
    runtime: rng.pick(['node|20', 'python|3.12', 'dotnet|8', 'java|21']),
    https_only: true,
    min_tls_version: rng.pick(['1.2', '1.3']),
    ftps_state: rng.pick(['Disabled', 'FtpsOnly']),
    client_cert_enabled: true,
    managed_identity: true,
    auth_enabled: true,
    remote_debugging: false,
    http20_enabled: true,
    always_on: rng.chance(0.7),
  }),
  breaks: [
    (rng, app) => void (app.https_only = false),
    (rng, app) => void (app.min_tls_version = rng.pick(['1.0', '1.1'])),
    (rng, app) => void (app.ftps_state = 'AllAllowed'),
    (rng, app) => void (app.client_cert_enabled = false),
    (rng, app) => void (app.managed_identity = false),
    (rng, app) => void (app.auth_enabled = false),
    (rng, app) => void (app.remote_debugging = true),
    (rng, app) => void (app.http20_enabled = false),
  ],
  tweaks: [(rng, app) => void (app.always_on = !app.always_on)],
});

const logProfile = defineModel({
  type: 'PROVB.Monitor.LogProfile',
  nameStem: 'logprofile',
  compliant: (rng) => ({
    categories: ['Write', 'Delete', 'Action'],
    locations: ['global', ...rng.sample(PROVB_LOCATIONS, rng.int(3, 8))],
    retention_enabled: true,
    retention_days: rng.pick([0, 365, 730]),
    storage_account: `activitylogs${rng.hex(6)}`,
    storage_container_public: false,
    storage_encrypted_with_cmk: true,
  }),
  breaks: [
    (rng, p) => {
      if (p.categories.length > 0) remove(p.categories, rng.pick(p.categories));
    },
    (rng, p) => void (p.retention_days = rng.pick([30, 90, 180])),
    (rng, p) => remove(p.locations, 'global'),
    (rng, p) => void (p.storage_container_public = true),
    (rng, p) => void (p.storage_encrypted_with_cmk = false),
  ],
  tweaks: [(rng, p) => toggle(p.locations, rng.pick(PROVB_LOCATIONS))],
});

const BUILTIN_ROLES = ['Reader', 'Reader', 'Contributor', 'Owner', 'Storage Blob Data Reader', 'Key Vault Secrets User', 'Monitoring Reader'];
const PRIVILEGED_ROLES = ['Owner', 'Contributor', 'User Access Administrator'];

const roleAssignment = defineModel({
  type: 'PROVB.Authorization.RoleAssignment',
  nameStem: 'assignment',
  compliant: (rng) => {
    const custom = rng.chance(0.15);
    return {
      role_definition: custom ? rng.pick(['Deployment Operator', 'Network Reader Plus']) : rng.pick(BUILTIN_ROLES),
      role_type: custom ? 'CustomRole' : 'BuiltInRole',
      custom_role_actions: custom ? ['compute/virtualMachines/read', 'compute/virtualMachines/restart/action'] : [] as string[],
      principal_type: rng.pick(['User', 'Group', 'ServicePrincipal', 'ManagedIdentity']),
      principal_is_guest: false,
      principal_mfa_registered: true,
      scope_level: rng.pick(['subscription', 'resource_group', 'resource_group', 'resource']),
      principal_last_sign_in_days_ago: rng.int(0, 60),
    };
  },
  breaks: [
    (rng, a) => {
      a.role_type = 'CustomRole';
      a.role_definition = 'Subscription Administrator (custom)';
      a.custom_role_actions = ['*'];
      a.scope_level = 'subscription';
    },
    (rng, a) => {
      a.principal_type = 'User';
      a.principal_is_guest = true;
      a.role_type = 'BuiltInRole';
      a.custom_role_actions = [];
      a.role_definition = rng.pick(PRIVILEGED_ROLES);
    },
    (rng, a) => {
      a.principal_type = 'User';
      a.principal_mfa_registered = false;
    },
  ],
  tweaks: [(rng, a) => void (a.principal_last_sign_in_days_ago = bump(rng, a.principal_last_sign_in_days_ago, 5))],
});

export const RESOURCE_MODELS: ReadonlyMap<string, ResourceModel> = new Map(
  [
    iamUser,
    iamRole,
    iamPolicy,
    iamGroup,
    passwordPolicy,
    s3Bucket,
    distribution,
    hostedZone,
    instance,
    securityGroup,
    volume,
    snapshot,
    vpc,
    subnet,
    flowLog,
    networkAcl,
    dbInstance,
    dbSnapshot,
    kmsKey,
    trail,
    alarm,
    logGroup,
    lambdaFunction,
    topic,
    queue,
    table,
    loadBalancer,
    cluster,
    repository,
    configRecorder,
    storageAccount,
    virtualMachine,
    disk,
    networkSecurityGroup,
    virtualNetwork,
    publicIpAddress,
    keyVault,
    sqlServer,
    sqlDatabase,
    webApp,
    logProfile,
    roleAssignment,
  ].map((model) => [model.type, model]),
);
