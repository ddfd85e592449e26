/**
 * The AWS cost of one operation, modelled from what the local run measured (DynamoDB requests and capacity
 * units via ReturnConsumedCapacity, key operations, handler time) and published unit prices.
 *
 * Prices: us-east-1 list prices (on-demand / pay-per-request) as published on the AWS pricing pages linked
 * below in 2025 — DynamoDB's are those in force since its 2024-11-01 on-demand price cut. Free tiers and
 * volume tiers are ignored. Re-check the pages before quoting a figure.
 */
import type { OperationCost } from '../lambdas/local/request-cost-meter.ts';
import { percentile } from './stats.ts';

/** https://aws.amazon.com/api-gateway/pricing/ — HTTP APIs, first 300 million requests per month. */
export const API_GATEWAY_HTTP_USD_PER_MILLION_REQUESTS = 1.0;
/** https://aws.amazon.com/lambda/pricing/ — Arm (Graviton2), per million requests. */
export const LAMBDA_ARM_USD_PER_MILLION_REQUESTS = 0.2;
/** https://aws.amazon.com/lambda/pricing/ — Arm, per GB-second, first 7.5 billion GB-s per month. */
export const LAMBDA_ARM_USD_PER_GB_SECOND = 0.000_013_333_4;
/** The memory size the functions are deployed with (lib/). */
export const LAMBDA_MEMORY_GB = 512 / 1024;
/** Lambda bills duration in 1 ms increments. */
export const LAMBDA_BILLING_INCREMENT_MS = 1;
/** https://aws.amazon.com/dynamodb/pricing/on-demand/ — per million write request units (since 2024-11-01). */
export const DYNAMODB_ON_DEMAND_USD_PER_MILLION_WRITE_UNITS = 0.625;
/** https://aws.amazon.com/dynamodb/pricing/on-demand/ — per million read request units (since 2024-11-01). */
export const DYNAMODB_ON_DEMAND_USD_PER_MILLION_READ_UNITS = 0.125;
/** https://aws.amazon.com/kms/pricing/ — $0.03 per 10,000 symmetric requests (GenerateDataKey, Decrypt). */
export const KMS_USD_PER_MILLION_REQUESTS = 0.03 * 100;

/** What one operation costs on average, as measured locally. */
export interface MeasuredOperationCost {
  operationId: string;
  requests: number;
  storageRequestsPerOperation: number;
  readUnitsPerOperation: number;
  writeUnitsPerOperation: number;
  keyOperationsPerOperation: number;
  /** Server-side handler time, median, ms (local proxy for the Lambda duration). */
  handlerP50Milliseconds: number;
}

/** Dollars per million operations, by service. */
export interface ModelledCost {
  apiGateway: number;
  lambdaRequests: number;
  lambdaDuration: number;
  dynamoDb: number;
  kms: number;
  total: number;
  billedMilliseconds: number;
}

/** Folds cost reports (one per server run) into per-operation averages; handler times may be trimmed. */
export const measuredCosts = (
  reports: readonly Record<string, OperationCost>[],
  operations: readonly string[],
  handlerSamples: (operationId: string) => number[],
): MeasuredOperationCost[] =>
  operations.map((operationId) => {
    const parts = reports.map((report) => report[operationId]).filter((part) => part !== undefined);
    const total = (pick: (cost: OperationCost) => number) => parts.reduce((sum, part) => sum + pick(part), 0);
    const requests = total((cost) => cost.requests);
    const per = (value: number) => (requests === 0 ? Number.NaN : value / requests);
    return {
      operationId,
      requests,
      storageRequestsPerOperation: per(total((cost) => cost.storageRequests)),
      readUnitsPerOperation: per(total((cost) => cost.readCapacityUnits)),
      writeUnitsPerOperation: per(total((cost) => cost.writeCapacityUnits)),
      keyOperationsPerOperation: per(total((cost) => cost.keyOperations)),
      handlerP50Milliseconds: percentile(handlerSamples(operationId), 50),
    };
  });

export const modelCostPerMillion = (measured: MeasuredOperationCost): ModelledCost => {
  const billedMilliseconds =
    Math.ceil(measured.handlerP50Milliseconds / LAMBDA_BILLING_INCREMENT_MS) * LAMBDA_BILLING_INCREMENT_MS;
  const apiGateway = API_GATEWAY_HTTP_USD_PER_MILLION_REQUESTS;
  const lambdaRequests = LAMBDA_ARM_USD_PER_MILLION_REQUESTS;
  const lambdaDuration = 1_000_000 * LAMBDA_MEMORY_GB * (billedMilliseconds / 1000) * LAMBDA_ARM_USD_PER_GB_SECOND;
  const dynamoDb =
    measured.writeUnitsPerOperation * DYNAMODB_ON_DEMAND_USD_PER_MILLION_WRITE_UNITS +
    measured.readUnitsPerOperation * DYNAMODB_ON_DEMAND_USD_PER_MILLION_READ_UNITS;
  const kms = measured.keyOperationsPerOperation * KMS_USD_PER_MILLION_REQUESTS;
  return {
    apiGateway,
    lambdaRequests,
    lambdaDuration,
    dynamoDb,
    kms,
    total: apiGateway + lambdaRequests + lambdaDuration + dynamoDb + kms,
    billedMilliseconds,
  };
};

/** The price list as Markdown, for the report. */
export const PRICE_NOTES = [
  `API Gateway HTTP API: $${API_GATEWAY_HTTP_USD_PER_MILLION_REQUESTS.toFixed(2)} per million requests (first 300 M/month).`,
  `Lambda arm64: $${LAMBDA_ARM_USD_PER_MILLION_REQUESTS.toFixed(2)} per million requests + $${LAMBDA_ARM_USD_PER_GB_SECOND} per GB-s; ` +
    `${LAMBDA_MEMORY_GB * 1024} MB functions; billed duration = the local handler p50 rounded up to ${LAMBDA_BILLING_INCREMENT_MS} ms.`,
  `DynamoDB on-demand: $${DYNAMODB_ON_DEMAND_USD_PER_MILLION_WRITE_UNITS} per million write request units, ` +
    `$${DYNAMODB_ON_DEMAND_USD_PER_MILLION_READ_UNITS} per million read request units (prices since 2024-11-01).`,
  `KMS: $0.03 per 10,000 requests ($${KMS_USD_PER_MILLION_REQUESTS.toFixed(2)} per million).`,
  'All us-east-1 list prices, free tiers ignored; storage, data transfer and CloudWatch Logs/metrics are not included.',
];
