/** A Lambda function's environment as the stack sets it, for tests that compose the AWS application (no call is made at init). */
export const TEST_AWS_ENVIRONMENT = {
  MEMORY_HUB_STAGE: 'test',
  MEMORY_HUB_TABLE_NAME: 'memory-hub-test',
  MEMORY_HUB_KEY_ARN: 'arn:aws:kms:eu-west-1:111122223333:key/test',
  MEMORY_HUB_BRANCH_KEY_TABLE_NAME: 'memory-hub-test-branch-keys',
  MEMORY_HUB_BRANCH_KEY_STORE_NAME: 'memory-hub-test',
  MEMORY_HUB_CONFIG_PARAMETER: '/memory-hub/test/config',
  AWS_REGION: 'eu-west-1',
} as const;
