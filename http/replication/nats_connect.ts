// How every part of clobd connects to NATS (the replication thread, the snapshot command, a new
// replica fetching a snapshot): the servers, and the authentication and TLS the settings give
// (config.ts NatsAuth). A credentials file is read at each connection attempt, so one the
// operator rotates is taken up on the next reconnection.
import { readFileSync } from 'node:fs';
import { credsAuthenticator, type ConnectionOptions } from '@nats-io/transport-node';
import type { ReplicationConfig } from '../config.js';

export function natsOptions(replication: Pick<ReplicationConfig, 'servers' | 'auth'>, name: string, timeoutMs: number): ConnectionOptions {
  const { user, password, token, credsFile, tlsCaFile, tlsCertFile, tlsKeyFile } = replication.auth;
  const tls = tlsCaFile !== undefined || tlsCertFile !== undefined
    ? { ...(tlsCaFile === undefined ? {} : { caFile: tlsCaFile }), ...(tlsCertFile === undefined ? {} : { certFile: tlsCertFile, keyFile: tlsKeyFile }) }
    : undefined;
  return {
    servers: [...replication.servers], name, timeout: timeoutMs,
    ...(user === undefined ? {} : { user, pass: password }),
    ...(token === undefined ? {} : { token }),
    ...(credsFile === undefined ? {} : { authenticator: credsAuthenticator(() => readFileSync(credsFile)) }),
    ...(tls === undefined ? {} : { tls }),
  };
}
