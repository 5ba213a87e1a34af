/** The sandbox's event stream as the dashboard reads it, and the connection state it shows. */
import { askForToken, authHeaders, byId, MAX_EVENT_BYTES } from './dom.js';

function setConnection(state: string): void {
  byId('connection').textContent = state;
  byId('connection').dataset.state = state.split(' ')[0] ?? '';
}

/**
 * Reads `GET /_sandbox/events` (fetch, so that the token can go in a header), passing each event to
 * `onEvent`, and reconnects after a drop.
 */
export async function readEvents(onEvent: (name: string, data: string) => void): Promise<never> {
  for (;;) {
    try {
      const response = await fetch('/_sandbox/events', { headers: authHeaders(), cache: 'no-store' });
      if (response.status === 401) {
        setConnection('needs the control token');
        await askForToken();
        continue;
      }
      if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
      setConnection('live');
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        buffer += value;
        if (buffer.length > MAX_EVENT_BYTES) break;
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          let name = 'message';
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith('event: ')) name = line.slice(7);
            else if (line.startsWith('data: ')) data.push(line.slice(6));
          }
          if (data.length > 0) onEvent(name, data.join('\n'));
        }
      }
      await reader.cancel().catch(() => undefined);
    } catch {
      // Reconnects below.
    }
    setConnection('reconnecting…');
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}
