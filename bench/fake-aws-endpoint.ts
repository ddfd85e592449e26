/**
 * A stand-in for AWS on loopback, for timing Lambda init without the network: every AWS SDK client in the
 * probed process is pointed here (`AWS_ENDPOINT_URL`). It answers SSM GetParameter (the configuration a
 * function reads at init) and refuses everything else, and records each call so the report can say which
 * AWS calls an init makes.
 */
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The configuration document served for any parameter; the service's defaults when the file exists. */
const DEFAULT_CONFIG_DOCUMENT = 'lambdas/generated/default-config.json';

export interface FakeAwsEndpoint {
  readonly url: string;
  /** `X-Amz-Target` (or method and path) of every call received, in order. */
  readonly calls: string[];
  close(): Promise<void>;
}

export const startFakeAwsEndpoint = async (): Promise<FakeAwsEndpoint> => {
  const configDocument = await readFile(DEFAULT_CONFIG_DOCUMENT, 'utf8').catch(() => '{}');
  const calls: string[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const target = request.headers['x-amz-target'];
      const call = typeof target === 'string' ? target : `${request.method} ${request.url}`;
      calls.push(call);
      if (call === 'AmazonSSM.GetParameter') {
        const { Name } = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { Name?: string };
        response.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
        response.end(
          JSON.stringify({
            Parameter: { Name, Type: 'String', Value: configDocument, Version: 1, DataType: 'text' },
          }),
        );
        return;
      }
      response.writeHead(400, { 'content-type': 'application/x-amz-json-1.1' });
      response.end(
        JSON.stringify({ __type: 'UnknownOperationException', message: `The bench stub does not serve ${call}` }),
      );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
};
