import type { Metadata, Viewport } from "next";
import { connection } from "next/server";
import { ImageOriginsProvider } from "@/components/ui/ImageOrigins";
import { config } from "@/lib/settings/config";
import "./globals.css";

export const metadata: Metadata = {
  title: "Toolsmith",
  description: "Chat with an agent that builds its own tools, and watch every step it takes.",
};

export const viewport: Viewport = {
  width: "device-width",
  initialScale: 1,
  themeColor: [
    { media: "(prefers-color-scheme: light)", color: "#ffffff" },
    { media: "(prefers-color-scheme: dark)", color: "#09090b" },
  ],
};

export default async function RootLayout({ children }: { children: React.ReactNode }) {
  // Rendered per request, every page: each response's scripts carry that response's CSP nonce (proxy.ts).
  await connection();
  return (
    <html lang="en">
      <body className="antialiased">
        <ImageOriginsProvider origins={config.web.imageOrigins}>{children}</ImageOriginsProvider>
      </body>
    </html>
  );
}
