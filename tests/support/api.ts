import { readSse, type SseMessage } from "./sse";

/** A small client for the HTTP API, as a browser or script would use it. */
export class Api {
  constructor(readonly baseUrl: string) {}

  async createConversation(): Promise<{ id: string; title: string }> {
    const response = await fetch(`${this.baseUrl}/api/conversations`, { method: "POST" });
    if (response.status !== 201) throw new Error(`create failed: ${response.status} ${await response.text()}`);
    return response.json();
  }

  send(conversationId: string, content: string): Promise<Response> {
    return fetch(`${this.baseUrl}/api/conversations/${conversationId}/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ content }),
    });
  }

  /** Send a message and read the run's whole event stream. */
  async run(conversationId: string, content: string): Promise<SseMessage[]> {
    return readSse(await this.send(conversationId, content));
  }

  events(conversationId: string, lastEventId?: number): Promise<Response> {
    return fetch(`${this.baseUrl}/api/conversations/${conversationId}/events`, {
      headers: lastEventId === undefined ? {} : { "last-event-id": String(lastEventId) },
    });
  }

  async conversation(conversationId: string) {
    const response = await fetch(`${this.baseUrl}/api/conversations/${conversationId}`);
    if (!response.ok) throw new Error(`get failed: ${response.status}`);
    return response.json();
  }
}

export function ofType(events: SseMessage[], type: string) {
  return events.filter((event) => event.data.type === type).map((event) => event.data);
}
