/**
 * The answers of the Anthropic dialect, named by the official SDK's own types (@anthropic-ai/sdk, pinned in
 * package.json). anthropic-contract.ts reads this file with the TypeScript compiler and checks JSON against them.
 */
import type { PageResponse } from '@anthropic-ai/sdk/core/pagination';
import type { DeletedMessageBatch, MessageBatch, MessageBatchIndividualResponse } from '@anthropic-ai/sdk/resources/messages/batches';
import type { ErrorResponse } from '@anthropic-ai/sdk/resources/shared';

export interface AnthropicAnswers {
  MessageBatch: MessageBatch;
  MessageBatchesPage: PageResponse<MessageBatch>;
  DeletedMessageBatch: DeletedMessageBatch;
  MessageBatchIndividualResponse: MessageBatchIndividualResponse;
  ErrorResponse: ErrorResponse;
}
