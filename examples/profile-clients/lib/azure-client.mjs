// An @azure-rest/core-client for the azure-lro profile and core-lro's poller over it, wired as the generated
// `@azure-rest/*` clients wire `getLongRunningPoller`. core-rest-pipeline's bearer policy refuses http://, so the
// token goes in as a per-call header policy.
import { getClient } from '@azure-rest/core-client';
import { createHttpPoller } from '@azure/core-lro';
import { baseUrl } from './protocol.mjs';
import { httpError } from './results.mjs';

export function azureClient(env, options = {}) {
  const bearer = {
    name: 'bearer-token',
    sendRequest: (req, next) => {
      req.headers.set('authorization', `Bearer ${env.token}`);
      return next(req);
    },
  };
  return getClient(baseUrl(env, 'azure-lro'), {
    allowInsecureConnection: true,
    additionalPolicies: [{ policy: bearer, position: 'perCall' }],
    ...options,
  });
}

const toOperation = (r) => ({
  flatResponse: r.body,
  rawResponse: { statusCode: Number(r.status), headers: r.headers, request: r.request, body: r.body },
});

/** A core-lro poller for one create; `headers` go on the create (Operation-Id among them). */
export function startPoller(client, body, headers = {}, options = {}) {
  return createHttpPoller(
    {
      // An error answer is thrown, as generated clients do (`isUnexpected` → RestError): core-lro would take any
      // status without Operation-Location as a finished operation.
      sendInitialRequest: async () => {
        const r = await client.path('/reports:generate').post({ body, headers });
        if (Number(r.status) >= 400) throw httpError(Number(r.status), r.headers, `${r.status} ${JSON.stringify(r.body)}`);
        return toOperation(r);
      },
      sendPollRequest: async (path) => toOperation(await client.pathUnchecked(path).get()),
    },
    options,
  );
}

export const operationIdOf = (poller) => poller.operationState?.config?.operationLocation?.split('/').pop();
