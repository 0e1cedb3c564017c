import type { Metadata } from "next";
import type { ReactNode } from "react";
import { Providers } from "@/components/providers/trpc-provider";
import { Nav } from "@/components/ui/nav";
import { pageUser } from "@/server/auth/page-user";
import "./globals.css";

export const metadata: Metadata = {
  title: { template: "%s · Switchyard", default: "Switchyard" },
  description: "Operations console for LLM inference clusters serving coding agents",
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  const user = await pageUser();
  return (
    <html lang="en">
      <body>
        <Providers>
          <header className="shell-header">
            <a className="brand" href="/">
              Switchyard
            </a>
            {user && <Nav user={{ name: user.name, role: user.role }} />}
          </header>
          <main>{children}</main>
        </Providers>
      </body>
    </html>
  );
}
