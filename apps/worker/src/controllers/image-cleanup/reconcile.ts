import type { Runtime } from "@levelrail/docker";
import type { Controller } from "../../reconcile/controller";
import { type NeededImages, type PulledImage, plan } from "./plan";

/** The database side of image collection. */
export interface ImageStore {
  /** Image ids and references the releases still need: each service's last `keepReleases` succeeded, its current one, any pending or deploying. */
  neededImages(keepReleases: number): Promise<NeededImages>;
  /** Every image this installation recorded pulling. */
  pulledImages(): Promise<PulledImage[]>;
  /** Drops these records (the image was removed, or is gone from the engine). */
  forgetPulled(rows: { imageId: string; ref: string }[]): Promise<void>;
}

export interface ImageCleanupOptions {
  runtime: Runtime;
  store: ImageStore;
  /** How many succeeded releases per service keep their image. */
  keepReleases: number;
  /** How long a freshly pulled image is left alone whatever the releases say. */
  graceMs: number;
  log: (line: string) => void;
  /** Told of each removal (for a metric). */
  onRemoved?: (bytes: number) => void;
  now?: () => number;
}

/**
 * Whole-fleet: removes images this installation pulled that no kept release needs and nothing
 * uses (see `plan`), by id and never forced; a conflict means something uses it after all: it stays.
 * Images it did not pull are never looked at.
 */
export function imageCleanupController(o: ImageCleanupOptions): Controller {
  const now = o.now ?? Date.now;
  return {
    name: "image-cleanup",
    async reconcile() {
      // The needs first: a release that pins an image after this read is covered by the grace period.
      const needed = await o.store.neededImages(o.keepReleases);
      const pulled = await o.store.pulledImages();
      if (pulled.length === 0) return;
      const images = await o.runtime.listImages();
      const inUse = await o.runtime.containerImageIds();
      const p = plan({ needed, pulled }, { images, inUse, now: now() }, o.graceMs);
      await o.store.forgetPulled(p.forget);
      let bytes = 0;
      const removed: string[] = [];
      for (const img of p.remove) {
        // Another tag of ours goes first (an id with several tags is refused), only while it still names this image.
        for (const tag of img.untag) if ((await o.runtime.imageId(tag)) === img.id) await o.runtime.removeImage(tag);
        const outcome = await o.runtime.removeImage(img.id);
        if (outcome === "conflict") {
          // Something started using it since we looked: it stays, and so do its records.
          o.log(`[image-cleanup] ${img.refs.join(", ")} is in use after all: left`);
          continue;
        }
        await o.store.forgetPulled(img.refs.map((ref) => ({ imageId: img.id, ref })));
        if (outcome === "removed") {
          bytes += img.size;
          removed.push(`${img.refs.join(", ")} (${img.id.slice(0, 19)})`);
          o.onRemoved?.(img.size);
        }
      }
      if (removed.length > 0) o.log(`[image-cleanup] removed ${removed.length} pulled image(s), ${(bytes / 1048576).toFixed(1)} MiB: ${removed.join("; ")}`);
    },
  };
}
