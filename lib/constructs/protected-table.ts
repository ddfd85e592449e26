import { RemovalPolicy } from 'aws-cdk-lib';
import { BillingMode, TableEncryption, type TableProps } from 'aws-cdk-lib/aws-dynamodb';
import type { IKey } from 'aws-cdk-lib/aws-kms';

/**
 * The settings every table of the stack has, applied after its overrides so none can loosen them: on-demand (load
 * follows agents, no capacity to tune), encrypted with the customer-managed key, point-in-time recovery and
 * deletion protection on, retained when the stack is deleted.
 *
 * For `Table` rather than `TableV2`: a TableV2 encrypted with a customer-managed key needs a concrete region at
 * synthesis, and the app must also synthesize environment-agnostic.
 */
export function protectedTableProps(encryptionKey: IKey) {
  return {
    billingMode: BillingMode.PAY_PER_REQUEST,
    encryption: TableEncryption.CUSTOMER_MANAGED,
    encryptionKey,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    deletionProtection: true,
    removalPolicy: RemovalPolicy.RETAIN,
  } satisfies Partial<TableProps>;
}
