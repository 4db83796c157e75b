// A chat page on the LangGraph SDK's React hook `useStream`, as a UI developer writes one, pointed
// at the emulator: apiUrl is the emulator's agent server, assistantId a scripted graph's ID. The
// e2e test (../../use-stream.e2e.test.ts) bundles it, serves it from an origin of its own and
// drives it in Chromium, reading what it renders. The query string says where and how:
// `api` (the agent server URL), `graph`, `thread` (kept up to date, so a reload rejoins the thread)
// and `reconnect=0` to leave out `reconnectOnMount`.
import type { Message } from '@langchain/langgraph-sdk';
import { useStream } from '@langchain/langgraph-sdk/react';
import { useState } from 'react';
import { createRoot } from 'react-dom/client';

const params = new URLSearchParams(window.location.search);

/** The text of a message's content: a string, or the text parts of a list. */
function textOf(content: Message['content']): string {
  if (typeof content === 'string') return content;
  return content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

function Chat() {
  const [threadId, setThreadId] = useState<string | null>(params.get('thread'));
  const [draft, setDraft] = useState('');
  const [editing, setEditing] = useState<{ id: string; text: string } | null>(null);
  const stream = useStream<{ messages: Message[] }>({
    apiUrl: params.get('api') ?? 'http://127.0.0.1:8123',
    assistantId: params.get('graph') ?? 'agent',
    apiKey: null, // the emulator needs none unless its config sets agent_server.api_keys
    threadId,
    onThreadId: (id) => {
      setThreadId(id);
      const url = new URL(window.location.href);
      url.searchParams.set('thread', id);
      window.history.replaceState(null, '', url);
    },
    reconnectOnMount: params.get('reconnect') !== '0',
    fetchStateHistory: true, // for branches: getMessagesMetadata(...).firstSeenState and branchOptions
  });

  const send = () => {
    stream.submit({ messages: [{ type: 'human', content: draft }] });
    setDraft('');
  };
  const interrupt = stream.interrupt;

  return (
    <main>
      <p data-testid="status">{stream.isLoading ? 'streaming' : 'idle'}</p>
      <p data-testid="thread">{threadId ?? ''}</p>
      {stream.error != null && <p data-testid="error">{String(stream.error)}</p>}
      <ol>
        {stream.messages.map((message, index) => {
          const metadata = stream.getMessagesMetadata(message, index);
          return (
            <li key={message.id ?? index} data-testid={`message-${message.type}`} data-id={message.id}>
              <span data-testid="text">{textOf(message.content)}</span>
              {message.type === 'ai' &&
                message.tool_calls?.map((call) => (
                  <code key={call.id} data-testid="tool-call">
                    {call.name}({JSON.stringify(call.args)})
                  </code>
                ))}
              {message.type === 'tool' && <code data-testid="tool-result">{`${message.name ?? ''} → ${textOf(message.content)}`}</code>}
              {metadata?.branchOptions && metadata.branchOptions.length > 1 && (
                <span data-testid="branches">
                  branch {metadata.branchOptions.indexOf(metadata.branch ?? '') + 1} of {metadata.branchOptions.length}
                </span>
              )}
              {message.type === 'human' && !stream.isLoading && (
                <button
                  type="button"
                  data-testid="edit"
                  onClick={() => setEditing({ id: message.id ?? '', text: textOf(message.content) })}
                >
                  Edit
                </button>
              )}
              {editing && editing.id === message.id && (
                <form
                  onSubmit={(event) => {
                    event.preventDefault();
                    // Regenerate from the checkpoint before this message: a new branch of the thread.
                    const checkpoint = metadata?.firstSeenState?.parent_checkpoint;
                    stream.submit({ messages: [{ type: 'human', content: editing.text }] }, { checkpoint });
                    setEditing(null);
                  }}
                >
                  <input
                    data-testid="edit-input"
                    value={editing.text}
                    onChange={(event) => setEditing({ ...editing, text: event.target.value })}
                  />
                  <button type="submit" data-testid="edit-save">
                    Save
                  </button>
                </form>
              )}
            </li>
          );
        })}
      </ol>
      {interrupt !== undefined && !Array.isArray(interrupt) && (
        <section data-testid="interrupt">
          <pre data-testid="interrupt-value">{JSON.stringify(interrupt.value)}</pre>
          <button type="button" data-testid="resume" onClick={() => stream.submit(undefined, { command: { resume: 'yes' } })}>
            Approve
          </button>
        </section>
      )}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          send();
        }}
      >
        <input data-testid="input" value={draft} onChange={(event) => setDraft(event.target.value)} />
        <button type="submit" data-testid="send" disabled={stream.isLoading}>
          Send
        </button>
        <button type="button" data-testid="stop" disabled={!stream.isLoading} onClick={() => stream.stop()}>
          Stop
        </button>
      </form>
    </main>
  );
}

const root = document.getElementById('root');
if (!root) throw new Error('no #root element');
createRoot(root).render(<Chat />);
