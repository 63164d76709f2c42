import { secondFactorOf } from "@levelrail/auth/account";
import { json, route } from "@/lib/api";

/**
 * The caller's account: email, second factor (enrolled, locked until) and the organizations that
 * require one they lack, and those that require single sign-on this session did not come through. Enrolment itself goes through better-auth's routes (/api/auth/two-factor/*).
 */
export const GET = route(async ({ ctx }) =>
  json({
    userId: ctx.actor.userId,
    email: ctx.actor.email,
    secondFactor: await secondFactorOf(ctx.db, ctx.actor.userId),
    secondFactorRequiredBy: ctx.actor.secondFactorRequiredBy ?? [],
    ssoRequiredBy: ctx.actor.ssoRequiredBy ?? [],
  }),
);
