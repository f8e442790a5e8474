import type { Provider } from './providers.js';

/**
 * The resource-type catalog, kept as data. Types are `<prefix>.<Service>.<Type>`: `PROVA` for provider_a and
 * provider_a_gov, `PROVB` for provider_b. Global types exist once per account rather than once per region.
 */
export interface ResourceTypeInfo {
  type: string;
  global: boolean;
  /** Suggested by the metadata endpoint (`recommended_types`); a new environment surveys every type unless told otherwise. */
  recommended: boolean;
  /** Permissions a role needs to list the type and read the configuration its rules look at. */
  surveyActions: string[];
  /** Permissions a role needs to put a drifted resource back to its baseline configuration. */
  remediateActions: string[];
}

interface EntryOptions {
  global?: boolean;
  recommended?: boolean;
}

const entry = (
  type: string,
  surveyActions: string[],
  remediateActions: string[],
  { global = false, recommended = true }: EntryOptions = {},
): ResourceTypeInfo => ({ type, global, recommended, surveyActions, remediateActions });

const GLOBAL = { global: true };

const PROVA_TYPES: readonly ResourceTypeInfo[] = [
  entry(
    'PROVA.IAM.User',
    ['iam:ListUsers', 'iam:GetUser', 'iam:ListAccessKeys', 'iam:GetAccessKeyLastUsed', 'iam:ListMFADevices', 'iam:GetLoginProfile', 'iam:ListAttachedUserPolicies', 'iam:ListGroupsForUser'],
    ['iam:UpdateAccessKey', 'iam:DeleteLoginProfile', 'iam:DetachUserPolicy', 'iam:AttachUserPolicy', 'iam:AddUserToGroup', 'iam:RemoveUserFromGroup'],
    GLOBAL,
  ),
  entry(
    'PROVA.IAM.Role',
    ['iam:ListRoles', 'iam:GetRole', 'iam:ListAttachedRolePolicies'],
    ['iam:UpdateAssumeRolePolicy', 'iam:UpdateRole', 'iam:DetachRolePolicy', 'iam:AttachRolePolicy'],
    GLOBAL,
  ),
  entry(
    'PROVA.IAM.Policy',
    ['iam:ListPolicies', 'iam:GetPolicy', 'iam:GetPolicyVersion'],
    ['iam:CreatePolicyVersion', 'iam:SetDefaultPolicyVersion', 'iam:DeletePolicyVersion'],
    GLOBAL,
  ),
  entry(
    'PROVA.IAM.Group',
    ['iam:ListGroups', 'iam:GetGroup', 'iam:ListAttachedGroupPolicies', 'iam:ListGroupPolicies'],
    ['iam:AttachGroupPolicy', 'iam:DetachGroupPolicy', 'iam:DeleteGroupPolicy'],
    GLOBAL,
  ),
  entry(
    'PROVA.IAM.AccountPasswordPolicy',
    ['iam:GetAccountPasswordPolicy', 'iam:GetAccountSummary', 'iam:GenerateCredentialReport', 'iam:GetCredentialReport'],
    ['iam:UpdateAccountPasswordPolicy'],
    GLOBAL,
  ),
  entry(
    'PROVA.S3.Bucket',
    [
      's3:ListAllMyBuckets',
      's3:GetBucketLocation',
      's3:GetBucketEncryption',
      's3:GetBucketVersioning',
      's3:GetBucketPublicAccessBlock',
      's3:GetBucketPolicy',
      's3:GetBucketPolicyStatus',
      's3:GetBucketAcl',
      's3:GetBucketLogging',
      's3:GetLifecycleConfiguration',
    ],
    ['s3:PutBucketEncryption', 's3:PutBucketVersioning', 's3:PutBucketPublicAccessBlock', 's3:PutBucketPolicy', 's3:PutBucketAcl', 's3:PutBucketLogging', 's3:PutLifecycleConfiguration'],
    GLOBAL,
  ),
  entry(
    'PROVA.CloudFront.Distribution',
    ['cloudfront:ListDistributions', 'cloudfront:GetDistributionConfig'],
    ['cloudfront:UpdateDistribution'],
    GLOBAL,
  ),
  entry(
    'PROVA.Route53.HostedZone',
    ['route53:ListHostedZones', 'route53:GetHostedZone', 'route53:ListQueryLoggingConfigs', 'route53:GetDNSSEC'],
    ['route53:CreateQueryLoggingConfig', 'route53:EnableHostedZoneDNSSEC'],
    { global: true, recommended: false },
  ),
  entry(
    'PROVA.EC2.Instance',
    ['ec2:DescribeInstances', 'ec2:DescribeIamInstanceProfileAssociations', 'ssm:DescribeInstanceInformation', 'ssm:DescribeInstancePatchStates'],
    ['ec2:ModifyInstanceMetadataOptions', 'ec2:MonitorInstances', 'ec2:AssociateIamInstanceProfile', 'ec2:DisassociateAddress'],
  ),
  entry(
    'PROVA.EC2.SecurityGroup',
    ['ec2:DescribeSecurityGroups', 'ec2:DescribeSecurityGroupRules', 'ec2:DescribeNetworkInterfaces'],
    ['ec2:RevokeSecurityGroupIngress', 'ec2:RevokeSecurityGroupEgress', 'ec2:AuthorizeSecurityGroupIngress', 'ec2:AuthorizeSecurityGroupEgress'],
  ),
  entry('PROVA.EC2.Volume', ['ec2:DescribeVolumes', 'backup:ListProtectedResources'], ['ec2:AttachVolume', 'ec2:DetachVolume', 'ec2:ModifyVolume']),
  entry(
    'PROVA.EC2.Snapshot',
    ['ec2:DescribeSnapshots', 'ec2:DescribeSnapshotAttribute'],
    ['ec2:ModifySnapshotAttribute', 'ec2:ResetSnapshotAttribute'],
    { recommended: false },
  ),
  entry(
    'PROVA.EC2.VPC',
    ['ec2:DescribeVpcs', 'ec2:DescribeFlowLogs', 'ec2:DescribeNetworkInterfaces', 'ec2:DescribeInternetGateways'],
    ['ec2:CreateFlowLogs', 'ec2:ModifyVpcAttribute'],
  ),
  entry('PROVA.EC2.Subnet', ['ec2:DescribeSubnets', 'ec2:DescribeRouteTables'], ['ec2:ModifySubnetAttribute'], { recommended: false }),
  entry('PROVA.EC2.FlowLog', ['ec2:DescribeFlowLogs'], ['ec2:CreateFlowLogs', 'ec2:DeleteFlowLogs']),
  entry(
    'PROVA.EC2.NetworkAcl',
    ['ec2:DescribeNetworkAcls'],
    ['ec2:CreateNetworkAclEntry', 'ec2:DeleteNetworkAclEntry', 'ec2:ReplaceNetworkAclEntry', 'ec2:ReplaceNetworkAclAssociation'],
  ),
  entry(
    'PROVA.RDS.DBInstance',
    ['rds:DescribeDBInstances', 'rds:ListTagsForResource'],
    ['rds:ModifyDBInstance'],
  ),
  entry(
    'PROVA.RDS.DBSnapshot',
    ['rds:DescribeDBSnapshots', 'rds:DescribeDBSnapshotAttributes'],
    ['rds:ModifyDBSnapshotAttribute'],
    { recommended: false },
  ),
  entry(
    'PROVA.KMS.Key',
    ['kms:ListKeys', 'kms:DescribeKey', 'kms:GetKeyRotationStatus', 'kms:GetKeyPolicy'],
    ['kms:EnableKeyRotation', 'kms:PutKeyPolicy', 'kms:CancelKeyDeletion', 'kms:EnableKey', 'kms:DisableKey'],
  ),
  entry(
    'PROVA.CloudTrail.Trail',
    ['cloudtrail:DescribeTrails', 'cloudtrail:GetTrailStatus', 'cloudtrail:GetEventSelectors', 'cloudtrail:GetInsightSelectors', 's3:GetBucketLogging', 's3:GetBucketPolicyStatus'],
    ['cloudtrail:UpdateTrail', 'cloudtrail:StartLogging', 'cloudtrail:PutEventSelectors', 'cloudtrail:PutInsightSelectors'],
  ),
  entry('PROVA.CloudWatch.Alarm', ['cloudwatch:DescribeAlarms'], ['cloudwatch:PutMetricAlarm', 'cloudwatch:EnableAlarmActions']),
  entry('PROVA.Logs.LogGroup', ['logs:DescribeLogGroups'], ['logs:PutRetentionPolicy', 'logs:AssociateKmsKey']),
  entry(
    'PROVA.Lambda.Function',
    ['lambda:ListFunctions', 'lambda:GetFunctionConfiguration', 'lambda:GetPolicy', 'lambda:GetFunctionUrlConfig'],
    ['lambda:UpdateFunctionConfiguration', 'lambda:RemovePermission', 'lambda:UpdateFunctionUrlConfig'],
  ),
  entry(
    'PROVA.SNS.Topic',
    ['sns:ListTopics', 'sns:GetTopicAttributes'],
    ['sns:SetTopicAttributes'],
  ),
  entry('PROVA.SQS.Queue', ['sqs:ListQueues', 'sqs:GetQueueAttributes'], ['sqs:SetQueueAttributes']),
  entry(
    'PROVA.DynamoDB.Table',
    ['dynamodb:ListTables', 'dynamodb:DescribeTable', 'dynamodb:DescribeContinuousBackups', 'application-autoscaling:DescribeScalableTargets', 'backup:ListProtectedResources'],
    ['dynamodb:UpdateTable', 'dynamodb:UpdateContinuousBackups', 'application-autoscaling:RegisterScalableTarget'],
  ),
  entry(
    'PROVA.ELB.LoadBalancer',
    ['elasticloadbalancing:DescribeLoadBalancers', 'elasticloadbalancing:DescribeLoadBalancerAttributes', 'elasticloadbalancing:DescribeListeners'],
    ['elasticloadbalancing:ModifyLoadBalancerAttributes', 'elasticloadbalancing:ModifyListener'],
  ),
  entry('PROVA.EKS.Cluster', ['eks:ListClusters', 'eks:DescribeCluster'], ['eks:UpdateClusterConfig']),
  entry(
    'PROVA.ECR.Repository',
    ['ecr:DescribeRepositories', 'ecr:GetLifecyclePolicy', 'ecr:GetRepositoryPolicy'],
    ['ecr:PutImageScanningConfiguration', 'ecr:PutImageTagMutability', 'ecr:PutLifecyclePolicy', 'ecr:SetRepositoryPolicy'],
    { recommended: false },
  ),
  entry(
    'PROVA.Config.ConfigurationRecorder',
    ['config:DescribeConfigurationRecorders', 'config:DescribeConfigurationRecorderStatus', 'config:DescribeDeliveryChannels'],
    ['config:PutConfigurationRecorder', 'config:StartConfigurationRecorder', 'config:PutDeliveryChannel', 'iam:PassRole'],
  ),
];

const PROVB_TYPES: readonly ResourceTypeInfo[] = [
  entry(
    'PROVB.Storage.Account',
    ['storage/accounts/read', 'storage/accounts/blobServices/read', 'storage/accounts/encryptionScopes/read'],
    ['storage/accounts/write', 'storage/accounts/blobServices/write'],
  ),
  entry(
    'PROVB.Compute.VirtualMachine',
    ['compute/virtualMachines/read', 'compute/virtualMachines/extensions/read', 'compute/virtualMachines/instanceView/read'],
    ['compute/virtualMachines/write', 'compute/virtualMachines/extensions/write'],
  ),
  entry('PROVB.Compute.Disk', ['compute/disks/read'], ['compute/disks/write']),
  entry(
    'PROVB.Network.SecurityGroup',
    ['network/networkSecurityGroups/read', 'network/networkSecurityGroups/securityRules/read', 'network/networkWatchers/flowLogs/read'],
    ['network/networkSecurityGroups/securityRules/write', 'network/networkSecurityGroups/securityRules/delete', 'network/networkWatchers/flowLogs/write'],
  ),
  entry(
    'PROVB.Network.VirtualNetwork',
    ['network/virtualNetworks/read', 'network/virtualNetworks/subnets/read'],
    ['network/virtualNetworks/write', 'network/virtualNetworks/subnets/write', 'network/networkSecurityGroups/join/action'],
  ),
  entry('PROVB.Network.PublicIP', ['network/publicIPAddresses/read'], ['network/publicIPAddresses/write'], { recommended: false }),
  entry(
    'PROVB.KeyVault.Vault',
    ['keyVault/vaults/read', 'keyVault/vaults/keys/read', 'keyVault/vaults/secrets/readMetadata/action', 'insights/diagnosticSettings/read'],
    ['keyVault/vaults/write', 'keyVault/vaults/keys/write', 'insights/diagnosticSettings/write'],
  ),
  entry(
    'PROVB.Sql.Server',
    ['sql/servers/read', 'sql/servers/auditingSettings/read', 'sql/servers/firewallRules/read', 'sql/servers/encryptionProtector/read', 'sql/servers/administrators/read', 'sql/servers/vulnerabilityAssessments/read', 'sql/servers/securityAlertPolicies/read'],
    ['sql/servers/write', 'sql/servers/auditingSettings/write', 'sql/servers/firewallRules/write', 'sql/servers/firewallRules/delete', 'sql/servers/encryptionProtector/write', 'sql/servers/administrators/write', 'sql/servers/vulnerabilityAssessments/write', 'sql/servers/securityAlertPolicies/write'],
  ),
  entry(
    'PROVB.Sql.Database',
    ['sql/servers/databases/read', 'sql/servers/databases/transparentDataEncryption/read', 'sql/servers/databases/backupShortTermRetentionPolicies/read'],
    ['sql/servers/databases/write', 'sql/servers/databases/transparentDataEncryption/write', 'sql/servers/databases/backupShortTermRetentionPolicies/write'],
  ),
  entry(
    'PROVB.Web.App',
    ['web/sites/read', 'web/sites/config/read', 'web/sites/config/authsettingsV2/read'],
    ['web/sites/write', 'web/sites/config/write'],
  ),
  entry('PROVB.Monitor.LogProfile', ['insights/logProfiles/read', 'storage/accounts/read'], ['insights/logProfiles/write'], GLOBAL),
  entry(
    'PROVB.Authorization.RoleAssignment',
    ['authorization/roleAssignments/read', 'authorization/roleDefinitions/read'],
    ['authorization/roleAssignments/write', 'authorization/roleAssignments/delete'],
    GLOBAL,
  ),
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
