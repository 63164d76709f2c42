import type { APIRequestContext, Locator } from "@playwright/test";
import type Docker from "dockerode";
import { getService } from "@levelrail/services/service/view";
import { serviceFilter } from "@levelrail/spec/naming";
import { E2E_IMAGES, IMAGE_PORT } from "../fixtures/images";
import { DEPLOY_TIMEOUT, seedService } from "../fixtures/services";
import { expect, test } from "../fixtures/test";
import { hydrated, openService, servicePage, showTab } from "../fixtures/ui";

/**
 * A pre-deploy hook that prints a red word and a script tag, then fails. On the form it is one
 * argument per line; the shell is the one inside the image (the hook never runs through a shell
 * on the host).
 */
const HOOK = ["/bin/sh", "-c", "printf '\\033[31mred\\033[0m <script>alert(1)</script>\\n'; exit 3"];
/** What the hook prints, once its colour escapes are rendered. */
const PRINTED = "red <script>alert(1)</script>";

/** What a container answers on GET /, asked directly at its address on its app network. */
async function answerOf(docker: Docker, request: APIRequestContext, container: string): Promise<string> {
  const networks = (await docker.getContainer(container).inspect()).NetworkSettings.Networks;
  const ip = Object.values(networks).find((n) => n.IPAddress)?.IPAddress;
  if (!ip) throw new Error(`${container} has no address`);
  const res = await request.get(`http://${ip}:${IMAGE_PORT}/`, { timeout: 5_000 });
  return res.text();
}

const colorOf = (el: Locator) => el.evaluate((e) => getComputedStyle(e).color);

test("a failing pre-deploy hook set in the UI fails the deploy, the old container keeps serving, and its output reads as text", async ({
  signedIn: page,
  operator,
  images: _images,
  stack,
  request,
}) => {
  // An alert() that ran would open a dialog; none may.
  const dialogs: string[] = [];
  page.on("dialog", (dialog) => {
    dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    void dialog.dismiss();
  });
  // Deployed once without a hook, so there is a container for the failed deploy to leave serving.
  const seeded = await seedService(operator, { prefix: "hooks", deployed: true });
  const service = seeded.name;
  await openService(page, seeded);
  const phase = page.getByTestId("phase");
  const active = page.getByTestId("active-container");
  await expect(phase).toHaveText("running");
  await expect(active).toHaveText(new RegExp(`^${stack.env.shortName}-${service}-[0-9a-f]{12}$`));
  const serving = (await active.textContent()) ?? "";

  // Everything from here to the hook's output happens in this document (tabs switch in place): a
  // reload would lose the mark.
  await page.evaluate(() => void ((window as { e2eSameDocument?: boolean }).e2eSameDocument = true));
  await showTab(page, "hooks");
  const config = page.getByRole("region", { name: "Hooks and domains" });
  const form = config.getByRole("form", { name: "Hooks and routing" });
  const save = form.getByRole("button", { name: "Save hooks and routing" });
  await hydrated(save);
  await form.getByLabel("Pre-deploy command", { exact: true }).fill(HOOK.join("\n"));
  await form.getByLabel("Hook timeout (seconds)", { exact: true }).fill("30");
  await save.click();
  await expect(config.getByRole("status")).toHaveText("Saved hooks and routing");
  // The form restarts from what was saved: the same lines, read back from the API.
  await expect(form.getByLabel("Pre-deploy command", { exact: true })).toHaveValue(HOOK.join("\n"));
  expect((await getService({ ctx: operator.ctx, envId: operator.ctx.envId, name: service })).hooks).toEqual({ preDeploy: HOOK, postDeploy: null, timeoutSeconds: 30 });

  await showTab(page, "overview");
  await page.getByRole("region", { name: "Actions" }).getByRole("button", { name: "Deploy", exact: true }).click();

  await expect(phase).toHaveText("failed", { timeout: DEPLOY_TIMEOUT });
  const message = page.getByTestId("status-message");
  await expect(message).toContainText(`pre-deploy hook ${JSON.stringify(HOOK)} failed with exit code 3`);
  await expect(message).toContainText(`${serving} keeps serving`);
  await expect(active).toHaveText(serving);
  const history = page.getByRole("table", { name: "Recent releases" });
  await expect(history.getByRole("row")).toHaveCount(3);
  await expect(history.getByRole("row").nth(1).getByRole("cell").nth(4)).toHaveText("failed");

  // The old container still runs and answers, and it is the service's only container: the hook's
  // one-off container is gone and no new service container was started.
  expect(await answerOf(stack.docker, request, serving)).toBe(E2E_IMAGES.v1.body);
  const { id: serviceId } = await getService({ ctx: operator.ctx, envId: operator.ctx.envId, name: service });
  const filters = JSON.stringify({ label: serviceFilter(stack.env.shortName, serviceId) });
  await expect
    .poll(async () => (await stack.docker.listContainers({ all: true, filters })).map((c) => `${c.Names.join(",")} ${c.State}`))
    .toEqual([`/${serving} running`]);

  // The run is in the history (on the Hooks and domains tab), and its output opens below the table.
  await showTab(page, "hooks");
  const runs = page.getByRole("table", { name: "Hook runs", exact: true });
  await expect(runs.getByRole("row")).toHaveCount(2);
  const run = runs.getByRole("row").nth(1);
  // Outcome, phase, command, started, duration, exit code.
  await expect(run.getByRole("cell").nth(0)).toHaveText("failed");
  await expect(run.getByRole("cell").nth(1)).toHaveText("pre-deploy");
  await expect(run.getByRole("cell").nth(2)).toHaveText(`/bin/sh -c ${JSON.stringify(HOOK[2])}`);
  await expect(run.getByRole("cell").nth(5)).toHaveText("3");
  const open = run.getByRole("button", { name: new RegExp(`^pre-deploy hook run of ${service} started `) });
  await expect(open).toHaveAttribute("aria-expanded", "false");
  await open.click();
  await expect(open).toHaveAttribute("aria-expanded", "true");

  const selected = page.getByRole("region", { name: "Selected hook run", exact: true });
  await expect(selected.getByTestId("hook-outcome")).toHaveText("failed");
  const output = selected.getByRole("log", { name: "Hook output", exact: true });
  await expect(output).toHaveText(PRINTED);
  // The colour escape became a coloured span around "red", and nothing else of it is left.
  const red = output.getByText("red", { exact: true });
  await expect(red).toHaveClass("ansi-red");
  expect(await colorOf(red)).not.toBe(await colorOf(output));
  // The tag is text: shown literally, never parsed into an element, never run.
  await expect(output).toContainText("<script>alert(1)</script>");
  await expect(page.locator("[role=log] script")).toHaveCount(0);
  await expect(output.locator("*")).toHaveCount(1);
  expect(await page.evaluate(() => (window as { e2eSameDocument?: boolean }).e2eSameDocument)).toBe(true);

  // The run's own page, rendered on the server, shows the same inert text.
  await selected.getByRole("link", { name: "Open on its own page", exact: true }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Hook run", exact: true })).toBeVisible();
  const own = page.getByRole("log", { name: "Hook output", exact: true });
  await expect(own).toHaveText(PRINTED);
  await expect(own.getByText("red", { exact: true })).toHaveClass("ansi-red");
  await expect(page.locator("[role=log] script")).toHaveCount(0);
  // Its crumb leads back to the service under its own environment (names repeat across environments).
  await expect(page.locator("p.crumbs").getByRole("link", { name: seeded.name, exact: true })).toHaveAttribute("href", servicePage(seeded));
  expect(dialogs).toEqual([]);
});

test("limits set in the configuration form are checked next to their field, shown, and applied to the next container", async ({
  signedIn: page,
  operator,
  images: _images,
  stack,
}) => {
  const seeded = await seedService(operator, { prefix: "limits", deployed: true });
  await openService(page, seeded);
  const active = page.getByTestId("active-container");
  await expect(page.getByTestId("phase")).toHaveText("running");
  const serving = (await active.textContent()) ?? "";

  // Limits are on the Settings tab.
  await showTab(page, "settings");
  const config = page.getByRole("region", { name: "Configuration" });
  // The defaults, as the page shows them and as the form offers them.
  await expect(config.getByTestId("limit-memory")).toHaveText("no limit");
  await expect(config.getByTestId("limit-cpus")).toHaveText("no limit");
  await expect(config.getByTestId("limit-pids")).toHaveText("4096");
  await expect(config.getByTestId("limit-caps")).toHaveText("none");
  const form = config.getByRole("form", { name: "Limits" });
  const save = form.getByRole("button", { name: "Save limits" });
  await hydrated(save);
  const memory = form.getByLabel("Memory (MiB)", { exact: true });
  const pids = form.getByLabel("Processes", { exact: true });
  await expect(memory).toHaveValue("");
  await expect(memory).toHaveAttribute("placeholder", "no limit");
  await expect(pids).toHaveValue("4096");

  // Too little memory: the error is next to the field and nothing is saved.
  await memory.fill("8");
  await save.click();
  await expect(memory).toHaveAttribute("aria-invalid", "true");
  await expect(memory).toHaveAccessibleDescription(/must be at least 16 MiB/);
  await expect(pids).toHaveAttribute("aria-invalid", "false");
  await expect(config.getByRole("status")).toHaveCount(0);
  expect((await getService({ ctx: operator.ctx, envId: operator.ctx.envId, name: seeded.name })).resources.memoryMb).toBeNull();

  await memory.fill("256");
  await pids.fill("200");
  await form.getByRole("checkbox", { name: "NET_RAW" }).check();
  await save.click();
  await expect(config.getByRole("status")).toHaveText("Saved limits");
  await expect(memory).toHaveAttribute("aria-invalid", "false");
  await expect(config.getByTestId("limit-memory")).toHaveText("256 MiB");
  await expect(config.getByTestId("limit-pids")).toHaveText("200");
  await expect(config.getByTestId("limit-caps")).toHaveText("NET_RAW");
  expect((await getService({ ctx: operator.ctx, envId: operator.ctx.envId, name: seeded.name })).resources).toEqual({
    memoryMb: 256,
    cpus: null,
    pids: 200,
    capAdd: ["NET_RAW"],
  });

  // Nothing restarts until a deploy, which the drift banner asks for; the deploy's container has the limits.
  await showTab(page, "overview");
  const actions = page.getByRole("region", { name: "Actions" });
  await expect(actions.getByText("resources", { exact: true })).toBeVisible();
  await actions.getByRole("button", { name: "Deploy", exact: true }).click();
  await expect(active).not.toHaveText(serving, { timeout: DEPLOY_TIMEOUT });
  await expect(page.getByTestId("phase")).toHaveText("running", { timeout: DEPLOY_TIMEOUT });
  const host = (await stack.docker.getContainer((await active.textContent()) ?? "").inspect()).HostConfig;
  expect({ memory: host.Memory, pids: host.PidsLimit, capAdd: host.CapAdd?.map((c: string) => c.replace(/^CAP_/, "")) }).toEqual({
    memory: 256 * 1024 * 1024,
    pids: 200,
    capAdd: ["CHOWN", "NET_RAW", "SETGID", "SETUID"],
  });
});
