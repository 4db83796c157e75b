// The thread-centric protocol's types, generated from the spec, held to `@langchain/protocol`'s
// (the types LangChain's clients compile against, generated from the protocol's CDDL). Checked
// by `npm run typecheck` (tsc); never executed. Two directions, as a wire has:
//   - what the server sends (answers, events, results) must be what those clients accept;
//   - what those clients send (commands' params, a stream's filter) must be what the spec accepts.
// A change of either side that breaks a client fails here.
import type * as Protocol from '@langchain/protocol';
import { expectTypeOf } from 'vitest';
import type { components } from '../src/index.js';

type Schemas = components['schemas'];

export function serverToClient() {
  expectTypeOf<Schemas['ProtocolEvent']>().toMatchTypeOf<Protocol.Event>();
  expectTypeOf<Schemas['ProtocolAnswer']>().toMatchTypeOf<Protocol.CommandResponse | Protocol.ErrorResponse>();
  expectTypeOf<Schemas['ProtocolSuccess']>().toMatchTypeOf<Protocol.CommandResponse>();
  expectTypeOf<Schemas['ProtocolError']>().toMatchTypeOf<Protocol.ErrorResponse>();
  expectTypeOf<Schemas['ProtocolSocketMessage']>().toMatchTypeOf<Protocol.Message>();
  expectTypeOf<Schemas['ProtocolErrorCode']>().toEqualTypeOf<Protocol.ErrorCode>();
  expectTypeOf<Schemas['ProtocolAgentStatus']>().toEqualTypeOf<Protocol.AgentStatus>();

  // Each event's data.
  expectTypeOf<Schemas['ProtocolLifecycleData']>().toMatchTypeOf<Protocol.LifecycleData>();
  expectTypeOf<Schemas['ProtocolMessagesData']>().toMatchTypeOf<Protocol.MessagesData>();
  expectTypeOf<Schemas['ProtocolContentBlock']>().toMatchTypeOf<Protocol.ContentBlock>();
  expectTypeOf<Schemas['ProtocolFinalizedContentBlock']>().toMatchTypeOf<Protocol.FinalizedContentBlock>();
  expectTypeOf<Schemas['ProtocolContentBlockDelta']>().toMatchTypeOf<Protocol.ContentBlockDelta>();
  expectTypeOf<Schemas['ProtocolToolsData']>().toMatchTypeOf<Protocol.ToolsData>();
  expectTypeOf<Schemas['ProtocolInputRequestedData']>().toMatchTypeOf<Protocol.InputRequestedData>();
  expectTypeOf<Schemas['ProtocolInputAnsweredData']>().toMatchTypeOf<Protocol.InputAnsweredData>();
  expectTypeOf<Schemas['ProtocolCheckpointEnvelope']>().toMatchTypeOf<Protocol.Checkpoint>();
  expectTypeOf<Schemas['ProtocolUpdatesData']>().toMatchTypeOf<Protocol.UpdatesData>();
  expectTypeOf<Schemas['ProtocolCustomData']>().toMatchTypeOf<Protocol.CustomData>();

  // Each method's result.
  expectTypeOf<Schemas['ProtocolRunResult']>().toMatchTypeOf<Protocol.RunResult>();
  expectTypeOf<Schemas['ProtocolTreeResult']>().toMatchTypeOf<Protocol.AgentResult>();
  expectTypeOf<Schemas['ProtocolStateGetResult']>().toMatchTypeOf<Protocol.StateGetResult>();
  expectTypeOf<Schemas['ProtocolListCheckpointsResult']>().toMatchTypeOf<Protocol.ListCheckpointsResult>();
  expectTypeOf<Schemas['ProtocolStateForkResult']>().toMatchTypeOf<Protocol.StateForkResult>();
  expectTypeOf<Schemas['ProtocolSubscribeResult']>().toMatchTypeOf<Protocol.SubscribeResult>();
  expectTypeOf<Schemas['ProtocolEmptyResult']>().toMatchTypeOf<Protocol.EmptyResult>();
}

export function clientToServer() {
  // A command's envelope (the params are each method's, below).
  expectTypeOf<Pick<Protocol.Command, 'id' | 'method'>>().toMatchTypeOf<Pick<Schemas['ProtocolCommand'], 'id' | 'method'>>();
  expectTypeOf<Protocol.EventStreamRequest>().toMatchTypeOf<Schemas['ProtocolEventFilter']>();
  expectTypeOf<Protocol.Channel>().toMatchTypeOf<Schemas['ProtocolChannel']>();

  expectTypeOf<Protocol.RunStartParams>().toMatchTypeOf<Schemas['ProtocolRunStartParams']>();
  expectTypeOf<Protocol.InputRespondParams>().toMatchTypeOf<Schemas['ProtocolInputRespondParams']>();
  expectTypeOf<Protocol.AgentGetTreeParams>().toMatchTypeOf<Schemas['ProtocolGetTreeParams']>();
  expectTypeOf<Protocol.StateGetParams>().toMatchTypeOf<Schemas['ProtocolStateGetParams']>();
  expectTypeOf<Protocol.ListCheckpointsParams>().toMatchTypeOf<Schemas['ProtocolListCheckpointsParams']>();
  expectTypeOf<Protocol.StateForkParams>().toMatchTypeOf<Schemas['ProtocolStateForkParams']>();
  expectTypeOf<Protocol.SubscribeParams>().toMatchTypeOf<Schemas['ProtocolSubscribeParams']>();
  expectTypeOf<Protocol.UnsubscribeParams>().toMatchTypeOf<Schemas['ProtocolUnsubscribeParams']>();

  // Every method the protocol's commands name is one the spec describes, but the two the server
  // refuses as `not_supported` (input.inject, subscription.reconnect).
  expectTypeOf<Exclude<Protocol.Command['method'], 'input.inject' | 'subscription.reconnect'>>().toEqualTypeOf<
    Schemas['ProtocolMethod']['method']
  >();
}
