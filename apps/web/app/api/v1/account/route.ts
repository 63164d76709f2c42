import { secondFactorOf } from "@levelrail/auth/account";
import { json, route } from "@/lib/api";

/**
 * The caller's account: email, second factor (enrolled, locked until) and the organizations that
 * require one they lack. Enrolment itself goes through better-auth's routes (/api/auth/two-factor/*).
 */
export const GET = route(async ({ ctx }) =>
  json({
    userId: ctx.actor.userId,
    email: ctx.actor.email,
    secondFactor: await secondFactorOf(ctx.db, ctx.actor.userId),
    secondFactorRequiredBy: ctx.actor.secondFactorRequiredBy ?? [],
  }),
);
