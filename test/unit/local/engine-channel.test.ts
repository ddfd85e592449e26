import { MessageChannel, type MessagePort } from 'node:worker_threads';
import type { HttpRequest } from '@smithy/types';
import { afterEach, describe, expect, it } from 'vitest';
import {
  BACKGROUND_IN_FLIGHT,
  EngineChannelHandler,
  type EngineRequest,
} from '../../../lambdas/local/engine-channel.ts';

/** Stands in for the engine thread: records what arrives and answers only when told to. */
const scriptedEngine = (port: MessagePort) => {
  const arrived: EngineRequest[] = [];
  port.on('message', (request: EngineRequest) => arrived.push(request));
  const answer = (request: EngineRequest) =>
    port.postMessage({ id: request.id, statusCode: 200, headers: {}, body: new TextEncoder().encode('{}') });
  return { arrived, answer };
};

const request = (target: string): HttpRequest =>
  ({
    method: 'POST',
    protocol: 'http:',
    hostname: '127.0.0.1',
    path: '/',
    query: {},
    headers: { 'x-amz-target': target },
    body: new TextEncoder().encode('{}'),
  }) as HttpRequest;

const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('Class: EngineChannelHandler', () => {
  const channels: MessageChannel[] = [];
  afterEach(() => {
    for (const channel of channels.splice(0)) channel.port1.close();
  });

  const connect = () => {
    const channel = new MessageChannel();
    channels.push(channel);
    return { handler: new EngineChannelHandler(channel.port1), engine: scriptedEngine(channel.port2) };
  };

  it('lets background work reach the engine a few requests at a time, and requests past it at once', async () => {
    const { handler, engine } = connect();
    const targets = (prefix: string, count: number) =>
      Array.from({ length: count }, (_, index) => `${prefix}${index + 1}`);
    const background = targets('b', BACKGROUND_IN_FLIGHT + 2);
    const arrivedTargets = () => engine.arrived.map((each) => each.headers['x-amz-target']);

    const relayed = handler.inBackground(() =>
      Promise.all(background.map((target) => handler.handle(request(target)))),
    );
    await settle();
    const requests = ['f1', 'f2'].map((target) => handler.handle(request(target)));
    await settle();

    expect(arrivedTargets()).toEqual([...background.slice(0, BACKGROUND_IN_FLIGHT), 'f1', 'f2']);
    for (const each of engine.arrived.slice()) engine.answer(each);
    await Promise.all(requests);
    await settle();
    expect(arrivedTargets()).toEqual([
      ...background.slice(0, BACKGROUND_IN_FLIGHT),
      'f1',
      'f2',
      ...background.slice(BACKGROUND_IN_FLIGHT),
    ]);
    for (const each of engine.arrived.slice(BACKGROUND_IN_FLIGHT + 2)) engine.answer(each);

    expect((await relayed).map(({ response }) => response.statusCode)).toEqual(background.map(() => 200));
  });

  it('refuses every waiting request once the engine has gone', async () => {
    const { handler } = connect();
    const waiting = [handler.handle(request('a')), handler.inBackground(() => handler.handle(request('b')))];
    await settle();

    handler.close(new Error('The embedded DynamoDB engine has stopped'));

    for (const each of waiting) await expect(each).rejects.toThrow(/engine has stopped/);
  });
});
