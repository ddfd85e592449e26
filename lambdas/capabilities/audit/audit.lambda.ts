/**
 * AWS Lambda entry points of the audit trail: its reading operation, and its consumer of record events
 * (an EventBridge rule's target). Built from the audit module alone, once per execution environment at init.
 */
import { awsApplication } from '../../composition/aws-application.ts';
import { AUDIT_CONSUMER } from './audit.consumer.ts';
import { auditModule } from './audit.module.ts';

const audit = await awsApplication(process.env, [auditModule]);

export const listAudit = audit.handler('listAudit');
export const recordAudit = audit.consumerHandler(AUDIT_CONSUMER);
