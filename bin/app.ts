#!/usr/bin/env node
/**
 * CDK app entry: `npx cdk synth|deploy [-c stage=prod] [-c region=eu-west-1]`. The stack names a region only
 * when one was chosen (`-c region=…`, `AWS_REGION` or `AWS_DEFAULT_REGION`) and an account only with
 * `-c account=…`; otherwise the template is environment-agnostic (see lib/deployment-environment.ts).
 */
import { createMemoryHubApp } from '../lib/memory-hub-app.ts';

createMemoryHubApp({ environmentVariables: process.env });
