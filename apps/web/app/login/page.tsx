import { redirect } from "next/navigation";
import { currentActor } from "@/lib/session";
import { LoginForm } from "./login-form";

export const metadata = { title: "Sign in · Levelrail" };

export default async function LoginPage() {
  if (await currentActor()) redirect("/");
  return (
    <main className="login">
      <p className="brand">Levelrail</p>
      <h1>Sign in</h1>
      <LoginForm />
    </main>
  );
}
