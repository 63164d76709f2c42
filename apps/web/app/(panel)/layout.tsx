import Link from "next/link";
import { redirect } from "next/navigation";
import type { ReactNode } from "react";
import { SignOutButton } from "@/components/sign-out-button";
import { currentActor } from "@/lib/session";

/** Every page but /login: signed-out visitors are sent to sign in. */
export default async function PanelLayout({ children }: { children: ReactNode }) {
  const actor = await currentActor();
  if (!actor) redirect("/login");
  return (
    <>
      <header className="topbar">
        <Link href="/" className="brand">
          Levelrail
        </Link>
        <nav className="topbar-right" aria-label="Main">
          <Link href="/metrics">Deploys</Link>
          <Link href="/settings">Settings</Link>
          <span className="muted">{actor.email}</span>
          <SignOutButton />
        </nav>
      </header>
      <main className="page">{children}</main>
    </>
  );
}
