import { redirect } from "next/navigation";
import { currentActor } from "@/lib/session";
import { LoginForm } from "./login-form";
import { SsoForm } from "./sso-form";

export const metadata = { title: "Sign in · Levelrail" };

export default async function LoginPage({ searchParams }: { searchParams: Promise<{ sso?: string; error?: string }> }) {
  const { sso, error } = await searchParams;
  // A session refused by an organization that requires single sign-on is sent here to sign in again.
  const actor = await currentActor();
  if (actor && (actor.ssoRequiredBy ?? []).length === 0) redirect("/");
  return (
    <main className="login">
      <p className="brand">Levelrail</p>
      <h1>Sign in</h1>
      <LoginForm />
      <SsoForm required={sso === "required"} error={error ?? null} />
    </main>
  );
}
