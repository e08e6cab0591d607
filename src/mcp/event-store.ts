/**
 * The resumability log of one session (Streamable HTTP `Last-Event-ID`):
 * every SSE event the session sends is numbered and kept, so a client whose
 * stream dropped reconnects with `GET /mcp` + `Last-Event-ID` and gets what it
 * missed on that stream. Bounded: the oldest events go first, so a session
 * that runs for days holds at most `limit` messages.
 */

import type { EventStore, JSONRPCMessage } from "@modelcontextprotocol/server";

interface StoredEvent {
  seq: number;
  streamId: string;
  message: JSONRPCMessage;
}

/** Event ids are `<stream id>.<sequence>`: the stream is readable from the id alone. */
function parseEventId(eventId: string): { streamId: string; seq: number } | undefined {
  const dot = eventId.lastIndexOf(".");
  if (dot <= 0) return undefined;
  const seq = Number(eventId.slice(dot + 1));
  if (!Number.isSafeInteger(seq) || seq < 0) return undefined;
  return { streamId: eventId.slice(0, dot), seq };
}

export class SessionEventStore implements EventStore {
  private readonly events: StoredEvent[] = [];
  private next = 0;

  constructor(private readonly limit = 1000) {}

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const seq = this.next++;
    this.events.push({ seq, streamId, message });
    if (this.events.length > this.limit) this.events.splice(0, this.events.length - this.limit);
    return `${streamId}.${seq}`;
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return parseEventId(eventId)?.streamId;
  }

  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const parsed = parseEventId(lastEventId);
    if (parsed === undefined) throw new Error(`unknown event id '${lastEventId}'`);
    for (const event of this.events) {
      if (event.streamId !== parsed.streamId || event.seq <= parsed.seq) continue;
      // Priming events carry no message: they exist only to give the client an id to resume from.
      if (Object.keys(event.message).length === 0) continue;
      await send(`${event.streamId}.${event.seq}`, event.message);
    }
    return parsed.streamId;
  }
}
