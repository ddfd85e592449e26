import { describe, expect, it } from 'vitest';
import {
  AWS_ASSUMPTIONS,
  type DeployedConsumers,
  DYNAMODB_ON_DEMAND_USD_PER_MILLION_WRITE_UNITS,
  EVENTBRIDGE_ARCHIVE_USD_PER_GB,
  EVENTBRIDGE_USD_PER_MILLION_EVENTS,
  KMS_USD_PER_MILLION_REQUESTS,
  LAMBDA_ARM_USD_PER_MILLION_REQUESTS,
  type MeasuredOperationCost,
  modelCorrectedCost,
  sampledShare,
} from '../../../bench/cost-model.ts';
import { emptyEngineWork } from '../../../lambdas/local/request-cost-meter.ts';

const CONSUMERS: DeployedConsumers = {
  consumers: [{ name: 'search-index' }, { name: 'audit-trail' }],
  journalKinds: ['session-events'],
};

/** A write that commits one event of `kind`, with nothing else going on. */
const write = (kind: string, change: (measured: MeasuredOperationCost) => void = () => undefined) => {
  const measured: MeasuredOperationCost = {
    operationId: 'createThing',
    requests: 1000,
    storageRequestsPerOperation: 2,
    readUnitsPerOperation: 0,
    writeUnitsPerOperation: 4,
    keyOperationsPerOperation: 0,
    handlerP50Milliseconds: 2,
    corrected: {
      engine: { ...emptyEngineWork(), writeUnits: 4 },
      cpuMilliseconds: 1,
      storageRoundTrips: 2,
      metricLines: 0,
      branchKeysUsed: 0,
      eventsByKind: { [kind]: 1 },
      eventBytesPerEvent: 400,
      causedEngine: emptyEngineWork(),
      causedCpuMillisecondsPerEvent: 0.5,
      causedStorageRoundTripsPerEvent: 1,
      causedMetricLinesPerEvent: 1,
    },
  };
  change(measured);
  return measured;
};

const RATES = { operationPerSecond: 30, eventsPerSecond: 60 };

describe('Module: cost-model', () => {
  describe('Method: modelCorrectedCost', () => {
    it('prices an event as a PutEvents entry, a share of a relay invocation and one invocation per consumer', () => {
      // Act
      const cost = modelCorrectedCost(write('note'), RATES, CONSUMERS);

      // Assess: 60 events/s on one shard polled 4 times a second is 15 events per relay invocation
      expect(cost.facts.events).toBe(1);
      expect(cost.facts.relayInvocations).toBeCloseTo(1 / 15);
      expect(cost.facts.consumerInvocations).toBe(2);
      // PutEvents per event, and the archive per GB: 400 bytes a million times is 0.37 GB
      expect(cost.eventBridge).toBeCloseTo(
        EVENTBRIDGE_USD_PER_MILLION_EVENTS + ((400 * 1_000_000) / 1024 ** 3) * EVENTBRIDGE_ARCHIVE_USD_PER_GB,
      );
      expect(cost.eventFunctions).toBeGreaterThan((2 + 1 / 15) * LAMBDA_ARM_USD_PER_MILLION_REQUESTS);
      // The relay reads the marker, and the head (its memo knows only the heads it moved, not the writer's)
      expect(cost.facts.readUnits).toBe(AWS_ASSUMPTIONS.headProjectionReadUnits + AWS_ASSUMPTIONS.relayMarkerReadUnits);
    });

    it('has the relay read the head of every event of a kind with heads, with no consumer invoked for it', () => {
      // Act
      const cost = modelCorrectedCost(write('note'), RATES, { ...CONSUMERS, consumers: [] });

      // Assess
      expect(cost.facts.consumerInvocations).toBe(0);
      expect(cost.facts.readUnits).toBe(AWS_ASSUMPTIONS.headProjectionReadUnits + AWS_ASSUMPTIONS.relayMarkerReadUnits);
    });

    it("invokes only the consumers whose rule takes the event's kind, and reads no head for a journal kind", () => {
      // Prepare
      const filtered: DeployedConsumers = {
        ...CONSUMERS,
        consumers: [
          { name: 'search-index', recordKinds: ['note'] },
          { name: 'audit-trail', recordKinds: ['note'] },
        ],
      };

      // Act
      const unfiltered = modelCorrectedCost(write('session-events'), RATES, CONSUMERS);
      const withRules = modelCorrectedCost(write('session-events'), RATES, filtered);

      // Assess
      expect(unfiltered.facts.consumerInvocations).toBe(2);
      // The relay reads the event's marker whatever the kind, and no head for a journal kind
      expect(unfiltered.facts.readUnits).toBe(AWS_ASSUMPTIONS.relayMarkerReadUnits);
      expect(withRules.facts.consumerInvocations).toBe(0);
      expect(withRules.eventFunctions).toBeLessThan(unfiltered.eventFunctions);
    });

    it('prices the index writes the engine does not report at the write unit price', () => {
      // Act
      const without = modelCorrectedCost(write('note'), RATES, CONSUMERS);
      const withIndex = modelCorrectedCost(
        write('note', (measured) => {
          measured.corrected.engine.indexWriteUnits = 1;
          measured.corrected.causedEngine.indexWriteUnits = 1;
        }),
        RATES,
        CONSUMERS,
      );

      // Assess
      expect(withIndex.dynamoDb - without.dynamoDb).toBeCloseTo(2 * DYNAMODB_ON_DEMAND_USD_PER_MILLION_WRITE_UNITS);
      expect(withIndex.facts.indexWriteUnits).toBe(2);
    });

    it('prices a data key per record written, and a branch key once per scope per cache period', () => {
      // Act
      const perRecord = modelCorrectedCost(
        write('note', (measured) => {
          measured.corrected.engine.keys.recordKeysGenerated = 1;
        }),
        RATES,
        CONSUMERS,
      );
      const branchKeys = modelCorrectedCost(
        write('note', (measured) => {
          measured.corrected.engine.keys.branchKeyUses = 1;
          measured.corrected.branchKeysUsed = 250;
        }),
        RATES,
        CONSUMERS,
      );

      // Assess: 250 scopes over 30 requests/s × 300 s
      expect(perRecord.kms).toBeCloseTo(KMS_USD_PER_MILLION_REQUESTS);
      const misses = 250 / (30 * AWS_ASSUMPTIONS.branchKeyCacheSeconds);
      expect(branchKeys.facts.kmsCalls).toBeCloseTo(misses);
      expect(branchKeys.kms).toBeCloseTo(misses * KMS_USD_PER_MILLION_REQUESTS);
    });

    it('models the duration from CPU stretched to the function share of a vCPU and the round trips in sequence', () => {
      // Act
      const cost = modelCorrectedCost(write('note'), RATES, CONSUMERS);

      // Assess
      const expected = 1 * AWS_ASSUMPTIONS.cpuStretch + 2 * AWS_ASSUMPTIONS.dynamoDbRoundTripMs;
      expect(cost.facts.billedMilliseconds).toBe(Math.ceil(expected));
      expect(cost.total).toBeCloseTo(
        cost.apiGateway +
          cost.lambda +
          cost.dynamoDb +
          cost.kms +
          cost.eventBridge +
          cost.eventFunctions +
          cost.logs +
          cost.xray,
      );
    });
  });

  describe('Assumption: tracing', () => {
    it("records the request function's sampled share only when it traces actively; the relay's traces either way", () => {
      // Act
      const passThrough = modelCorrectedCost(write('note'), RATES, CONSUMERS, {
        ...AWS_ASSUMPTIONS,
        requestTracing: false,
        backgroundTracing: true,
      });
      const active = modelCorrectedCost(write('note'), RATES, CONSUMERS, {
        ...AWS_ASSUMPTIONS,
        requestTracing: true,
        backgroundTracing: true,
      });
      const none = modelCorrectedCost(write('note'), RATES, CONSUMERS, {
        ...AWS_ASSUMPTIONS,
        requestTracing: false,
        backgroundTracing: false,
      });

      // Assess: the relay runs 4 times a second (one shard), 1/15 of an invocation per event
      const relayTraces = (1 / 15) * sampledShare(4);
      expect(passThrough.facts.traces).toBeCloseTo(relayTraces);
      expect(active.facts.traces).toBeCloseTo(sampledShare(30) + relayTraces);
      expect(none.facts.traces).toBe(0);
      expect(none.xray).toBe(0);
    });

    it('deploys the request functions pass-through and the background ones active, as the stack does', () => {
      // Assess
      expect({ request: AWS_ASSUMPTIONS.requestTracing, background: AWS_ASSUMPTIONS.backgroundTracing }).toEqual({
        request: false,
        background: true,
      });
    });
  });

  describe('Method: sampledShare', () => {
    it('records every request up to one a second, then the first each second and 5% of the rest', () => {
      // Assess
      expect(sampledShare(0.5)).toBe(1);
      expect(sampledShare(21)).toBeCloseTo(2 / 21);
    });
  });
});
