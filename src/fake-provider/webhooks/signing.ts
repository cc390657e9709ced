import { Webhook } from 'standardwebhooks';

export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
  'content-type': string;
}

/**
 * Standard Webhooks signature with the official library. The timestamp is wall-clock time even on a virtual clock:
 * it is a transport freshness stamp, and verifiers check it against their own wall clock (5 min tolerance).
 */
export function signDelivery(secret: string, eventId: string, body: string, wallNow = Date.now()): SignedHeaders {
  const ts = new Date(Math.floor(wallNow / 1000) * 1000);
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(ts.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(eventId, ts, body),
    'content-type': 'application/json',
  };
}
