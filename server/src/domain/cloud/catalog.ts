import type { Provider } from './providers.js';

/**
 * The resource-type catalog, kept as data. Types are `<prefix>.<Service>.<Type>`: `PROVA` for provider_a and
 * provider_a_gov, `PROVB` for provider_b. Global types exist once per account rather than once per region.
 */
export interface ResourceTypeInfo {
  type: string;
  global: boolean;
  /** Surveyed by default and suggested by the metadata endpoint. */
  recommended: boolean;
}

const entry = (type: string, global = false, recommended = true): ResourceTypeInfo => ({ type, global, recommended });

const PROVA_TYPES: readonly ResourceTypeInfo[] = [
  entry('PROVA.IAM.User', true),
  entry('PROVA.IAM.Role', true),
  entry('PROVA.IAM.Policy', true),
  entry('PROVA.IAM.Group', true),
  entry('PROVA.IAM.AccountPasswordPolicy', true),
  entry('PROVA.S3.Bucket', true),
  entry('PROVA.CloudFront.Distribution', true),
  entry('PROVA.Route53.HostedZone', true, false),
  entry('PROVA.EC2.Instance'),
  entry('PROVA.EC2.SecurityGroup'),
  entry('PROVA.EC2.Volume'),
  entry('PROVA.EC2.Snapshot', false, false),
  entry('PROVA.EC2.VPC'),
  entry('PROVA.EC2.Subnet', false, false),
  entry('PROVA.EC2.FlowLog'),
  entry('PROVA.EC2.NetworkAcl'),
  entry('PROVA.RDS.DBInstance'),
  entry('PROVA.RDS.DBSnapshot', false, false),
  entry('PROVA.KMS.Key'),
  entry('PROVA.CloudTrail.Trail'),
  entry('PROVA.CloudWatch.Alarm'),
  entry('PROVA.Logs.LogGroup'),
  entry('PROVA.Lambda.Function'),
  entry('PROVA.SNS.Topic'),
  entry('PROVA.SQS.Queue'),
  entry('PROVA.DynamoDB.Table'),
  entry('PROVA.ELB.LoadBalancer'),
  entry('PROVA.EKS.Cluster'),
  entry('PROVA.ECR.Repository', false, false),
  entry('PROVA.Config.ConfigurationRecorder'),
];

const PROVB_TYPES: readonly ResourceTypeInfo[] = [
  entry('PROVB.Storage.Account'),
  entry('PROVB.Compute.VirtualMachine'),
  entry('PROVB.Compute.Disk'),
  entry('PROVB.Network.SecurityGroup'),
  entry('PROVB.Network.VirtualNetwork'),
  entry('PROVB.Network.PublicIP', false, false),
  entry('PROVB.KeyVault.Vault'),
  entry('PROVB.Sql.Server'),
  entry('PROVB.Sql.Database'),
  entry('PROVB.Web.App'),
  entry('PROVB.Monitor.LogProfile', true),
  entry('PROVB.Authorization.RoleAssignment', true),
];

export function resourceTypesOf(provider: Provider): readonly ResourceTypeInfo[] {
  return provider === 'provider_b' ? PROVB_TYPES : PROVA_TYPES;
}

const byProvider = new Map<Provider, ReadonlySet<string>>(
  (['provider_a', 'provider_a_gov', 'provider_b'] as const).map((p) => [p, new Set(resourceTypesOf(p).map((t) => t.type))]),
);

export function isSupportedType(provider: Provider, type: string): boolean {
  return byProvider.get(provider)!.has(type);
}
