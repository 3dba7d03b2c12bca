"use client";

import {
  Check,
  KeyRound,
  Library,
  Link2,
  LogIn,
  MessageSquare,
  Pencil,
  Plus,
  ThumbsDown,
  Trash2,
  UserRound,
  X,
} from "lucide-react";
import Link from "next/link";
import { useState } from "react";
import type { Visitor } from "@/lib/accounts/account";
import { api, problemText, type Conversation } from "@/lib/api/client";
import { Button } from "@/components/ui/Button";
import { ShowMore } from "@/components/ui/ShowMore";
import type { ConversationList } from "./useConversationList";

const FOOTER_LINKS = [
  { href: "/tools", label: "Tool library", icon: Library },
  { href: "/shared", label: "Shared links", icon: Link2 },
  { href: "/settings", label: "API tokens", icon: KeyRound },
];

/** With accounts on, the footer's last link: the signed-in account (its settings), or the way to sign in. */
const accountLink = (visitor: Visitor) =>
  !visitor.accountsOn
    ? []
    : visitor.email === null
      ? [{ href: "/signin", label: "Sign in", icon: LogIn }]
      : [{ href: "/settings", label: visitor.email, icon: UserRound }];

/** A conversation's buttons, shown on hover or focus: each opens its mode in the row. */
const ROW_ACTIONS = [
  { mode: "rename", verb: "Rename", icon: Pencil },
  { mode: "delete", verb: "Delete", icon: Trash2 },
] as const;

interface SidebarProps {
  list: ConversationList;
  activeId: string | null;
  onNewChat: () => void;
  onDeletedActive: () => void;
  onNavigate: () => void;
  visitor: Visitor;
}

export function Sidebar({ list, activeId, onNewChat, onDeletedActive, onNavigate, visitor }: SidebarProps) {
  const { conversations, refresh } = list;
  const onChanged = () => void refresh();
  return (
    <nav aria-label="Conversations" className="flex h-full min-h-0 w-full flex-col bg-zinc-100/80 dark:bg-zinc-900/80">
      <div className="flex items-center gap-2 px-3 pb-2 pt-3">
        <span className="grid size-7 place-items-center rounded-lg bg-gradient-to-br from-emerald-500 to-teal-600 text-sm font-bold text-white">
          T
        </span>
        <span className="font-semibold tracking-tight text-zinc-900 dark:text-zinc-50">Toolsmith</span>
      </div>
      <div className="px-3 pb-2">
        <button
          type="button"
          onClick={onNewChat}
          className="flex w-full items-center gap-2 rounded-lg border border-zinc-300 bg-white px-3 py-2 text-sm font-medium text-zinc-800 shadow-sm hover:bg-zinc-50 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100 dark:hover:bg-zinc-800"
        >
          <Plus className="size-4" aria-hidden /> New chat
        </button>
      </div>
      <div className="px-3 pb-2">
        <button
          type="button"
          aria-pressed={list.thumbsDown}
          onClick={() => list.showThumbsDown(!list.thumbsDown)}
          className={`flex w-full items-center gap-2 rounded-lg px-2 py-1 text-xs font-medium ${
            list.thumbsDown
              ? "bg-rose-100 text-rose-900 dark:bg-rose-950/60 dark:text-rose-100"
              : "text-zinc-600 hover:bg-zinc-200/70 dark:text-zinc-300 dark:hover:bg-zinc-800"
          }`}
        >
          <ThumbsDown className="size-3.5" aria-hidden /> Only thumbs down
        </button>
      </div>
      <ul className="min-h-0 flex-1 space-y-0.5 overflow-y-auto px-2 pb-3" data-testid="conversation-list">
        {conversations.length === 0 && (
          <li className="px-3 py-6 text-center text-xs text-zinc-600 dark:text-zinc-400">
            {list.thumbsDown ? "No conversation has a thumbs down." : "No conversations yet."}
          </li>
        )}
        {conversations.map((conversation) => (
          <ConversationItem
            key={conversation.id}
            conversation={conversation}
            active={conversation.id === activeId}
            onChanged={onChanged}
            onDeleted={() => (conversation.id === activeId ? onDeletedActive() : onChanged())}
            onNavigate={onNavigate}
          />
        ))}
        {list.hasOlder && (
          <li className="px-1 pt-1">
            <ShowMore onShowMore={list.loadOlder} className="w-full">
              Show older conversations
            </ShowMore>
          </li>
        )}
        {list.problem && (
          <li role="alert" className="px-3 py-1 text-xs text-rose-700 dark:text-rose-300">
            {list.problem}
          </li>
        )}
      </ul>
      <div className="border-t border-zinc-200 px-3 py-2 dark:border-zinc-800">
        {[...FOOTER_LINKS, ...accountLink(visitor)].map(({ href, label, icon: Icon }) => (
          <Link
            key={label}
            href={href}
            className="flex items-center gap-2 rounded-lg px-2 py-1.5 text-sm text-zinc-700 hover:bg-zinc-200/70 dark:text-zinc-300 dark:hover:bg-zinc-800"
          >
            <Icon className="size-4 shrink-0" aria-hidden /> <span className="truncate">{label}</span>
          </Link>
        ))}
      </div>
    </nav>
  );
}

function ConversationItem({
  conversation,
  active,
  onChanged,
  onDeleted,
  onNavigate,
}: {
  conversation: Conversation;
  active: boolean;
  onChanged: () => void;
  onDeleted: () => void;
  onNavigate: () => void;
}) {
  const [mode, setMode] = useState<"view" | "rename" | "delete">("view");
  const [title, setTitle] = useState(conversation.title);
  const [problem, setProblem] = useState<string | null>(null);

  const rename = async () => {
    try {
      await api.renameConversation(conversation.id, title);
      setMode("view");
      onChanged();
    } catch (error) {
      setProblem(problemText(error));
    }
  };
  const remove = async () => {
    try {
      await api.deleteConversation(conversation.id);
      onDeleted();
    } catch (error) {
      setProblem(problemText(error));
    }
  };
  if (mode === "rename") {
    return (
      <li className="px-1 py-1">
        <form className="flex items-center gap-1" onSubmit={(event) => (event.preventDefault(), void rename())}>
          <input
            autoFocus
            aria-label="Conversation title"
            value={title}
            onChange={(event) => setTitle(event.target.value)}
            onKeyDown={(event) => event.key === "Escape" && setMode("view")}
            className="min-w-0 flex-1 rounded-md border border-zinc-300 bg-white px-2 py-1 text-sm dark:border-zinc-600 dark:bg-zinc-800"
          />
          <Button type="submit" variant="quiet" size="icon" aria-label="Save title">
            <Check className="size-4" aria-hidden />
          </Button>
          <Button variant="quiet" size="icon" aria-label="Cancel renaming" onClick={() => setMode("view")}>
            <X className="size-4" aria-hidden />
          </Button>
        </form>
        {problem && <p className="px-1 pt-1 text-xs text-rose-600">{problem}</p>}
      </li>
    );
  }
  return (
    <li
      className={`group relative rounded-lg ${active ? "bg-white shadow-sm dark:bg-zinc-800" : "hover:bg-zinc-200/70 dark:hover:bg-zinc-800/60"}`}
    >
      <Link
        href={`/c/${conversation.id}`}
        onClick={onNavigate}
        aria-current={active ? "page" : undefined}
        className="flex items-center gap-2 px-3 py-2 pr-16 text-sm text-zinc-800 dark:text-zinc-200"
      >
        <MessageSquare className="size-4 shrink-0 text-zinc-400" aria-hidden />
        <span className="truncate">{conversation.title}</span>
      </Link>
      {mode === "delete" ? (
        <div className="flex items-center gap-1 px-3 pb-2 text-xs">
          <span className="text-zinc-600 dark:text-zinc-300">Delete this chat?</span>
          <Button variant="danger" size="sm" onClick={() => void remove()} className="ml-auto">
            Delete
          </Button>
          <Button variant="quiet" size="sm" onClick={() => setMode("view")}>
            Cancel
          </Button>
        </div>
      ) : (
        <div className="absolute right-1.5 top-1.5 flex opacity-0 focus-within:opacity-100 group-hover:opacity-100">
          {ROW_ACTIONS.map(({ mode: next, verb, icon: Icon }) => (
            <Button
              key={next}
              variant="quiet"
              size="icon"
              aria-label={`${verb} ${conversation.title}`}
              onClick={() => setMode(next)}
            >
              <Icon className="size-3.5" aria-hidden />
            </Button>
          ))}
        </div>
      )}
      {problem && mode !== "view" && <p className="px-3 pb-2 text-xs text-rose-600">{problem}</p>}
    </li>
  );
}
