import { Duration, Validations } from 'aws-cdk-lib';
import { Queue, QueueEncryption, type QueueProps } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

export interface DeadLetterQueueProps {
  /** What lands in the queue and how to replay it; becomes part of the SQS3 acknowledgement. */
  readonly holds: string;
  /**
   * Whether a Lambda function names the queue in its `DeadLetterConfig`: cdk-nag then recognises it as a
   * dead-letter queue. It does not recognise queues that only rule targets, schedules or a stream's
   * failure destination write to; for those SQS3 is acknowledged here.
   * @default false
   */
  readonly isLambdaDeadLetterQueue?: boolean;
  /** @default Duration.days(14), SQS's maximum */
  readonly retentionPeriod?: Duration;
  /** Overrides; encryption and TLS enforcement are fixed here. */
  readonly queueProps?: Omit<QueueProps, 'encryption' | 'encryptionMasterKey' | 'enforceSSL' | 'retentionPeriod'>;
}

/**
 * A queue that collects what could not be delivered, kept 14 days for inspection and replay.
 *
 * Encrypted with SQS-managed keys (SSE-SQS): every producer of these queues (EventBridge rule targets,
 * Lambda asynchronous invocations and stream failure destinations) can write to it without a key policy,
 * and none of them puts record content in a message: events carry ids and a namespace hash only, stream
 * failure records carry shard and sequence numbers. TLS is required for every request.
 */
export class DeadLetterQueue extends Construct {
  public readonly queue: Queue;

  constructor(scope: Construct, id: string, props: DeadLetterQueueProps) {
    super(scope, id);
    const retentionPeriod = props.retentionPeriod ?? Duration.days(14);
    if (retentionPeriod.toSeconds() < 60 || retentionPeriod.toSeconds() > Duration.days(14).toSeconds()) {
      throw new Error(`${this.node.path}: retention must be between 1 minute and 14 days`);
    }
    this.queue = new Queue(this, 'Queue', {
      ...props.queueProps,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod,
    });
    Validations.of(this.queue).acknowledge({
      id: 'Serverless::Serverless-SQSRedrivePolicy',
      reason: `This queue is itself a dead-letter queue, the end of its failure path (${props.holds}); nothing consumes it, so nothing could fail to be redriven from it: an operator inspects it and replays what can be.`,
    });
    if (props.isLambdaDeadLetterQueue !== true) {
      Validations.of(this.queue).acknowledge({
        id: 'AwsSolutions::AwsSolutions-SQS3',
        reason: `This queue is itself a dead-letter queue (${props.holds}); nothing consumes it automatically, so it has no dead-letter queue of its own.`,
      });
    }
  }
}
