import { storedBytes } from "@/lib/db/queries/files";
import { config } from "@/lib/settings/config";

const megabytes = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`;

/** The limits a new file counts against, with how much room each leaves and how a refusal names it. */
interface Room {
  bytes: number;
  /** The sentence of a refusal for this limit, naming the file. */
  refusal: (name: string, size?: number) => string;
}

/**
 * The room the conversation's next file has: under the size of one file, the conversation's total and its
 * owner's, less `replacing` (the size of the version it replaces). The tightest limit is first.
 */
export async function roomFor(conversationId: string, ownerId: string, replacing = 0): Promise<Room[]> {
  const { maxFileBytes, maxConversationBytes, maxIdentityBytes } = config.files;
  const [conversation, identity] = await Promise.all([storedBytes({ conversationId }), storedBytes({ ownerId })]);
  const sized = (size?: number) => (size === undefined ? "" : ` (${megabytes(size)})`);
  const rooms: Room[] = [
    {
      bytes: maxFileBytes,
      refusal: (name, size) =>
        `${name}${sized(size)} is larger than ${megabytes(maxFileBytes)}, the limit of one file.`,
    },
    {
      bytes: maxConversationBytes - conversation + replacing,
      refusal: (name, size) =>
        `${name}${sized(size)} does not fit: this conversation's files may total ${megabytes(maxConversationBytes)} and hold ${megabytes(conversation)}; delete some first.`,
    },
    {
      bytes: maxIdentityBytes - identity + replacing,
      refusal: (name, size) =>
        `${name}${sized(size)} does not fit: your files may total ${megabytes(maxIdentityBytes)} over all your conversations and hold ${megabytes(identity)}; delete some first.`,
    },
  ];
  return rooms.sort((a, b) => a.bytes - b.bytes);
}

/** Why a file of `size` bytes cannot be kept, or undefined when it fits every limit. */
export async function quotaProblem(file: {
  conversationId: string;
  ownerId: string;
  name: string;
  size: number;
  replacing: number;
}): Promise<string | undefined> {
  const rooms = await roomFor(file.conversationId, file.ownerId, file.replacing);
  return rooms.find((room) => file.size > room.bytes)?.refusal(file.name, file.size);
}
