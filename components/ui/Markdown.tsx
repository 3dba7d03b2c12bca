"use client";

import { memo } from "react";
import ReactMarkdown, { defaultUrlTransform, type Components, type UrlTransform } from "react-markdown";
import remarkGfm from "remark-gfm";
import { ImageOff } from "lucide-react";
import { CodeBlock } from "./CodeBlock";
import { useImageOrigins } from "./ImageOrigins";

// Raw HTML in the model's text is not rendered (react-markdown's default), and link URLs are sanitised.
const components: Components = {
  pre: ({ children }) => <>{children}</>,
  code: ({ className, children }) => {
    const language = /language-([\w-]+)/.exec(className ?? "")?.[1];
    const text = String(children ?? "");
    if (!language && !text.includes("\n")) {
      return (
        <code className="rounded bg-zinc-100 px-1 py-0.5 font-mono text-[0.9em] dark:bg-zinc-800">{children}</code>
      );
    }
    return <CodeBlock code={text.replace(/\n$/, "")} language={language} className="my-3" />;
  },
  a: ({ href, children }) => (
    <a
      href={href}
      target="_blank"
      rel="noopener noreferrer nofollow"
      className="text-sky-700 underline underline-offset-2 dark:text-sky-400"
    >
      {children}
    </a>
  ),
  table: ({ children }) => (
    <div className="my-3 overflow-x-auto">
      <table className="w-full border-collapse text-sm">{children}</table>
    </div>
  ),
  th: ({ children }) => (
    <th className="border border-zinc-200 bg-zinc-50 px-2 py-1 text-left font-semibold dark:border-zinc-700 dark:bg-zinc-800/60">
      {children}
    </th>
  ),
  td: ({ children }) => <td className="border border-zinc-200 px-2 py-1 dark:border-zinc-700">{children}</td>,
  ul: ({ children }) => <ul className="my-2 list-disc space-y-1 pl-6">{children}</ul>,
  ol: ({ children }) => <ol className="my-2 list-decimal space-y-1 pl-6">{children}</ol>,
  p: ({ children }) => <p className="my-2 first:mt-0 last:mb-0">{children}</p>,
  h1: ({ children }) => <h1 className="mb-2 mt-4 text-xl font-semibold">{children}</h1>,
  h2: ({ children }) => <h2 className="mb-2 mt-4 text-lg font-semibold">{children}</h2>,
  h3: ({ children }) => <h3 className="mb-1 mt-3 font-semibold">{children}</h3>,
  img: ({ src, alt }) => <ModelImage src={typeof src === "string" ? src : ""} alt={alt ?? ""} />,
  blockquote: ({ children }) => (
    <blockquote className="my-2 border-l-4 border-zinc-300 pl-3 text-zinc-600 dark:border-zinc-600 dark:text-zinc-300">
      {children}
    </blockquote>
  ),
};

/**
 * An image in model or tool text. Loading it would tell its host that someone is reading, and a prompt-injected
 * model can put secrets in its address: only data: images and the configured origins are shown (the CSP allows
 * no others); any other is a link the reader can choose to open.
 */
function ModelImage({ src, alt }: { src: string; alt: string }) {
  const origins = useImageOrigins();
  const url = URL.parse(src);
  if (src.startsWith("data:image/") || (url && origins.includes(url.origin))) {
    return (
      // eslint-disable-next-line @next/next/no-img-element -- arbitrary remote images; next/image would proxy them
      <img
        src={src}
        alt={alt}
        loading="lazy"
        referrerPolicy="no-referrer"
        className="my-2 max-h-96 max-w-full rounded-md"
      />
    );
  }
  return (
    <a
      href={src}
      target="_blank"
      rel="noopener noreferrer nofollow"
      data-testid="blocked-image"
      className="inline-flex items-center gap-1 rounded-md border border-zinc-300 px-1.5 py-0.5 text-sm text-zinc-700 underline-offset-2 hover:underline dark:border-zinc-600 dark:text-zinc-300"
    >
      <ImageOff className="size-3.5" aria-hidden />
      Image not loaded{alt ? `: ${alt}` : ""} ({url?.host || "link"})
    </a>
  );
}

/** react-markdown's safe URLs, plus data: images, which load nothing from anywhere. */
const urlTransform: UrlTransform = (url, key) =>
  key === "src" && url.startsWith("data:image/") ? url : defaultUrlTransform(url);

export const Markdown = memo(function Markdown({ text }: { text: string }) {
  return (
    <div className="text-[15px] leading-7 text-zinc-900 dark:text-zinc-100">
      <ReactMarkdown remarkPlugins={[remarkGfm]} components={components} urlTransform={urlTransform}>
        {text}
      </ReactMarkdown>
    </div>
  );
});
