#!/usr/bin/env node
/**
 * CDK app entry: `npx cdk synth|deploy [-c stage=prod]`. Deploys into the account and region of the
 * CLI's credentials when it has some; otherwise synthesizes an environment-agnostic template.
 */
import { createMemoryHubApp } from '../lib/memory-hub-app.ts';

const account = process.env.CDK_DEFAULT_ACCOUNT;
const region = process.env.CDK_DEFAULT_REGION;

createMemoryHubApp(account !== undefined || region !== undefined ? { env: { account, region } } : {});
