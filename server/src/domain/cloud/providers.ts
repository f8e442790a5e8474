/** The cloud providers, their regions and the compliance families each offers (seed 000 §2.5, §2.6). */
export const PROVIDERS = ['provider_a', 'provider_a_gov', 'provider_b'] as const;
export type Provider = (typeof PROVIDERS)[number];

/** provider_a and provider_a_gov are one provider in two partitions: same resource types, disjoint regions. */
export const usesRoles = (provider: Provider): provider is 'provider_a' | 'provider_a_gov' => provider !== 'provider_b';

export const STANDARD_REGIONS = [
  'us-east-1',
  'us-east-2',
  'us-west-1',
  'us-west-2',
  'ap-south-1',
  'ap-northeast-2',
  'ap-southeast-1',
  'ap-southeast-2',
  'ap-northeast-1',
  'ca-central-1',
  'eu-central-1',
  'eu-west-1',
  'eu-west-2',
  'eu-west-3',
  'sa-east-1',
] as const;

export const GOV_REGIONS = ['us-gov-east-1', 'us-gov-west-1'] as const;

/** `*` in a region or resource-group list stands for all of them, including ones added later. */
export const ALL = '*';

export function regionsOf(provider: 'provider_a' | 'provider_a_gov'): readonly string[] {
  return provider === 'provider_a' ? STANDARD_REGIONS : GOV_REGIONS;
}

/** The partition a role ARN must name for each role-based provider. */
export const ARN_PARTITION = { provider_a: 'prova', provider_a_gov: 'prova-us-gov' } as const;

const PROVIDER_A_FAMILIES = ['CIS', 'CISCONTROLS', 'CSACCM', 'FBP', 'GDPR', 'HIPAA', 'ISO27001', 'NIST', 'PCI', 'SOC2'];
const PROVIDER_B_FAMILIES = [
  'CSACCM',
  ...['CIS', 'CISCONTROLS', 'GDPR', 'HIPAA', 'ISO27001', 'NIST', 'PCI', 'SOC2'].map((f) => `${f}PROVB`),
];

export function familiesOf(provider: Provider): readonly string[] {
  return provider === 'provider_b' ? PROVIDER_B_FAMILIES : PROVIDER_A_FAMILIES;
}

/** Parses `arn:<partition>:iam::<12 digits>:role/<name>`; the account number keys the simulated inventory. */
export function parseRoleArn(arn: string): { partition: string; account: string; role: string } | undefined {
  const match = /^arn:([a-z-]+):iam::([0-9]{12}):role\/(.+)$/.exec(arn);
  if (!match) return undefined;
  return { partition: match[1]!, account: match[2]!, role: match[3]! };
}
