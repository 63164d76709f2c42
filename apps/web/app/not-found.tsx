import Link from "@/components/link";
import { NotFoundBody, PanelHeader } from "@/components/panel-header";
import { server } from "@/lib/server";
import { currentActor } from "@/lib/session";

export const metadata = { title: "Page not found · Levelrail" };

/** Any address no page serves: the panel's header when signed in (else a way to sign in), and a way back. */
export default async function NotFound() {
  const actor = await currentActor();
  if (!actor) {
    return (
      <>
        <header className="topbar">
          <Link href="/" className="brand">
            Levelrail
          </Link>
          <nav className="topbar-right" aria-label="Main">
            <Link href="/login">Sign in</Link>
          </nav>
        </header>
        <main className="page">
          <NotFoundBody />
        </main>
      </>
    );
  }
  const { db, kit, quotas } = server();
  return (
    <>
      <PanelHeader ctx={{ db, actor, kit, quotas }} />
      <main className="page">
        <NotFoundBody />
      </main>
    </>
  );
}
