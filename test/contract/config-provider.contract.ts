import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InMemoryMetrics } from '../../lambdas/adapters/observability/in-memory-metrics.ts';
import { jsonLinesLog } from '../../lambdas/adapters/observability/json-lines-log.ts';
import { DEFAULT_CONFIG, type MemoryHubConfig, settingsForAgent } from '../../lambdas/app/service-tables.ts';
import type { ConfigProvider } from '../../lambdas/kernel/config/config-provider.port.ts';
import type { Log } from '../../lambdas/kernel/observability/log.port.ts';
import type { Metrics } from '../../lambdas/kernel/observability/metrics.port.ts';
import { type Clock, ManualClock } from '../../lambdas/kernel/time/clock.ts';

export interface ConfigSourceFixture {
  /** How the provider names the source in errors and warnings. */
  readonly source: string;
  /** The provider's time-to-live, as the fixture configured it. */
  readonly ttlMs: number;
  /** Puts a new document in the source, as an operator would. */
  publish(text: string): Promise<void>;
  /** Makes the source unreadable (the file removed, the parameter store failing). */
  breakSource(): Promise<void>;
  /** A provider over the source as it is now, as the first request finds it: its first value read. */
  load(dependencies: { clock: Clock; metrics: Metrics; log: Log }): Promise<ConfigProvider<MemoryHubConfig>>;
  /** Refreshes and waits for the look to land; `refresh()` itself unless the provider looks in the background. */
  refreshed?(provider: ConfigProvider<MemoryHubConfig>): Promise<void>;
  close(): Promise<void>;
}

const document = (value: unknown) => JSON.stringify(value);

/**
 * What every reloading ConfigProvider must do once its first value is read: answer the defaults for what the
 * document leaves out, pick up valid changes once its TTL has passed, keep the last good value when a change is
 * invalid or unreadable, and report that once without quoting values. Runs against the file and the SSM
 * adapters; what each does with an invalid or unreadable first value (the file refuses to start, SSM goes on
 * with the deployed defaults) is tested beside it.
 */
export const describeConfigProviderContract = (name: string, create: () => Promise<ConfigSourceFixture>) => {
  describe(`Contract: ConfigProvider (${name})`, () => {
    let fixture: ConfigSourceFixture;
    let clock: ManualClock;
    let metrics: InMemoryMetrics;
    let warnings: string[];
    const load = () => fixture.load({ clock, metrics, log: jsonLinesLog((line) => warnings.push(line)) });
    const refresh = (provider: ConfigProvider<MemoryHubConfig>) =>
      fixture.refreshed ? fixture.refreshed(provider) : provider.refresh();

    beforeEach(async () => {
      fixture = await create();
      clock = new ManualClock();
      metrics = new InMemoryMetrics();
      warnings = [];
    });

    afterEach(async () => {
      await fixture.close();
    });

    describe('Method: current', () => {
      it('answers the defaults for every setting the document leaves out', async () => {
        // Prepare
        await fixture.publish('{}');

        // Act
        const provider = await load();

        // Assess
        expect(provider.current()).toEqual(DEFAULT_CONFIG);
      });

      it('answers the base values and the per-agent overrides the document sets', async () => {
        // Prepare
        await fixture.publish(
          document({
            retention: { noteHorizonDays: 30 },
            agents: { coder: { learning: { minOccurrences: 5 }, retention: { noteHorizonDays: 7 } } },
          }),
        );

        // Act
        const config = (await load()).current();

        // Assess
        expect(config.retention.noteHorizonDays).toBe(30);
        expect(config.http).toEqual(DEFAULT_CONFIG.http);
        expect(settingsForAgent(config, 'coder').learning.minOccurrences).toBe(5);
        expect(settingsForAgent(config, 'coder').retention.noteHorizonDays).toBe(7);
        expect(settingsForAgent(config, 'planner').learning.minOccurrences).toBe(3);
      });
    });

    describe('Method: refresh', () => {
      it('picks up a valid change once its TTL has passed, and not before', async () => {
        // Prepare
        await fixture.publish(document({ http: { maxBodyBytes: 2048 } }));
        const provider = await load();
        await fixture.publish(document({ http: { maxBodyBytes: 4096 } }));

        // Act
        clock.advance(fixture.ttlMs - 1);
        await refresh(provider);
        const beforeTtl = provider.current().http.maxBodyBytes;
        clock.advance(1);
        await refresh(provider);

        // Assess
        expect(beforeTtl).toBe(2048);
        expect(provider.current().http.maxBodyBytes).toBe(4096);
        expect(warnings).toEqual([]);
      });

      it('keeps the last good value when a change is invalid, and reports it once, naming the field but not the value', async () => {
        // Prepare
        await fixture.publish(document({ retention: { noteHorizonDays: 30 } }));
        const provider = await load();
        await fixture.publish(document({ retention: { noteHorizonDays: 987_654 } }));

        // Act
        clock.advance(fixture.ttlMs);
        await refresh(provider);
        clock.advance(fixture.ttlMs);
        await refresh(provider);

        // Assess
        expect(provider.current().retention.noteHorizonDays).toBe(30);
        expect(metrics.countOf('config.invalid_rejected')).toBe(1);
        expect(warnings).toHaveLength(1);
        expect(JSON.parse(warnings[0] as string)).toMatchObject({
          level: 'warn',
          source: fixture.source,
          fields: ['retention.noteHorizonDays'],
        });
        expect(warnings[0]).not.toContain('987654');
      });

      it('takes the next valid change after rejecting an invalid one', async () => {
        await fixture.publish(document({ retention: { noteHorizonDays: 30 } }));
        const provider = await load();
        await fixture.publish('not json');
        clock.advance(fixture.ttlMs);
        await refresh(provider);

        await fixture.publish(document({ retention: { noteHorizonDays: 40 } }));
        clock.advance(fixture.ttlMs);
        await refresh(provider);

        expect(provider.current().retention.noteHorizonDays).toBe(40);
        expect(metrics.countOf('config.invalid_rejected')).toBe(1);
      });

      it('keeps the last good value while the source cannot be read, reports it once, and recovers', async () => {
        // Prepare
        await fixture.publish(document({ retention: { noteHorizonDays: 30 } }));
        const provider = await load();
        await fixture.breakSource();

        // Act
        clock.advance(fixture.ttlMs);
        await refresh(provider);
        clock.advance(fixture.ttlMs);
        await refresh(provider);
        const whileBroken = provider.current().retention.noteHorizonDays;
        await fixture.publish(document({ retention: { noteHorizonDays: 45 } }));
        clock.advance(fixture.ttlMs);
        await refresh(provider);

        // Assess
        expect(whileBroken).toBe(30);
        expect(metrics.countOf('config.refresh_failed')).toBe(1);
        expect(warnings).toHaveLength(1);
        expect(JSON.parse(warnings[0] as string)).toMatchObject({ level: 'warn', source: fixture.source });
        expect(provider.current().retention.noteHorizonDays).toBe(45);
      });
    });
  });
};
