import type { Metadata } from "next";
import type { ReactNode } from "react";
import { Providers } from "./providers";
import "./globals.css";
import "./sections.css";
import "./charts.css";

export const metadata: Metadata = {
  title: "Levelrail",
  description: "Run container images as services on your own Docker hosts",
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>
        <Providers>{children}</Providers>
      </body>
    </html>
  );
}
