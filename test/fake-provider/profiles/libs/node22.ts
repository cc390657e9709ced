/** @google/genai 3.3, @azure/core-lro 3.4, @azure/core-rest-pipeline 1.25 and google-gax 6.17 declare node >= 22. */
export const BELOW_NODE_22 = Number(process.versions.node.split('.')[0]) < 22;
export const NODE_22_REASON = 'needs Node >= 22 (the library declares it); CI runs it on Node 24 via scripts/with-node24.sh';
