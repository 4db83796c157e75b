// A chat page on `@langchain/react`'s `useStream` (v1, the thread-centric protocol), as a UI
// developer writes one, pointed at an agent server: the emulator, or the LangGraph JS server. The
// e2e test (../../react-stream.e2e.test.ts) bundles it, serves it from an origin of its own and
// drives it in Chromium, reading what it renders. The query string says where and how: `api` (the
// agent server URL), `graph`, `thread` (kept up to date, so a reload finds the thread) and
// `transport` (`sse`, the default, or `websocket`).
import type { BaseMessage } from '@langchain/core/messages';
import { useStream } from '@langchain/react';
import { useState } from 'react';
import { createRoot } from 'react-dom/client';

const params = new URLSearchParams(window.location.search);

/** The text of a message's content: a string, or the text parts of a list. */
function textOf(content: BaseMessage['content']): string {
  if (typeof content === 'string') return content;
  return content.map((part) => (part.type === 'text' ? (part as { text: string }).text : '')).join('');
}

function Chat() {
  const [draft, setDraft] = useState('');
  const stream = useStream({
    apiUrl: params.get('api') ?? 'http://127.0.0.1:8123',
    assistantId: params.get('graph') ?? 'agent',
    threadId: params.get('thread'),
    transport: params.get('transport') === 'websocket' ? 'websocket' : 'sse',
    onThreadId: (id: string) => {
      const url = new URL(window.location.href);
      url.searchParams.set('thread', id);
      window.history.replaceState(null, '', url);
    },
  });
  const send = () => {
    void stream.submit({ messages: [{ type: 'human', content: draft }] });
    setDraft('');
  };
  return (
    <main>
      <p data-testid="status">{stream.isLoading ? 'streaming' : 'idle'}</p>
      <p data-testid="thread">{stream.threadId ?? ''}</p>
      {stream.error != null && <p data-testid="error">{String(stream.error)}</p>}
      <ol>
        {stream.messages.map((message, index) => (
          <li key={message.id ?? index} data-testid={`message-${message.type}`}>
            <span data-testid="text">{textOf(message.content)}</span>
          </li>
        ))}
      </ol>
      {stream.interrupt && (
        <div data-testid="interrupt">
          <code data-testid="interrupt-value">{JSON.stringify(stream.interrupt.value)}</code>
          <button type="button" data-testid="resume" onClick={() => void stream.respond('yes')}>
            Approve
          </button>
        </div>
      )}
      <input data-testid="input" value={draft} onChange={(event) => setDraft(event.target.value)} />
      <button type="button" data-testid="send" onClick={send}>
        Send
      </button>
    </main>
  );
}

createRoot(document.getElementById('root')!).render(<Chat />);
