import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import css from "highlight.js/lib/languages/css";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import python from "highlight.js/lib/languages/python";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";

// A handful of languages keeps the bundle small; anything else is shown as plain text.
const languages = { bash, css, javascript, json, python, sql, typescript, xml };
for (const [name, language] of Object.entries(languages)) hljs.registerLanguage(name, language);
const aliases: Record<string, string> = {
  js: "javascript",
  ts: "typescript",
  sh: "bash",
  shell: "bash",
  html: "xml",
  py: "python",
  tsx: "typescript",
  jsx: "javascript",
};

/** Highlighted HTML for each line of `code` (highlight.js escapes the text, so the HTML is safe to insert). */
export function highlightLines(code: string, language?: string): string[] {
  const name = language ? (aliases[language] ?? language) : undefined;
  const html =
    name && hljs.getLanguage(name)
      ? hljs.highlight(code, { language: name, ignoreIllegals: true }).value
      : escapeHtml(code);
  return splitKeepingSpans(html);
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** Split highlighted HTML into lines, closing and reopening spans that cross a line break. */
function splitKeepingSpans(html: string): string[] {
  const lines: string[] = [];
  const open: string[] = [];
  let current = "";
  for (const token of html.split(/(<span[^>]*>|<\/span>|\n)/)) {
    if (token === "\n") {
      lines.push(current + "</span>".repeat(open.length));
      current = open.join("");
    } else if (token.startsWith("<span")) {
      open.push(token);
      current += token;
    } else if (token === "</span>") {
      open.pop();
      current += token;
    } else {
      current += token;
    }
  }
  lines.push(current);
  return lines;
}
