import type { Metadata } from "next";
import "./globals.css";

export const metadata: Metadata = {
  title: "Toolsmith",
  description: "Chat with an agent that builds its own tools, and watch every step it takes.",
};

export default function RootLayout({ children }: { children: React.ReactNode }) {
  return (
    <html lang="en">
      <body className="antialiased">{children}</body>
    </html>
  );
}
