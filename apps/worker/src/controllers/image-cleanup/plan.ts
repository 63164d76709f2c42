import type { ImageInfo } from "@levelrail/docker";
import { repositoryOf } from "../application/reference";

/** One image this installation pulled: the engine's id, the reference it was pulled as, and when. */
export interface PulledImage {
  imageId: string;
  ref: string;
  /** Milliseconds since epoch. */
  pulledAt: number;
}

/** What the releases still need: image ids pinned by kept releases, and references of releases not pinned yet. */
export interface NeededImages {
  ids: Set<string>;
  refs: Set<string>;
}

export interface ImagesDesired {
  needed: NeededImages;
  pulled: PulledImage[];
}

export interface ImagesObserved {
  images: ImageInfo[];
  /** Image ids of every container on the engine (any state, anyone's). */
  inUse: Set<string>;
  now: number;
}

export interface ImagePlan {
  /** Images to remove, by id; `untag` first names its other tags (all ours), which an id removal would refuse. */
  remove: { id: string; untag: string[]; size: number; refs: string[] }[];
  /** Rows whose image the engine no longer has. */
  forget: { imageId: string; ref: string }[];
}

/**
 * A tag as the engine lists it in RepoTags (`docker.io/library/nginx` → `nginx:latest`,
 * `127.0.0.1:5000/a/b:1` as it is); null for a digest reference, which is no tag, or one the engine
 * would refuse.
 */
export function familiarTag(ref: string): string | null {
  if (ref.includes("@")) return null;
  const repo = repositoryOf(ref);
  if (repo === null) return null;
  const last = ref.slice(ref.lastIndexOf("/") + 1);
  const colon = last.lastIndexOf(":");
  const tag = colon < 0 ? "latest" : last.slice(colon + 1);
  const familiar = repo.startsWith("docker.io/library/") ? repo.slice("docker.io/library/".length) : repo.startsWith("docker.io/") ? repo.slice("docker.io/".length) : repo;
  return `${familiar}:${tag}`;
}

/**
 * Which pulled images may go. An image is removed only when all of these hold: this installation
 * recorded pulling it; no kept release pins it (the last few succeeded per service, the current one,
 * any pending or deploying) nor names one of its tags; no container on the engine uses it; it was
 * not pulled within `graceMs` (a deploy between its pull and pinning the id); and every tag it has
 * is one we pulled it as (an operator's own tag makes it theirs too). Nothing else is looked at.
 */
export function plan(d: ImagesDesired, o: ImagesObserved, graceMs: number): ImagePlan {
  const onEngine = new Map(o.images.map((i) => [i.id, i]));
  const rows = new Map<string, PulledImage[]>();
  for (const p of d.pulled) rows.set(p.imageId, [...(rows.get(p.imageId) ?? []), p]);
  const neededTags = new Set([...d.needed.refs].map(familiarTag).filter((t): t is string => t !== null));

  const result: ImagePlan = { remove: [], forget: [] };
  for (const [id, pulls] of rows) {
    const image = onEngine.get(id);
    if (!image) {
      result.forget.push(...pulls.map(({ imageId, ref }) => ({ imageId, ref })));
      continue;
    }
    if (d.needed.ids.has(id) || o.inUse.has(id)) continue;
    if (pulls.some((p) => o.now - p.pulledAt < graceMs)) continue;
    const ours = new Set(pulls.map((p) => familiarTag(p.ref)));
    const tags = image.repoTags.map((t) => familiarTag(t) ?? t);
    if (tags.some((t) => !ours.has(t) || neededTags.has(t))) continue;
    result.remove.push({ id, untag: image.repoTags.slice(1), size: image.size, refs: pulls.map((p) => p.ref) });
  }
  return result;
}
