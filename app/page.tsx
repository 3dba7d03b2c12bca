import { randomUUID } from "node:crypto";
import { OwnerChatView } from "@/components/chat/OwnerChatView";
import { config, modelConfig } from "@/lib/settings/config";
import { pageVisitor } from "@/lib/accounts/account";
import { memberPageIdentity } from "@/lib/http/access";
import { profileChoiceFor } from "@/lib/accounts/admin";
import { conversationPage, NO_CONVERSATIONS } from "@/lib/conversations/list";

export const dynamic = "force-dynamic";

export default async function NewChatPage() {
  const identity = await memberPageIdentity();
  const conversations = identity ? await conversationPage(identity) : NO_CONVERSATIONS;
  // A fresh key per visit: "New chat" always starts from an empty view, even from a chat started on this page.
  return (
    <OwnerChatView
      key={randomUUID()}
      initial={null}
      profiles={await profileChoiceFor(identity)}
      conversations={conversations}
      modelConfigured={modelConfig() !== undefined}
      visitor={await pageVisitor()}
      review={{ labels: config.annotationLabels }}
    />
  );
}
