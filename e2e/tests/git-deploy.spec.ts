import { createHmac, randomUUID } from "node:crypto";
import { type GitServer, type TestRepo, startGitServer } from "@levelrail/testkit/git";
import { uniqueName } from "../fixtures/stack";
import { IMAGE_HEALTH_PATH, IMAGE_PORT } from "../fixtures/images";
import { expect, test } from "../fixtures/test";
import { createApp, hydrated, openService, serviceApiPath } from "../fixtures/ui";

/** A build (fetch, BuildKit) and a deploy after it take seconds; allow for a loaded machine. */
const BUILD_TIMEOUT = 120_000;

let git: GitServer;
test.beforeAll(async () => {
  git = await startGitServer();
});
test.afterAll(async () => {
  await git?.close();
});

/** The repository's content: a page on top of the suite's busybox image. */
const site = (base: string, body: string) => ({ Dockerfile: `FROM ${base}\nCOPY www /www\n`, "www/index.html": body, "www/healthz": "ok\n" });


/** A GitHub push event for `commit` on `main`, signed with the source's webhook secret. */
function githubPush(repo: TestRepo, commit: string, secret: string) {
  const body = JSON.stringify({ ref: "refs/heads/main", before: "0".repeat(40), after: commit, deleted: false, repository: { clone_url: repo.url, full_name: "acme/site" }, head_commit: { id: commit } });
  const signature = `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
  return { body, headers: { "content-type": "application/json", "x-github-event": "push", "x-github-delivery": randomUUID(), "x-hub-signature-256": signature } };
}

test("connect a repository, watch its first build and deploy, then a push builds and deploys the new commit", async ({ signedIn: page, operator, images, bearer }) => {
  test.setTimeout(300_000);
  const app = uniqueName("site");
  const name = uniqueName("web");
  const repo = await git.repo(name);
  const first = await repo.commit(site(images.v1, "from git, first commit\n"));

  await page.goto("/");
  await createApp(page, app);
  const form = page.getByRole("form", { name: "New service" });
  await hydrated(form.getByRole("button", { name: "Create service" }));
  await form.getByLabel("Name", { exact: true }).fill(name);
  await form.getByLabel("App", { exact: true }).selectOption(app);
  await form.getByLabel("Or build from a git repository").fill(repo.url);
  await form.getByLabel("Branch or tag").fill("main");
  await form.getByLabel("Port", { exact: true }).fill(String(IMAGE_PORT));
  await form.getByLabel("Health path", { exact: true }).fill(IMAGE_HEALTH_PATH);
  await form.getByRole("button", { name: "Create service" }).click();

  // The webhook's path and its secret are shown once, on creation.
  const created = form.getByRole("status");
  await expect(created).toContainText("its first build is queued");
  const webhookPath = (await created.locator("code").first().textContent())!.trim();
  expect(webhookPath).toMatch(/^\/api\/v1\/hooks\/git\/[0-9a-f-]{36}$/);
  const secret = (await created.locator("code").nth(1).textContent())!.trim();
  expect(secret).toMatch(/^[0-9a-f]{64}$/);

  // The Builds tab: the first build's log streams in, the build succeeds, the service deploys its image.
  const ref = { environmentId: operator.environmentId, name };
  await openService(page, ref, "builds");
  const builds = page.getByRole("table");
  await expect(builds.getByText(first.slice(0, 12), { exact: true })).toBeVisible({ timeout: BUILD_TIMEOUT });
  await expect(page.getByTestId("build-status").first()).toHaveText(/succeeded/i, { timeout: BUILD_TIMEOUT });
  await expect(page.getByText("COPY www /www").first()).toBeVisible();
  await expect
    .poll(async () => (await (await bearer.get(serviceApiPath(ref, "/status"))).json()) as { phase: string; image: string | null }, { timeout: BUILD_TIMEOUT })
    .toMatchObject({ phase: "running", image: expect.stringContaining(`:${first}`) });

  // A push to the tracked branch: a signed webhook builds the new commit and deploys it.
  const second = await repo.commit(site(images.v1, "from git, second commit\n"));
  const push = githubPush(repo, second, secret);
  const wrong = await page.request.post(webhookPath, { data: push.body, headers: { ...push.headers, "x-hub-signature-256": `sha256=${"0".repeat(64)}` } });
  expect(wrong.status()).toBe(401);
  const answered = await page.request.post(webhookPath, { data: push.body, headers: push.headers });
  expect(answered.status()).toBe(202);
  await expect(builds.getByText(second.slice(0, 12), { exact: true })).toBeVisible({ timeout: BUILD_TIMEOUT });
  await expect(page.getByTestId("build-status").first()).toHaveText(/succeeded/i, { timeout: BUILD_TIMEOUT });
  await expect
    .poll(async () => (await (await bearer.get(serviceApiPath(ref, "/status"))).json()) as { phase: string; image: string | null }, { timeout: BUILD_TIMEOUT })
    .toMatchObject({ phase: "running", image: expect.stringContaining(`:${second}`) });

  // The Overview shows the built image of the new commit serving.
  await openService(page, ref, "overview");
  await expect(page.getByTestId("status-image")).toContainText(second);
});
