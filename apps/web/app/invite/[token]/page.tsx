import { lookupInvitation, refusalOf } from "@levelrail/services/org/accept";
import { SignOutButton } from "@/components/sign-out-button";
import { currentActor } from "@/lib/session";
import { server } from "@/lib/server";
import { AcceptInvitation } from "./accept-invitation";

type Props = { params: Promise<{ token: string }> };

export const metadata = { title: "Invitation · Levelrail" };

/**
 * Where an invitation link leads: who invites whom into which organization, and the one step
 * that accepts it (create the account, sign in, or just accept). A link that names nothing, or
 * one that expired, was used or revoked, says so and offers nothing to do.
 */
export default async function InvitePage({ params }: Props) {
  const { token } = await params;
  const [found, actor] = await Promise.all([lookupInvitation(server().db, token), currentActor()]);
  if (found.state === "unknown") {
    return (
      <Shell title="Invitation not found">
        <p role="alert">This invitation link is not valid: check that the whole link was copied, or ask for a new one.</p>
      </Shell>
    );
  }
  if (found.state !== "pending") {
    return (
      <Shell title="This invitation can no longer be used">
        <p role="alert">{`${refusalOf(found.state).replace(/^this/, "This")}.`}</p>
      </Shell>
    );
  }
  const intro = (
    <p>
      You are invited to the organization <strong>{found.orgName}</strong> as <strong>{found.role}</strong>, with the address{" "}
      <strong>{found.email}</strong>.
    </p>
  );
  if (actor && actor.email.toLowerCase() !== found.email) {
    return (
      <Shell title="Join an organization">
        {intro}
        <p role="alert">
          You are signed in as {actor.email}. Sign out, then open this link again to accept it as {found.email}.
        </p>
        <SignOutButton />
      </Shell>
    );
  }
  const mode = actor ? "accept" : found.hasAccount ? "sign-in" : "sign-up";
  return (
    <Shell title="Join an organization">
      {intro}
      <AcceptInvitation token={token} email={found.email} orgName={found.orgName} mode={mode} />
    </Shell>
  );
}

function Shell({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <main className="login">
      <p className="brand">Levelrail</p>
      <h1>{title}</h1>
      {children}
    </main>
  );
}
